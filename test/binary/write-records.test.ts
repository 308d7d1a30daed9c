import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { NUMBER_EDGES } from "../fixtures/values.ts";

// Records of one shape are written by the generic loop for their first uses and then by a writer compiled
// for the shape (write-shapes.ts `compileWriter`), which reads the fields in the same order and hands each
// value to `writeValue`. Both must write the same bytes: a message whose first records
// went through the loop and its later ones through the compiled writer is compared with the same value
// written again, when the shape's writer is compiled from its first record on.

let fresh = 0;
/** Key names no other test uses, so the shape starts uncompiled (shapes are process-wide). */
function keys(): [string, string, string] {
  fresh++;
  return [`a${fresh}`, `b${fresh}`, `c${fresh}`];
}

const VALUES: unknown[] = [
  "",
  "item-7",
  "caf\u00e9 \u2603 \ud83d\ude00",
  "lone \ud800 surrogate",
  "x".repeat(100),
  true,
  false,
  undefined,
  null,
  12345678901234567890n,
  { nested: 1 },
  [1, "two", false],
  new Date(1_700_000_000_000),
  ...NUMBER_EDGES,
];

function records(value: unknown, count: number): Record<string, unknown>[] {
  const [a, b, c] = keys();
  const out: Record<string, unknown>[] = [];
  // Fresh objects every time (no shared references), the value between two others.
  for (let i = 0; i < count; i++) out.push({ [a]: i, [b]: value, [c]: "end" });
  return out;
}

describe("binary writer: compiled record writers", () => {
  it("write every kind of field value as the generic loop does", () => {
    for (const value of VALUES) {
      const list = records(value, 6);
      const first = serialize(list); // records 1-2 by the loop, 3-6 by the compiled writer
      const again = serialize(list); // all six by the compiled writer
      expect(Array.from(again)).toEqual(Array.from(first));
      const back = deserialize(first) as Record<string, unknown>[];
      expect(back).toHaveLength(6);
      for (let i = 0; i < 6; i++) {
        const b = Object.values(back[i]!)[1];
        if (typeof value === "number") expect(Object.is(b, value)).toBe(true);
        else expect(b).toEqual(value);
      }
    }
  });

  it("mark a key deleted by an earlier getter as absent, before and after compiling", () => {
    const [a, b, c] = keys();
    const make = () => {
      const o: Record<string, unknown> = {};
      Object.defineProperty(o, a, {
        enumerable: true,
        configurable: true,
        get() {
          delete o[b];
          return 1;
        },
      });
      o[b] = "gone";
      o[c] = true;
      return o;
    };
    const list = [make(), make(), make(), make(), make()];
    const first = serialize(list);
    const again = serialize([make(), make(), make(), make(), make()]);
    expect(Array.from(again)).toEqual(Array.from(first));
    for (const o of deserialize(first) as Record<string, unknown>[]) {
      expect(Object.keys(o)).toEqual([a, c]);
      expect(o[c]).toBe(true);
    }
  });
});
