/**
 * The public entry (src/clone/index.ts) takes primitives and objects without options itself and sends
 * everything else out of line (cloneWithOptions in src/clone/clone.ts). Each of its branches against the
 * runtime's structuredClone: the same result, or the same kind of exception.
 */
import { describe, expect, it } from "vitest";
import { clone } from "../../src/clone/index.ts";
import { DataCloneError } from "../../src/core/errors.ts";

const UNKNOWN_OPTION = /transfers/;
const PATH_A1 = /^value\.a\[1\]: /;

type Clone = (...args: unknown[]) => unknown;
const impls: [string, Clone][] = [
  ["structura", clone as Clone],
  ["native", structuredClone as Clone],
];

/** What a call did: its result, or the name of what it threw. */
function outcome(fn: () => unknown): unknown {
  try {
    return { value: fn() };
  } catch (error) {
    return { threw: error instanceof TypeError ? "TypeError" : (error as Error).name };
  }
}

const primitives: [string, unknown][] = [
  ["a number", 123],
  ["NaN", Number.NaN],
  ["-0", -0],
  ["a string", "x".repeat(1000)],
  ["the empty string", ""],
  ["true", true],
  ["false", false],
  ["a bigint", 2n ** 70n],
  ["null", null],
  ["undefined", undefined],
];

describe("clone entry: primitives", () => {
  for (const [name, value] of primitives) {
    it(`${name}, no options / undefined / null / {}: itself, as native`, () => {
      for (const [, impl] of impls) {
        expect(Object.is(impl(value), value)).toBe(true);
        expect(Object.is(impl(value, undefined), value)).toBe(true);
        expect(Object.is(impl(value, null), value)).toBe(true);
        expect(Object.is(impl(value, {}), value)).toBe(true);
      }
    });
  }
  it("a symbol and a function: DataCloneError, as native", () => {
    for (const value of [Symbol("s"), () => 1]) {
      expect(() => clone(value)).toThrow(DataCloneError);
      expect(outcome(() => structuredClone(value))).toEqual({ threw: "DataCloneError" });
    }
  });
  it("no argument at all: TypeError; an explicit undefined: undefined", () => {
    for (const [, impl] of impls) {
      expect(outcome(() => impl())).toEqual({ threw: "TypeError" });
      expect(outcome(() => impl(undefined))).toEqual({ value: undefined });
    }
  });
  it("options that are not an object: TypeError even for a primitive, as native", () => {
    for (const options of [1, "transfer", true, 1n, Symbol("o")]) {
      for (const [name, impl] of impls) {
        expect(
          outcome(() => impl(123, options)),
          `${name} ${String(options)}`,
        ).toEqual({
          threw: "TypeError",
        });
      }
    }
  });
  it("a primitive with a transfer list: the list is still taken (its buffer detached), as native", () => {
    for (const [name, impl] of impls) {
      const buffer = new ArrayBuffer(8);
      expect(impl("s", { transfer: [buffer] }), name).toBe("s");
      expect(buffer.byteLength, name).toBe(0);
      // and still checked: a duplicate is refused
      const again = new ArrayBuffer(8);
      expect(
        outcome(() => impl(1, { transfer: [again, again] })),
        name,
      ).toEqual({
        threw: "DataCloneError",
      });
      expect(again.byteLength, name).toBe(8);
    }
  });
  it("an unknown option name: ArgumentError for a primitive too (structura is stricter than native)", () => {
    expect(() => clone(1, { transfers: [] } as never)).toThrow(UNKNOWN_OPTION);
  });
});

describe("clone entry: objects", () => {
  it("without options: a copy; with a transfer list: the buffer moved into the copy", () => {
    const value = { a: [1, { b: 2 }] };
    const copy = clone(value);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    const buffer = new Uint8Array([1, 2, 3]).buffer;
    const moved = clone({ buffer }, { transfer: [buffer] });
    expect(new Uint8Array(moved.buffer)).toEqual(new Uint8Array([1, 2, 3]));
    expect(buffer.byteLength).toBe(0);
  });
  it("a refusal inside an object without options keeps its path", () => {
    expect(() => clone({ a: [0, () => 1] })).toThrow(PATH_A1);
  });
});

describe("clone entry: the state kept between calls", () => {
  it("a clone started from a getter mid-walk gets its own state; the outer keeps its shared references", () => {
    const shared = { s: 1 };
    const innerValue = { x: [shared], y: shared };
    let inner: { x: unknown[]; y: unknown } | undefined;
    const value = {
      a: shared,
      get b() {
        inner = clone(innerValue);
        return 2;
      },
      c: shared,
    };
    const copy = clone(value);
    expect(copy.a).toBe(copy.c);
    expect(copy.a).not.toBe(shared);
    expect(copy.a).toEqual({ s: 1 });
    expect(copy.b).toBe(2);
    expect(inner!.x[0]).toBe(inner!.y);
    expect(inner!.y).not.toBe(copy.a);
    // and the next call starts empty: nothing of the last call is found in its memory map
    const again = clone({ a: shared, c: shared });
    expect(again.a).not.toBe(copy.a);
    expect(again.a).toBe(again.c);
  });
  it("after a refusal the next call starts empty", () => {
    const shared = { s: 1 };
    expect(() => clone({ a: shared, f: () => 1 })).toThrow(DataCloneError);
    const copy = clone({ a: shared, b: shared });
    expect(copy.a).toBe(copy.b);
    expect(copy.a).not.toBe(shared);
    expect(copy.a).toEqual({ s: 1 });
  });
  it("after an exception from a getter the next call starts empty", () => {
    const shared = { s: 1 };
    const boom = new Error("boom");
    const value = {
      a: shared,
      get b() {
        throw boom;
      },
    };
    expect(() => clone(value)).toThrow(boom);
    const copy = clone([shared, shared]);
    expect(copy[0]).toBe(copy[1]);
    expect(copy[0]).not.toBe(shared);
  });
});
