/**
 * The dense-array loop of cloneArray (src/clone/clone.ts): primitives are tested in the loop itself
 * (not by a call per element), and the test that an array's key list is exactly its indices compares
 * the last key with a string remembered for the last length asked (indexKey). These tests pin what
 * those two must keep: every primitive as it is (-0, NaN, bigints, undefined, null), an own undefined
 * element kept where a hole stays a hole, functions and symbols refused with their path, and arrays of
 * alternating lengths, holes and named properties each told apart, whatever length came before.
 */
import { describe, expect, it } from "vitest";
import { clone } from "../../src/index.ts";

function refusalPath(value: unknown): string | undefined {
  try {
    clone(value);
  } catch (error) {
    expect((error as DOMException).name).toBe("DataCloneError");
    return (error as { path?: string }).path;
  }
  throw new Error("not refused");
}

describe("clone: the dense-array loop", () => {
  it("keeps every primitive as it is", () => {
    const big = 2n ** 70n;
    const source = [-0, Number.NaN, big, true, false, null, undefined, "s", 1.5, 7, ""];
    for (let pass = 0; pass < 3; pass++) {
      const copy = clone(source);
      expect(copy).not.toBe(source);
      expect(copy).toHaveLength(source.length);
      expect(Object.is(copy[0], -0)).toBe(true);
      expect(Number.isNaN(copy[1])).toBe(true);
      expect(copy[2]).toBe(big);
      expect(copy.slice(3)).toEqual([true, false, null, undefined, "s", 1.5, 7, ""]);
      // An own undefined element stays an own property.
      expect(Object.hasOwn(copy, 6)).toBe(true);
    }
  });

  it("keeps an own undefined element own and a hole a hole", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const source = [undefined, , undefined, 1];
    const copy = clone(source);
    expect(copy).toHaveLength(4);
    expect(Object.keys(copy)).toEqual(["0", "2", "3"]);
  });

  it("refuses a function or a symbol among primitives with the path of the element", () => {
    expect(refusalPath([1, "a", true, null, () => 1, 2, 3, 4, 5])).toBe("value[4]");
    expect(refusalPath([1, "a", Symbol("s"), null, 2, 3, 4, 5, 6])).toBe("value[2]");
    expect(
      refusalPath({
        rows: [
          [1, 2],
          [3, Symbol.iterator],
        ],
      }),
    ).toBe("value.rows[1][1]");
  });

  it("tells dense arrays from arrays with holes or named properties, whatever length came before", () => {
    const dense9 = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    // Four keys for a length of four: three indices and a named property, the last key not "3".
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const named = [1, 2, , 4] as unknown[] & { x?: number };
    named.x = 5;
    // Nine keys for a length of nine, the last one "08", which is not an index.
    const eight = [1, 2, 3, 4, 5, 6, 7, 8] as unknown[] & Record<string, unknown>;
    eight.length = 9;
    eight["08"] = "named";
    const rows = [dense9, named, dense9, eight, [1, 2, 3, 4], named, eight, dense9];
    for (let pass = 0; pass < 3; pass++) {
      const copy = clone(rows) as unknown[][];
      expect(copy[0]).toEqual(dense9);
      expect(copy[1]).toHaveLength(4);
      expect(Object.keys(copy[1]!)).toEqual(["0", "1", "3", "x"]);
      expect((copy[1] as unknown as { x: number }).x).toBe(5);
      expect(copy[3]).toHaveLength(9);
      expect(Object.keys(copy[3]!)).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "08"]);
      expect(8 in copy[3]!).toBe(false);
      expect(copy[4]).toEqual([1, 2, 3, 4]);
      // Shared references stay shared.
      expect(copy[2]).toBe(copy[0]);
      expect(copy[5]).toBe(copy[1]);
      expect(copy[6]).toBe(copy[3]);
    }
  });

  it("skips an element an index getter deleted, never reading it through Array.prototype", () => {
    const proto = Array.prototype as unknown as Record<string, unknown>;
    let inherited = 0;
    const source = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    Object.defineProperty(source, 0, {
      get() {
        delete source[5];
        return "first";
      },
      enumerable: true,
      configurable: true,
    });
    let copy: unknown[];
    Object.defineProperty(proto, "5", {
      get() {
        inherited++;
        return "inherited";
      },
      configurable: true,
    });
    try {
      copy = clone(source);
    } finally {
      delete proto["5"];
    }
    expect(inherited).toBe(0);
    expect(copy).toHaveLength(10);
    expect(copy[0]).toBe("first");
    expect(Object.hasOwn(copy, 5)).toBe(false);
    expect(copy[9]).toBe(10);
  });
});
