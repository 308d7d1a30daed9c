/**
 * structura/compat/flatted: flatted's API and JSON-style replacer/reviver semantics on structura's
 * format, and reading texts written by flatted itself.
 */

import * as flatted from "flatted";
import { describe, expect, it } from "vitest";
import * as compat from "../../src/compat/flatted.ts";
import { DecodeError } from "../../src/core/errors.ts";
import { parse } from "../../src/text/index.ts";

function cyclic() {
  const a: Record<string, unknown> = { name: "a", list: [1, "two"] };
  a.self = a;
  a.child = { parent: a };
  return a;
}

describe("compat/flatted", () => {
  it("stringify writes structura text that round-trips cycles and richer types", () => {
    const value = Object.assign(cyclic(), { when: new Date(0), map: new Map([[1, 2]]) });
    const text = compat.stringify(value);
    expect(JSON.parse(text)[0]).toBe("structura:3");
    const back = compat.parse(text) as typeof value & { self: unknown; child: { parent: unknown } };
    expect(back.self).toBe(back);
    expect(back.child.parent).toBe(back);
    expect(back.when).toBeInstanceOf(Date);
    expect(back.map.get(1)).toBe(2);
    // The structura reader reads it too.
    expect((parse(text) as { name: string }).name).toBe("a");
  });

  it("drops functions and symbols like JSON instead of throwing", () => {
    const back = compat.parse(compat.stringify({ f() {}, s: Symbol("x"), list: [() => 1, 2] })) as Record<
      string,
      unknown
    >;
    expect(back).toEqual({ list: [null, 2] });
  });

  it("a Map entry whose key is a function is left out without losing its value's object", () => {
    const k = { a: 1 };
    const fn = () => 1;
    const value = { byKey: new Map<unknown, unknown>([[fn, k]]), byValue: new Map([[k, fn]]), k };
    const back = compat.parse(compat.stringify(value)) as typeof value;
    expect(back.byKey.size).toBe(0);
    // A value left out is null, as in an array; its key is kept and is the same object as `k`.
    expect([...back.byValue]).toEqual([[{ a: 1 }, null]]);
    expect([...back.byValue.keys()][0]).toBe(back.k);
  });

  it("replacer function: called with the holder, for the root with key ''", () => {
    const calls: string[] = [];
    const text = compat.stringify({ a: 1, b: { c: 2 }, secret: "x" }, function (this: unknown, key, value) {
      calls.push(key);
      if (key === "secret") return undefined;
      if (key === "c") return (value as number) * 10;
      return value;
    });
    expect(calls[0]).toBe("");
    expect(compat.parse(text)).toEqual({ a: 1, b: { c: 20 } });
  });

  it("replacer allow-list and space", () => {
    const text = compat.stringify({ a: 1, b: 2, list: [{ a: 3, z: 4 }] }, ["a", "list"], 2);
    expect(text).toContain("\n  ");
    expect(compat.parse(text)).toEqual({ a: 1, list: [{ a: 3 }] });
  });

  it("reviver: bottom-up, `this` is the holder, undefined deletes", () => {
    const seen: string[] = [];
    const back = compat.parse(compat.stringify(cyclic()), function (this: unknown, key, value) {
      seen.push(key);
      if (key === "name") return (value as string).toUpperCase();
      if (key === "list") return undefined;
      return value;
    }) as Record<string, unknown>;
    expect(back.name).toBe("A");
    expect("list" in back).toBe(false);
    expect(back.self).toBe(back);
    expect(seen[seen.length - 1]).toBe("");
  });

  it("toJSON / fromJSON", () => {
    const json = compat.toJSON(cyclic());
    expect(Array.isArray(json)).toBe(true);
    const copy = JSON.stringify(json);
    const back = compat.fromJSON(json) as Record<string, unknown>;
    expect(back.self).toBe(back);
    expect(JSON.stringify(json)).toBe(copy); // fromJSON leaves its argument untouched
  });

  it("reads texts written by flatted itself", () => {
    const value = cyclic();
    const back = compat.parse(flatted.stringify(value)) as Record<string, unknown>;
    expect(back.name).toBe("a");
    expect(back.self).toBe(back);
    expect((back.child as { parent: unknown }).parent).toBe(back);
    expect(back.list).toEqual([1, "two"]);
    expect(compat.parse(flatted.stringify("just a string"))).toBe("just a string");
    expect(compat.parse(flatted.stringify([1, 2]))).toEqual([1, 2]);
  });

  it("rejects bad flatted references with a typed error", () => {
    expect(() => compat.parse('[{"a":"__proto__"}]')).toThrow(DecodeError);
    expect(() => compat.parse('[{"a":"9"}]')).toThrow(DecodeError);
    expect(() => compat.parse("[")).toThrow(DecodeError);
  });
});
