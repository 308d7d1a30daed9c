import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { ARRAY, FIXARRAY, HEADER_SIZE, HOLE } from "../../src/binary/tags.ts";

// The writer's array loop (encode.ts `writeArray`) writes numbers itself, with the buffer and its
// position in locals (write-core.ts `numberAt`), and hands every other element to the module's writers,
// storing the position back first and reloading the buffer after. These tests pin that a number written
// by the loop has the bytes a number written on its own has, wherever it falls between other elements
// and across the buffer's growth, and that each element is read once.

/** Numbers of every encoded form: fixints, 8/16/32-bit, negative forms, -0, doubles, NaN, infinities. */
const NUMBERS = [
  0,
  -0,
  1,
  127,
  128,
  255,
  256,
  65_535,
  65_536,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 32,
  -1,
  -16,
  -17,
  -128,
  -129,
  -32_768,
  -32_769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  0.5,
  -1.25,
  1e300,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

/** The bytes of `x` written as the message's value itself (by writeValue, not the array loop). */
function alone(x: unknown): number[] {
  return Array.from(serialize(x).subarray(HEADER_SIZE));
}

/** The bytes of an array's elements: the message after its header and the array's tag and length. */
function elements(array: unknown[]): number[] {
  const out = serialize(array).subarray(HEADER_SIZE);
  const n = array.length;
  const skip = n < 16 ? 1 : n < 0x80 ? 2 : n < 0x4000 ? 3 : 4;
  expect(out[0]).toBe(n < 16 ? FIXARRAY | n : ARRAY);
  return Array.from(out.subarray(skip));
}

describe("binary writer: arrays of numbers", () => {
  it("writes each number as a number written alone", () => {
    const expected = NUMBERS.flatMap(alone);
    expect(elements(NUMBERS)).toEqual(expected);
    // Between strings, objects and holes (each leaves the loop's locals and comes back).
    const mixed: unknown[] = [];
    const bytes: number[] = [];
    for (const x of NUMBERS) {
      mixed.push(x, "s", x, { a: 1 }, [x]);
      bytes.push(...alone(x), ...alone("s"), ...alone(x));
    }
    const back = deserialize(serialize(mixed)) as unknown[];
    expect(back).toEqual(mixed);
    for (let i = 0; i < mixed.length; i += 5) {
      expect(Object.is(back[i], mixed[i])).toBe(true);
      expect(Object.is(back[i + 2], mixed[i + 2])).toBe(true);
      expect(Object.is((back[i + 4] as number[])[0], mixed[i])).toBe(true);
    }
    const sparse = [1, 2, 3, 4];
    delete sparse[1];
    expect(elements(sparse)).toEqual([...alone(1), HOLE, ...alone(3), ...alone(4)]);
  });

  it("keeps the bytes when the buffer grows in the middle of the loop", () => {
    // 9-byte doubles and 1-byte fixints in turn, far past the writer's first buffer (8 KiB).
    for (const n of [3_000, 50_000]) {
      const array = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? i + 0.5 : i % 3 === 1 ? i & 127 : -i));
      const expected = array.flatMap(alone);
      expect(elements(array)).toEqual(expected);
      expect(deserialize(serialize(array))).toEqual(array);
    }
  });

  it("reads each element once, in order (getters run once)", () => {
    const array = [1, 2, 3, 4, 5];
    const reads: number[] = [];
    for (const i of [1, 3]) {
      Object.defineProperty(array, i, {
        enumerable: true,
        get() {
          reads.push(i);
          // One a number, one a string: both kinds leave the loop at a getter.
          return i === 1 ? 1000.5 : "x";
        },
      });
    }
    expect(deserialize(serialize(array))).toEqual([1, 1000.5, 3, "x", 5]);
    expect(reads).toEqual([1, 3]);
  });

  it("numbers a re-entrant serialize writes inside a getter do not disturb the outer array", () => {
    const inner = [300, -5, 1.5];
    const array: unknown[] = [1, 2, 3];
    Object.defineProperty(array, 1, {
      enumerable: true,
      get() {
        // A nested serialize (its own buffer) between two numbers of the outer loop.
        return Array.from(serialize(inner));
      },
    });
    const back = deserialize(serialize(array)) as unknown[];
    expect(back[0]).toBe(1);
    expect(back[2]).toBe(3);
    expect(deserialize(new Uint8Array(back[1] as number[]))).toEqual(inner);
  });
});
