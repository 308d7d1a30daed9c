import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { heldBytes } from "../../src/binary/write-core.ts";
import { runLimited } from "../limits/harness.ts";

// serialize's result owns its memory: a Uint8Array at offset 0 of an ArrayBuffer of exactly its bytes.
// The writer holds its last owned result (up to 4 MiB) until the next message ends (write-core.ts
// `lastResult`: glibc trims its heap when every result is dead, and the next results page-fault). These
// tests pin that holding it changes nothing a caller can see: every result is exactly its message,
// never written again, may be transferred, and neither the value nor an older result is kept alive.

function records(n: number, tag: string): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({ id: i, name: `${tag}-${i}`, text: "x".repeat(i % 50) }));
}

/** Byte equality without vitest's element-by-element walk (a 4 MiB array would take minutes). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

function ownsExactly(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
}

describe("serialize's owned result", () => {
  it("holds exactly its message across calls of different sizes, and is never written again", () => {
    // Large, small, larger than the 4 MiB bound, empty-ish, large again: results kept by the test are
    // compared with copies taken when they were made.
    const values: unknown[] = [
      records(4000, "a"),
      { a: 1 },
      new Uint8Array(4 * 1024 * 1024 + 4096).fill(7),
      records(10, "b"),
      "s",
      records(6000, "c"),
      records(4000, "a"),
    ];
    const results: Uint8Array[] = [];
    const copies: Uint8Array[] = [];
    for (const value of values) {
      const bytes = serialize(value);
      expect(ownsExactly(bytes)).toBe(true);
      const back = deserialize(bytes);
      if (value instanceof Uint8Array) expect(sameBytes(back as Uint8Array, value)).toBe(true);
      else expect(isDeepStrictEqual(back, value)).toBe(true);
      // Held until the next message: a result of up to 4 MiB, never a larger one.
      expect(heldBytes()).toBe(bytes.length <= 4 * 1024 * 1024 ? bytes.length : 0);
      results.push(bytes);
      copies.push(bytes.slice());
    }
    for (let i = 0; i < results.length; i++) expect(sameBytes(results[i]!, copies[i]!)).toBe(true);
    // The same value twice: equal bytes, distinct buffers.
    expect(sameBytes(results[6]!, results[0]!)).toBe(true);
    expect(results[6]!.buffer).not.toBe(results[0]!.buffer);
  });

  it("may be transferred (detached) before the next call", () => {
    const first = serialize(records(3000, "t"));
    const moved = structuredClone(first.buffer, { transfer: [first.buffer] });
    expect(first.buffer.byteLength).toBe(0);
    const second = serialize(records(3000, "u"));
    expect(ownsExactly(second)).toBe(true);
    expect(deserialize(second)).toEqual(records(3000, "u"));
    expect(deserialize(new Uint8Array(moved))).toEqual(records(3000, "t"));
  });

  it("a serialize from a getter inside serialize: both results own exactly their bytes", () => {
    let inner: Uint8Array | null = null;
    const big = records(2000, "inner");
    const value = {
      before: records(500, "before"),
      get middle() {
        inner = serialize(big);
        return inner.length;
      },
      after: records(500, "after"),
    };
    const outer = serialize(value);
    expect(ownsExactly(outer)).toBe(true);
    expect(inner).not.toBeNull();
    expect(ownsExactly(inner!)).toBe(true);
    expect(deserialize(inner!)).toEqual(big);
    expect(deserialize(outer)).toEqual({
      before: records(500, "before"),
      middle: inner!.length,
      after: records(500, "after"),
    });
    // And the next top-level call still writes exact, owned results.
    const next = serialize(records(100, "next"));
    expect(ownsExactly(next)).toBe(true);
    expect(deserialize(next)).toEqual(records(100, "next"));
  });

  it("keeps neither the value nor an older result alive (WeakRef, full GC, child process)", async () => {
    const run = await runLimited(
      `
      const tick = () => new Promise((resolve) => setImmediate(resolve));
      const make = (n) => Array.from({ length: n }, (_, i) => ({ id: i, name: "v-" + i }));
      // A value serialized (and its result dropped): neither may stay reachable.
      let value = make(5000);
      let result = S.serialize(value);
      const valueRef = new WeakRef(value);
      const objectRef = new WeakRef(value[1234]);
      const resultRef = new WeakRef(result.buffer);
      value = null;
      result = null;
      await tick();
      globalThis.gc();
      await tick();
      globalThis.gc();
      // The writer holds its last result (only the bytes): the value is gone, the result is not yet.
      const held = resultRef.deref() !== undefined;
      const valueGone = valueRef.deref() === undefined && objectRef.deref() === undefined;
      // The next message releases the held result.
      const other = S.serialize(make(10));
      await tick();
      globalThis.gc();
      await tick();
      globalThis.gc();
      report({
        held,
        valueGone,
        result: resultRef.deref() === undefined,
        other: other.length > 0,
      });
      `,
      { heapMiB: 256, timeoutMs: 30_000, nodeFlags: ["--expose-gc"] },
    );
    expect(run.outcome, run.stderr).toBe("ok");
    expect(run.result).toEqual({ held: true, valueGone: true, result: true, other: true });
  });
});
