/**
 * Round trips through the text format: every shared fixture must come back structurally identical to
 * structura's (spec-conforming) clone of it, except that null-prototype objects stay null-prototype in
 * text by design. Plus the types the text format adds (URL, URLSearchParams), custom types, options.
 */

import { describe, expect, it } from "vitest";
import { clone } from "../../src/clone/index.ts";
import { DataCloneError } from "../../src/core/errors.ts";
import { configure } from "../../src/core/host.ts";
import { defineType, TypeRegistry } from "../../src/core/registry.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure, withObjectPrototypes } from "../helpers/equal.ts";

const HTML_UNSAFE = /[<>/\u2028\u2029]/;

function roundTrip(value: unknown, options?: Parameters<typeof stringify>[1]): unknown {
  return parse(stringify(value, options), options);
}

describe("text: shared fixtures round-trip like clone", () => {
  for (const f of fixtures) {
    if (f.host) continue;
    it(f.name, () => {
      const source = f.make();
      const expected = clone(source);
      const text = stringify(source);
      expect(() => JSON.parse(text)).not.toThrow();
      // Errors are kept whole (the fixture's `codec` value), unless errors: "structuredClone".
      const whole = f.codec === undefined ? expected : f.codec();
      const options = { compareStacks: f.codec === undefined };
      expectSameStructure(withObjectPrototypes(parse(text)), whole, options);
      // Pretty and HTML-safe texts read back the same.
      expectSameStructure(
        withObjectPrototypes(parse(stringify(source, { space: 2, html: true }))),
        whole,
        options,
      );
      const cloned = stringify(source, { errors: "structuredClone" });
      expectSameStructure(withObjectPrototypes(parse(cloned)), expected);
    });
  }
});

describe("text: what JSON loses", () => {
  it("keeps undefined, -0, NaN, infinities, BigInt, holes", () => {
    const value = [undefined, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 10n ** 30n];
    const back = roundTrip(value) as unknown[];
    expect(back).toHaveLength(6);
    expect(0 in back).toBe(true);
    expect(back[0]).toBeUndefined();
    expect(Object.is(back[1], -0)).toBe(true);
    expect(back[2]).toBeNaN();
    expect(back[3]).toBe(Number.POSITIVE_INFINITY);
    expect(back[4]).toBe(Number.NEGATIVE_INFINITY);
    expect(back[5]).toBe(10n ** 30n);
    const holey = [1, 2, 3];
    delete holey[1];
    const sparse = roundTrip(holey) as unknown[];
    expect(1 in sparse).toBe(false);
    expect(sparse).toHaveLength(3);
  });

  it("keeps null-prototype objects null-prototype", () => {
    const o = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: { c: 2 } });
    const back = roundTrip({ o, again: o }) as { o: object; again: object };
    expect(Object.getPrototypeOf(back.o)).toBeNull();
    expect(back.again).toBe(back.o);
    expect({ ...back.o }).toEqual({ a: 1, b: { c: 2 } });
  });

  it("keeps URL and URLSearchParams", () => {
    const url = new URL("https://example.com/a/b?x=1#h");
    const params = new URLSearchParams("a=1&b=2&a=3");
    const back = roundTrip({ url, params, same: url }) as { url: URL; params: URLSearchParams; same: URL };
    expect(back.url).toBeInstanceOf(URL);
    expect(back.url.href).toBe(url.href);
    expect(back.same).toBe(back.url);
    expect(back.params).toBeInstanceOf(URLSearchParams);
    expect(back.params.getAll("a")).toEqual(["1", "3"]);
  });

  it("keeps cycles and sharing, including through Map keys, Set members and error causes", () => {
    const a: Record<string, unknown> = { name: "a" };
    const b = { name: "b", a };
    a.b = b;
    a.self = a;
    const map = new Map<unknown, unknown>([[a, b]]);
    const set = new Set<unknown>([a, map]);
    const error = new RangeError("bad", { cause: a });
    a.all = { map, set, error };
    const back = roundTrip(a) as typeof a & {
      all: { map: Map<unknown, unknown>; set: Set<unknown>; error: Error };
    };
    expect(back.self).toBe(back);
    expect((back.b as { a: unknown }).a).toBe(back);
    expect(back.all.map.get(back)).toBe(back.b);
    expect([...back.all.set]).toEqual([back, back.all.map]);
    expect(back.all.error).toBeInstanceOf(RangeError);
    expect(back.all.error.cause).toBe(back);
  });

  it("writes __proto__, constructor and prototype keys as own data properties", () => {
    const source = JSON.parse(
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"prototype":2}',
    );
    const back = roundTrip(source) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")?.value).toEqual({ polluted: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps strings that look like tags, headers or special values", () => {
    for (const value of [
      ["a"],
      ["Date", 1],
      ["Shape", "x"],
      ["structura:1"],
      ["structura:2"],
      ["~"],
      ["~1"],
      ["~~x"],
      ["x".repeat(100), "y"],
    ]) {
      expect(roundTrip(value)).toEqual(value);
    }
  });

  it("writes repeated long strings once", () => {
    const stack = "Error: x\n".repeat(40);
    const text = stringify([{ stack, stackStr: stack }, stack]);
    expect(text.split("Error: x").length - 1).toBe(40);
  });

  it("DOMException", () => {
    const back = roundTrip(new DOMException("nope", "AbortError")) as DOMException;
    expect(back).toBeInstanceOf(DOMException);
    expect(back.name).toBe("AbortError");
    expect(back.message).toBe("nope");
  });
});

