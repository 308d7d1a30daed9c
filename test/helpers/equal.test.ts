/**
 * Self-test of the comparison helper every codec's tests rely on: each difference it must notice, and
 * the equal graphs it must accept.
 */

import { describe, expect, it } from "vitest";
import { filledBuffer, fixtures, resizableBuffer } from "../fixtures/values.ts";
import {
  expectNoSharing,
  expectSameBlobBytes,
  expectSameStructure,
  isLengthTracking,
  isSameStructure,
  kindOf,
  StructureMismatch,
} from "./equal.ts";

const re = (source: string, flags = "") => new RegExp(source, flags);

function mismatch(actual: unknown, expected: unknown): StructureMismatch {
  try {
    expectSameStructure(actual, expected);
  } catch (error) {
    if (error instanceof StructureMismatch) return error;
    throw error;
  }
  throw new Error("expected a mismatch");
}

describe("expectSameStructure notices", () => {
  const cases: [string, () => unknown, () => unknown, string][] = [
    ["-0 vs 0", () => ({ a: -0 }), () => ({ a: 0 }), "value.a"],
    // biome-ignore lint/suspicious/noSparseArray: a hole is the point
    ["a hole vs undefined", () => [1, undefined], () => [1, ,], "value"],
    ["array length", () => Object.assign([1], { length: 2 }), () => [1], "value.length"],
    ["key order", () => ({ a: 1, b: 2 }), () => ({ b: 2, a: 1 }), "value"],
    [
      "enumerability",
      () => Object.defineProperty({}, "a", { value: 1, enumerable: false }),
      () => ({ a: 1 }),
      "value.a",
    ],
    [
      "accessor vs data",
      () => ({
        get a() {
          return 1;
        },
      }),
      () => ({ a: 1 }),
      "value.a",
    ],
    ["prototype", () => Object.create(null), () => ({}), "value"],
    ["class instance vs plain", () => new (class Thing {})(), () => ({}), "value"],
    ["type", () => new Map(), () => new Set(), "value"],
    [
      "a Date with a swapped prototype is still a Date",
      () => Object.setPrototypeOf(new Date(0), null),
      () => Object.create(null),
      "value",
    ],
    ["Date time value", () => new Date(1), () => new Date(2), "value"],
    ["invalid Date vs epoch", () => new Date(Number.NaN), () => new Date(0), "value"],
    ["RegExp flags", () => re("a", "g"), () => re("a", "i"), "value"],
    ["RegExp source", () => re("a"), () => re("b"), "value"],
    [
      "RegExp lastIndex",
      () => Object.assign(re("a", "g"), { lastIndex: 1 }),
      () => re("a", "g"),
      "value.lastIndex",
    ],
    ["boxed value", () => Object(-0), () => Object(0), "value"],
    [
      "Map order",
      () =>
        new Map([
          [1, 1],
          [2, 2],
        ]),
      () =>
        new Map([
          [2, 2],
          [1, 1],
        ]),
      "value[Map#0].key",
    ],
    ["Set members", () => new Set([1, { a: 1 }]), () => new Set([1, { a: 2 }]), "value[Set#1].a"],
    ["buffer bytes", () => new Uint8Array([1, 2]).buffer, () => new Uint8Array([1, 3]).buffer, "value"],
    [
      "resizable vs fixed buffer",
      () => resizableBuffer(4, 8),
      () => {
        const b = resizableBuffer(4, 4);
        return b.slice(0);
      },
      "value",
    ],
    [
      "view offset",
      () => new Uint8Array(filledBuffer(8), 1, 2),
      () => new Uint8Array(filledBuffer(8), 2, 2),
      "value",
    ],
    ["view type", () => new Int8Array(2), () => new Uint8Array(2), "value"],
    [
      "length-tracking vs fixed view",
      () => new Uint8Array(resizableBuffer(8, 16)),
      () => new Uint8Array(resizableBuffer(8, 16), 0, 8),
      "value",
    ],
    [
      "views sharing a buffer vs not",
      () => {
        const b = new ArrayBuffer(4);
        return [new Uint8Array(b), new Uint8Array(b)];
      },
      () => [new Uint8Array(4), new Uint8Array(4)],
      "value[1].buffer",
    ],
    [
      "shared reference vs duplicate",
      () => {
        const o = {};
        return [o, o];
      },
      () => [{}, {}],
      "value[1]",
    ],
    [
      "duplicate vs shared reference",
      () => [{}, {}],
      () => {
        const o = {};
        return [o, o];
      },
      "value[1]",
    ],
    [
      "cycle vs unrolled",
      () => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      },
      () => ({ self: { self: {} } }),
      "value.self",
    ],
    ["Error name", () => new TypeError("m"), () => new RangeError("m"), "value"],
    ["Error message", () => new Error("a"), () => new Error("b"), "value"],
    ["Blob type", () => new Blob([], { type: "a/b" }), () => new Blob([]), "value"],
    ["File name", () => new File([], "a"), () => new File([], "b"), "value"],
    ["DOMException name", () => new DOMException("m", "AbortError"), () => new DOMException("m"), "value"],
    ["extensibility", () => Object.freeze({}), () => ({}), "value"],
  ];
  for (const [name, actual, expected, path] of cases) {
    it(name, () => {
      const error = mismatch(actual(), expected());
      expect(error.path.startsWith(path)).toBe(true);
    });
  }

  it("errors' stacks unless told not to", () => {
    const [a, b] = [new Error("m"), new Error("m")];
    a.stack = "one";
    b.stack = "two";
    expect(isSameStructure(a, b)).toBe(false);
    expect(isSameStructure(a, b, { compareStacks: false })).toBe(true);
  });

  it("Blob bytes (asynchronously)", async () => {
    await expectSameBlobBytes(new Blob(["ab"]), new Blob(["ab"]));
    await expect(expectSameBlobBytes(new Blob(["ab"]), new Blob(["ac"]))).rejects.toThrow(StructureMismatch);
  });
});

