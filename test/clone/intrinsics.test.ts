/**
 * clone calls no method a script can replace: the error path's segment list, the transfer list's
 * bookkeeping and the Map, Set and buffer results go through intrinsics captured at load (and descriptors
 * without a prototype), so replacing Array.prototype.push (or `reverse`, `includes`, `filter`, `indexOf`,
 * `fill`), Map.prototype.get/set, Set.prototype.add/has, %TypedArray%.prototype.set or Math.min, or putting
 * `get`/`set` on Object.prototype, changes nothing about what clone returns or throws.
 */

import { describe, expect, it } from "vitest";
import { clone } from "../../src/index.ts";

type Saved = [target: object, key: PropertyKey, descriptor: PropertyDescriptor | undefined];

const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;

/**
 * Runs `fn` with `targets` replaced by methods that record their call and throw, and puts them back
 * before returning (the test's own assertions run with the real methods). Returns the calls and what
 * `fn` returned or threw.
 */
function withTraps<T>(
  targets: readonly [object, string, string][],
  fn: () => T,
): { calls: string[]; result?: T; error?: unknown } {
  const calls: string[] = [];
  const saved: Saved[] = [];
  for (const [target, key, label] of targets) {
    saved[saved.length] = [target, key, getOwnPropertyDescriptor(target, key)];
    defineProperty(target, key, {
      configurable: true,
      writable: true,
      __proto__: null,
      value() {
        calls[calls.length] = label;
        throw new Error(`${label} was called`);
      },
    } as PropertyDescriptor);
  }
  try {
    return { calls, result: fn() };
  } catch (error) {
    return { calls, error };
  } finally {
    for (let i = saved.length - 1; i >= 0; i--) {
      const [target, key, descriptor] = saved[i]!;
      if (descriptor === undefined) delete (target as Record<PropertyKey, unknown>)[key];
      else defineProperty(target, key, descriptor);
    }
  }
}

const ALL: [object, string, string][] = [
  ...["push", "reverse", "includes", "filter", "indexOf", "fill", "map", "slice"].map(
    (name): [object, string, string] => [Array.prototype, name, `Array.prototype.${name}`],
  ),
  [Map.prototype, "set", "Map.prototype.set"],
  [Set.prototype, "add", "Set.prototype.add"],
  [TypedArrayProto, "set", "%TypedArray%.prototype.set"],
  [Math, "min", "Math.min"],
];