describe("text: options", () => {
  it("html: escapes <, >, /, U+2028, U+2029 and still parses to the same value", () => {
    const value = { s: "</script><script>alert(1)</script>\u2028\u2029", k: { "</script>": 1 } };
    const text = stringify(value, { html: true });
    expect(HTML_UNSAFE.test(text)).toBe(false);
    expect(parse(text)).toEqual(value);
  });

  it("space: pretty prints like JSON.stringify", () => {
    const text = stringify({ a: [1, 2] }, { space: 2 });
    expect(text).toContain("\n  ");
    expect(parse(text)).toEqual({ a: [1, 2] });
  });

  it("refuses functions and symbols with a DataCloneError naming the path", () => {
    const value = { users: [{ name: "x" }, { name: "y", onClick() {} }] };
    let error: unknown;
    try {
      stringify(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DataCloneError);
    expect((error as DataCloneError).path).toBe("value.users[1].onClick");
    expect(() => stringify(Symbol("s"))).toThrow(DataCloneError);
    expect(() => stringify(new WeakMap())).toThrow(DataCloneError);
    expect(() => stringify({ b: new Blob(["x"]) })).toThrow(DataCloneError);
  });
});

describe("text: custom types", () => {
  class Point {
    constructor(
      public x: number,
      public y: number,
    ) {}
  }
  class Segment {
    constructor(
      public from: Point,
      public to: Point,
      public owner: unknown,
    ) {}
  }
  const types = [
    defineType({
      name: "Point",
      class: Point,
      encode: (p: Point) => [p.x, p.y],
      decode: ([x, y]: number[]) => new Point(x!, y!),
    }),
    defineType({
      name: "Segment",
      class: Segment,
      encode: (s: Segment) => ({ from: s.from, to: s.to, owner: s.owner }),
      decode: (d: { from: Point; to: Point; owner: unknown }) => new Segment(d.from, d.to, d.owner),
    }),
  ];

  it("round-trips class instances, nested custom types and references back into the graph", () => {
    const p = new Point(1, 2);
    const graph: Record<string, unknown> = { p };
    const segment = new Segment(p, new Point(3, 4), graph);
    graph.segment = segment;
    graph.again = segment;
    const back = roundTrip(graph, { types }) as typeof graph & { p: Point; segment: Segment };
    expect(back.p).toBeInstanceOf(Point);
    expect(back.segment).toBeInstanceOf(Segment);
    expect(back.segment.from).toBe(back.p);
    expect(back.segment.to).toEqual(new Point(3, 4));
    expect(back.segment.owner).toBe(back);
    expect(back.again).toBe(back.segment);
    // A registry works the same; an unknown type name is a typed error.
    const registry = new TypeRegistry(types);
    expect(parse(stringify(p, { registry }), { registry })).toEqual(p);
    expect(() => parse(stringify(p, { types }))).toThrow(
      expect.objectContaining({ code: "ERR_UNKNOWN_TYPE" }),
    );
  });

  it("a custom type whose data refers to the value itself is refused by stringify and by parse", () => {
    const selfish = defineType({
      name: "Selfish",
      test: (v: object) => (v as { selfish?: boolean }).selfish === true,
      encode: (v: { selfish: boolean; me: unknown }) => ({ me: v.me }),
      decode: (d: { me: unknown }) => ({ selfish: true, me: d.me }),
    });
    const v: { selfish: boolean; me: unknown } = { selfish: true, me: null };
    v.me = v;
    // Written, it could not be read back (docs §9): stringify refuses it, naming the value's path.
    expect(() => stringify({ at: v }, { types: [selfish] })).toThrow(
      expect.objectContaining({ name: "DataCloneError", path: "value.at" }),
    );
    const text = '["structura:2",[],["Custom","Selfish",{"me":"~0"}]]';
    expect(() => parse(text, { types: [selfish] })).toThrow(
      expect.objectContaining({ code: "ERR_BAD_REFERENCE" }),
    );
  });
});

describe("text: shaped records", () => {
  // Written against the shape table; from the second record on, read by a compiled filler.
  const records = (tag: string) =>
    Array.from({ length: 20 }, (_, i) => {
      const record: Record<string, unknown> = { [`${tag}Id`]: i, big: 1e12 + i, x: i / 2, s: `s${i}` };
      for (const k of ["a", "b", "c", "d"]) record[k] = k === "a" ? { i } : k === "b" ? undefined : null;
      record.last = i % 2 === 0 ? [i] : "odd";
      return record;
    });

  it("round-trip through compiled fillers, with cycles", () => {
    const value = records("compiled");
    const holder = { list: value };
    for (const r of value) r.up = holder;
    const text = stringify(holder);
    // One key list for all 20 records (their undefined member is in it), each record an array.
    const top = JSON.parse(text) as unknown[];
    expect(top[1]).toContainEqual(["compiledId", "big", "x", "s", "a", ["b"], "c", "d", "last", "up"]);
    for (let round = 0; round < 3; round++) expectSameStructure(parse(text), holder);
  });

  it("round-trip the same with code generation turned off (CSP)", () => {
    configure({ codegen: false });
    try {
      const value = records("noCodegen");
      for (let round = 0; round < 3; round++) expectSameStructure(parse(stringify(value)), value);
    } finally {
      configure({ codegen: true });
    }
  });

  it("a shaped object with the wrong number of values is a typed error, compiled or not", () => {
    const text = stringify(records("arity"));
    const broken = JSON.parse(text) as unknown[];
    const list = broken[2] as unknown[][];
    (list[list.length - 1] as unknown[]).pop();
    expect(() => parse(JSON.stringify(broken))).toThrow(expect.objectContaining({ code: "ERR_BAD_VALUE" }));
  });
});

describe("text: record families guessed from hints", () => {
  // The writer guesses a record's key list from the member or depth it sits at and confirms it by
  // for-in: every near miss must fall back to the object's real keys.
  const nearMisses = (): Record<string, unknown>[] => [
    { a: 1, b: 2 },
    { a: 1, b: 2, c: 3 },
    { a: 1 },
    { b: 1, a: 2 },
    { a: 1, b: 2 },
    { a: 1, b: 2, 0: "index" },
    { a: undefined, b: 2 },
    {},
    { a: 1, b: 2 },
  ];

  function expectSameKeys(back: unknown, source: unknown): void {
    expectSameStructure(back, source);
    const b = back as Record<string, unknown>[];
    (source as Record<string, unknown>[]).forEach((item, i) => {
      expect(Object.keys(b[i]!)).toEqual(Object.keys(item));
    });
  }

  it("as array elements (the same depth)", () => {
    const value = [...nearMisses(), ...nearMisses(), ...nearMisses()];
    expectSameKeys(parse(stringify(value)), value);
  });

  it("as members of compiled records", () => {
    const value = [...nearMisses(), ...nearMisses(), ...nearMisses()].map((inner, i) => ({ id: i, inner }));
    const back = parse(stringify(value)) as { inner: unknown }[];
    expectSameStructure(back, value);
    back.forEach((item, i) => {
      expect(Object.keys(item.inner as object)).toEqual(Object.keys(value[i]!.inner));
    });
  });

  it("with an enumerable property on Object.prototype (for-in would see it)", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      const value = [{ a: 1 }, { a: 1 }, { a: 1, polluted: 2 }, { a: 1 }, { a: 1, polluted: 3 }];
      const text = stringify(value);
      const back = JSON.parse(JSON.stringify(parse(text))) as Record<string, unknown>[];
      expect(back).toEqual([{ a: 1 }, { a: 1 }, { a: 1, polluted: 2 }, { a: 1 }, { a: 1, polluted: 3 }]);
      expect(Object.hasOwn((parse(text) as object[])[0]!, "polluted")).toBe(false);
    } finally {
      delete proto.polluted;
    }
  });
});