describe("expectSameStructure accepts", () => {
  it("every fixture compared with a second make() of itself (errors' stacks aside)", () => {
    for (const f of fixtures) {
      // Getter-made and host values compare too: make() is deterministic.
      const [a, b] = [0, 1].map(() => f.make());
      // Symbol keys are fresh symbols on each make().
      expectSameStructure(a, b, {
        compareStacks: false,
        path: f.name,
        ignoreKey: (_k, key) => typeof key === "symbol",
      });
    }
  });

  it("NaN, -0 and holes on both sides", () => {
    // biome-ignore lint/suspicious/noSparseArray: holes on purpose
    expectSameStructure([Number.NaN, -0, , 1], [Number.NaN, -0, , 1]);
  });
});

describe("helpers", () => {
  it("isLengthTracking tells tracking from fixed views and leaves the buffer as it was", () => {
    const buffer = resizableBuffer(16, 16);
    const before = new Uint8Array(buffer).slice();
    expect(isLengthTracking(new Int32Array(buffer, 4))).toBe(true);
    expect(isLengthTracking(new Int32Array(buffer, 4, 3))).toBe(false);
    expect(isLengthTracking(new DataView(buffer, 4, 12))).toBe(false);
    expect(isLengthTracking(new DataView(buffer, 4))).toBe(true);
    expect(isLengthTracking(new Uint8Array(filledBuffer(4)))).toBe(false);
    const growable = resizableBuffer(8, 32);
    expect(isLengthTracking(new Float64Array(growable))).toBe(true);
    expect(isLengthTracking(new Float64Array(growable, 0, 1))).toBe(false);
    expect(buffer.byteLength).toBe(16);
    expect(growable.byteLength).toBe(8);
    expect(new Uint8Array(buffer)).toEqual(before);
  });

  it("kindOf goes by internal slots, not prototypes", () => {
    expect(kindOf(Object.setPrototypeOf(new Map(), null))).toBe("Map");
    expect(kindOf(Object.create(Map.prototype))).toBe("Object");
    expect(kindOf(Object.setPrototypeOf(new Error("x"), Object.prototype))).toBe("Error");
    expect(kindOf({ [Symbol.toStringTag]: "Date" })).toBe("Object");
  });

  it("expectNoSharing finds a shared object anywhere, and allows what it is told to", () => {
    const shared = { s: 1 };
    const source = { a: [new Map([[1, shared]])] };
    expect(() => expectNoSharing(source, { copy: [shared] })).toThrow(StructureMismatch);
    expectNoSharing(source, { copy: [shared] }, [shared]);
    expectNoSharing(source, structuredClone(source));
    const buffer = new ArrayBuffer(2);
    expect(() => expectNoSharing({ v: new Uint8Array(buffer) }, { b: buffer })).toThrow(StructureMismatch);
  });
});