describe("clone with replaced built-in methods", () => {
  it("reports a refusal's path without Array.prototype.push or reverse", () => {
    const source = { a: [1, { b: new Map([["k", { c: () => 1 }]]) }] };
    const { calls, error } = withTraps(ALL, () => clone(source));
    expect(calls).toEqual([]);
    expect((error as { name?: unknown }).name).toBe("DataCloneError");
    expect((error as { path?: unknown }).path).toBe("value.a[1].b[Map#0].value.c");
  });

  it("fills Map and Set clones without their replaceable methods", () => {
    const key = { k: 1 };
    const source = {
      m: new Map<unknown, unknown>([
        [key, "v"],
        ["x", key],
      ]),
      s: new Set([key, 2]),
    };
    const { calls, result, error } = withTraps(ALL, () => clone(source));
    expect(calls).toEqual([]);
    expect(error).toBeUndefined();
    const out = result!;
    const outKey = [...out.m.keys()][0] as { k: number };
    expect(outKey).toEqual({ k: 1 });
    expect(outKey).not.toBe(key);
    expect(out.m.get("x")).toBe(outKey);
    expect([...out.s]).toEqual([outKey, 2]);
  });

  it("transfers buffers and host objects, and refuses duplicates, without the list methods", () => {
    // The classifier's tables of platform constructors (core/types.ts) are built on first use, with
    // Array.prototype.push: one transfer of a port beforehand builds them outside the traps.
    const warm = new MessageChannel();
    clone(warm.port1, { transfer: [warm.port1] }).close();
    warm.port2.close();
    const inValue = new Uint8Array([1, 2, 3]).buffer;
    const notInValue = new ArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const resizable = new (
      ArrayBuffer as unknown as new (
        n: number,
        o: { maxByteLength: number },
      ) => ArrayBuffer
    )(2, { maxByteLength: 8 });
    new Uint8Array(resizable).set([7, 8]);
    try {
      const dup = new ArrayBuffer(1);
      const { calls, result, error } = withTraps(ALL, () => [
        clone({ inValue, port1, resizable: [resizable] }, { transfer: [inValue, notInValue, port1, port2] }),
        // Set.prototype.has too (the duplicate check's own); a host object's classification (core/types.ts)
        // still asks a Set, so it is not trapped above.
        withTraps([[Set.prototype, "has", "Set.prototype.has"]], () => clone(dup, { transfer: [dup, dup] })),
      ]);
      expect(calls).toEqual([]);
      expect(error).toBeUndefined();
      const [out, inner] = result as [
        { inValue: ArrayBuffer; resizable: ArrayBuffer[] },
        { calls: string[]; error?: unknown },
      ];
      expect(inner.calls).toEqual([]);
      const duplicate = inner.error;
      expect([...new Uint8Array(out.inValue)]).toEqual([1, 2, 3]);
      expect([...new Uint8Array(out.resizable[0]!)]).toEqual([7, 8]);
      expect(inValue.byteLength).toBe(0);
      expect(notInValue.byteLength).toBe(0);
      expect((duplicate as { name?: unknown }).name).toBe("DataCloneError");
      expect(String((duplicate as { message?: unknown }).message)).toContain("duplicate");
    } finally {
      port1.close();
      port2.close();
    }
  });

  it("defines own keys named like Object.prototype's with `get` and `set` on Object.prototype", () => {
    const source = JSON.parse('{"__proto__": {"x": 1}, "toString": 2, "valueOf": 3}') as object;
    const { calls, result, error } = withTraps(
      [
        [Object.prototype, "get", "Object.prototype.get"],
        [Object.prototype, "set", "Object.prototype.set"],
      ],
      () => clone(source) as Record<string, unknown>,
    );
    expect(calls).toEqual([]);
    expect(error).toBeUndefined();
    const out = result!;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__", "toString", "valueOf"]);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ x: 1 });
    expect(out.toString).toBe(2);
  });
  it("copies buffers without ArrayBuffer's constructor or @@species (no SpeciesConstructor)", () => {
    const calls: string[] = [];
    const saved: Saved[] = [
      [ArrayBuffer, Symbol.species, getOwnPropertyDescriptor(ArrayBuffer, Symbol.species)],
      [ArrayBuffer.prototype, "constructor", getOwnPropertyDescriptor(ArrayBuffer.prototype, "constructor")],
    ];
    const source = { b: new Uint8Array([1, 2, 3]).buffer, v: new Float64Array([Number.NaN, -0, 1.5]) };
    let out: typeof source;
    try {
      defineProperty(ArrayBuffer, Symbol.species, {
        configurable: true,
        get() {
          calls[calls.length] = "ArrayBuffer[@@species]";
          return ArrayBuffer;
        },
      });
      defineProperty(ArrayBuffer.prototype, "constructor", {
        configurable: true,
        get() {
          calls[calls.length] = "ArrayBuffer.prototype.constructor";
          return ArrayBuffer;
        },
      });
      out = clone(source);
    } finally {
      for (const [target, key, descriptor] of saved) defineProperty(target, key, descriptor!);
    }
    expect(calls).toEqual([]);
    expect([...new Uint8Array(out.b)]).toEqual([1, 2, 3]);
    expect(out.b).not.toBe(source.b);
    expect(Object.is(out.v[1], -0)).toBe(true);
    expect(Number.isNaN(out.v[0])).toBe(true);
    expect(out.v.buffer).not.toBe(source.v.buffer);
  });
});
