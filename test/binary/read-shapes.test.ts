import { describe, expect, it } from "vitest";
import { internShape, MAX_CACHE_BYTES, shapeCacheStats } from "../../src/binary/read-shapes.ts";

// The decoder's shape cache (src/binary/read-shapes.ts) and the direct-mapped table of recently found
// shapes in front of it: a key list finds the cached shape whichever way it is found, and the table
// never holds a shape the cache has dropped (it would keep alive what the byte bound no longer counts).

/** A key list of `n` keys whose text is unique to `tag` (fresh strings, as a decoder makes them). */
function keysOf(tag: string, n: number, width = 1): string[] {
  return Array.from({ length: n }, (_, k) => `${tag}_${k}_`.padEnd(width, "x"));
}

describe("binary reader: shape cache and its recent table", () => {
  it("an equal key list (fresh strings) finds the same shape, and a different one does not", () => {
    const a = internShape(keysOf("recent-a", 5));
    expect(internShape(keysOf("recent-a", 5))).toBe(a);
    expect(internShape(keysOf("recent-a", 5))).toBe(a);
    const b = internShape([...keysOf("recent-a", 4), "other"]);
    expect(b).not.toBe(a);
    expect(b.keys.at(-1)).toBe("other");
    // Same lengths everywhere, one key differs in its text (the same slot or another: found either way).
    const c = internShape(keysOf("recent-A", 5));
    expect(c).not.toBe(a);
    expect(internShape(keysOf("recent-a", 5))).toBe(a);
    expect(internShape(keysOf("recent-A", 5))).toBe(c);
  });

  it("never returns a shape the cache has evicted, and holds none", () => {
    const first = internShape(keysOf("evicted", 3, 4000));
    // Shapes of ~16 K characters of keys each (~64 KB as the cache counts them) until the first is gone.
    const each = 4 * 3 * 4000;
    for (let i = 0; i < Math.ceil((2 * MAX_CACHE_BYTES) / each) + 8; i++)
      internShape(keysOf(`fill${i}`, 3, 4000));
    expect(shapeCacheStats().bytes).toBeLessThanOrEqual(MAX_CACHE_BYTES);
    expect(shapeCacheStats().stale).toBe(0);
    const again = internShape(keysOf("evicted", 3, 4000));
    expect(again).not.toBe(first);
    expect(first.compilable).toBe(false);
    expect(again.compilable).toBe(true);
    expect(internShape(keysOf("evicted", 3, 4000))).toBe(again);
    expect(shapeCacheStats().stale).toBe(0);
  });
});
