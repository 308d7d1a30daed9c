/**
 * Hostile input to `parse`: it must return a value or throw a typed StructuraError (DecodeError with a
 * code and an offset, or LimitError) — never evaluate code, touch a prototype, look a constructor up by
 * a name from the input, or overflow the stack.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DecodeError, LimitError, StructuraError } from "../../src/core/errors.ts";
import { defineType } from "../../src/core/registry.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { fuzzIt } from "../helpers/fuzz.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 300;

function decodeError(text: string): DecodeError {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(DecodeError);
    return error as DecodeError;
  }
  throw new Error(`expected a DecodeError for ${text.slice(0, 80)}`);
}

const H = '"structura:2"';

describe("text parse: malformed input", () => {
  it.each([
    ["not JSON", "{", "ERR_TRUNCATED"],
    ["truncated", `[${H},[],{"a":`, "ERR_TRUNCATED"],
    ["garbage", `[${H},[],}`, "ERR_SYNTAX"],
    ["empty", "", "ERR_TRUNCATED"],
    ["not an array", '{"a":1}', "ERR_VERSION"],
    ["no header", "[1,2,3]", "ERR_VERSION"],
    ["other version", '["structura:99",[],1]', "ERR_VERSION"],
    ["a version 1 text", '["structura:1",2,{"a":1}]', "ERR_VERSION"],
    ["only a header", `[${H}]`, "ERR_VERSION"],
    ["no root", `[${H},[]]`, "ERR_VERSION"],
    ["shape table not an array", `[${H},{},1]`, "ERR_BAD_VALUE"],
    ["reference past the objects so far", `[${H},[],["A",[],"~5"]]`, "ERR_BAD_REFERENCE"],
    ["deferral point without an entry", `[${H},[],"~0"]`, "ERR_BAD_REFERENCE"],
    ["deferred entry never referred to", `[${H},[],1,{}]`, "ERR_BAD_VALUE"],
    ["deferred entry that is a scalar", `[${H},[],"~0",5]`, "ERR_BAD_VALUE"],
    ["reference with a leading zero", `[${H},[],["A",[],"~00"]]`, "ERR_BAD_REFERENCE"],
    ["huge reference", `[${H},[],["A","~99999999999999999999"]]`, "ERR_BAD_REFERENCE"],
    ["unknown special string", `[${H},[],"~x"]`, "ERR_BAD_VALUE"],
    ["long string reference before any long string", `[${H},[],"~s0"]`, "ERR_BAD_REFERENCE"],
    ["bad BigInt", `[${H},[],"~b1e3"]`, "ERR_BAD_VALUE"],
    ["array node starting with a boolean", `[${H},[],[true,1]]`, "ERR_BAD_VALUE"],
    ["array node starting with an array", `[${H},[],[[1]]]`, "ERR_BAD_VALUE"],
    ["unknown tag", `[${H},[],["Function","return 1"]]`, "ERR_UNKNOWN_TAG"],
    ["globalThis name as tag", `[${H},[],["eval","1"]]`, "ERR_UNKNOWN_TAG"],
    ["version 1 tag", `[${H},[],["Shape","a"]]`, "ERR_UNKNOWN_TAG"],
    ["Date with a string", `[${H},[],["Date","x"]]`, "ERR_BAD_VALUE"],
    ["Date arity", `[${H},[],["Date"]]`, "ERR_BAD_VALUE"],
    ["bad RegExp", `[${H},[],["RegExp","(","g"]]`, "ERR_BAD_VALUE"],
    ["error name not allowed", `[${H},[],["Error","Function",null,null]]`, "ERR_BAD_VALUE"],
    ["Map with odd entries", `[${H},[],["Map",3]]`, "ERR_BAD_VALUE"],
    [
      "typed array of an unknown type",
      `[${H},[],["TypedArray","Worker",["ArrayBuffer",""],0,0]]`,
      "ERR_BAD_VALUE",
    ],
    ["typed array not on a buffer", `[${H},[],["TypedArray","Uint8Array",{},0,1]]`, "ERR_BAD_REFERENCE"],
    ["typed array on itself", `[${H},[],["TypedArray","Uint8Array","~0",0,1]]`, "ERR_BAD_REFERENCE"],
    [
      "typed array past its buffer",
      `[${H},[],["TypedArray","Uint8Array",["ArrayBuffer","AAA="],0,9]]`,
      "ERR_BAD_VALUE",
    ],
    ["bad base64", `[${H},[],["ArrayBuffer","***"]]`, "ERR_BAD_VALUE"],
    ["resizable max below length", `[${H},[],["ArrayBuffer","AAA=",1]]`, "ERR_BAD_VALUE"],
    ["array length key", `[${H},[],["a",1,{"length":null}]]`, "ERR_BAD_VALUE"],
    ["array index past length", `[${H},[],["a",1,{"5":null}]]`, "ERR_BAD_VALUE"],
    ["array length too big", `[${H},[],["a",1e20,{}]]`, "ERR_BAD_VALUE"],
    ["shape number not in the table", `[${H},[],[0]]`, "ERR_BAD_REFERENCE"],
    ["shape number not an integer", `[${H},[["a"]],[0.5,1]]`, "ERR_BAD_REFERENCE"],
    ["empty shape", `[${H},[[]],1]`, "ERR_BAD_VALUE"],
    ["shape with non-string keys", `[${H},[[1]],1]`, "ERR_BAD_VALUE"],
    ["shape with a bad undefined member", `[${H},[[["a","b"]]],1]`, "ERR_BAD_VALUE"],
    ["shape listing a key twice", `[${H},[["a","a"]],[0,1,2]]`, "ERR_BAD_VALUE"],
    ["shaped object with too many values", `[${H},[["a"]],[0,1,2]]`, "ERR_BAD_VALUE"],
    ["shaped object with too few values", `[${H},[["a",["b"],"c"]],[0,1]]`, "ERR_BAD_VALUE"],
    ["unregistered custom type", `[${H},[],["Custom","Point",null]]`, "ERR_UNKNOWN_TYPE"],
    ["bad URL", `[${H},[],["URL","not a url"]]`, "ERR_BAD_VALUE"],
  ])("%s", (_name, text, code) => {
    const error = decodeError(text);
    expect(error.code).toBe(code);
    expect(typeof error.offset).toBe("number");
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThanOrEqual(text.length);
  });

  it("reports the offset of the offending node", () => {
    const text = `[${H}, [["k"]], ["A", {"a": 1, "b": [0, "x"]}, [0, ["Nope"]]]]`;
    const error = decodeError(text);
    expect(error.code).toBe("ERR_UNKNOWN_TAG");
    expect(text.slice(error.offset).startsWith('["Nope"]')).toBe(true);
    expect(error.message).toContain("$[2][2][1]");
  });

  it("rejects non-string input with a typed error", () => {
    expect(() => parse(42 as unknown as string)).toThrow(StructuraError);
  });
});

describe("text parse: prototype safety", () => {
  it("__proto__, constructor and prototype keys stay own data properties (object and shaped forms)", () => {
    for (const text of [
      `[${H},[],{"__proto__":{"polluted":true},"constructor":"~1","prototype":"~1"}]`,
      `[${H},[["__proto__","constructor","prototype"]],[0,{"polluted":true},"~1","~1"]]`,
      `[${H},[["__proto__","constructor","prototype"]],["A",[0,{"polluted":true},"~2","~2"],[0,{"polluted":true},"~4","~4"]]]`,
      `[${H},[],["O",{"__proto__":{"polluted":true}}]]`,
      `[${H},[],["a",0,{"__proto__":{"polluted":true}}]]`,
    ]) {
      const parsed = parse(text) as Record<string, unknown>;
      // The third text holds two shaped objects (the second read by a compiled filler, if any).
      for (const value of Array.isArray(parsed) && parsed.length === 2 ? parsed : [parsed]) {
        expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
        expect(value.polluted).toBeUndefined();
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty("polluted");
      }
    }
  });

  it("names from the input are never looked up: '__proto__' as a tag is an unknown tag", () => {
    for (const tag of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(decodeError(`[${H},[],["${tag}"]]`).code).toBe("ERR_UNKNOWN_TAG");
    }
    expect(parse(`[${H},[],{"a":"__proto__"}]`)).toEqual({ a: "__proto__" });
  });

  it("an enumerable property on Object.prototype is not read as a slot of plain objects", () => {
    const proto = Object.prototype as Record<string, unknown>;
    for (const polluted of [3, { x: 1 }, "s"]) {
      proto.pollutedSlot = polluted;
      try {
        const value = parse(`[${H},[],{"a":{"n":7},"b":"x"}]`) as Record<string, unknown>;
        expect(Object.keys(value)).toEqual(["a", "b"]);
        expect(value.a).toEqual({ n: 7 });
        expect(Object.hasOwn(value, "pollutedSlot")).toBe(false);
      } finally {
        delete proto.pollutedSlot;
      }
    }
  });

  it("a reviver that makes Object.prototype enumerable mid-parse does not leak keys into later objects", () => {
    const proto = Object.prototype as Record<string, unknown>;
    const polluter = defineType({
      name: "Polluter",
      test: (v: object) => "pollute" in v,
      encode: () => 0,
      decode: () => {
        proto.lateSlot = 5;
        return { polluted: true };
      },
    });
    // The custom node comes first, so it is revived before the records after it are filled.
    const value = [{ pollute: true }, ...Array.from({ length: 5 }, (_, i) => ({ [`k${i}`]: i, b: `x${i}` }))];
    const text = stringify(value, { types: [polluter] });
    try {
      const back = parse(text, { types: [polluter] }) as Record<string, unknown>[];
      expect(back[0]).toEqual({ polluted: true });
      for (let i = 1; i < back.length; i++) {
        expect(Object.keys(back[i]!)).toEqual([`k${i - 1}`, "b"]);
        expect(Object.hasOwn(back[i]!, "lateSlot")).toBe(false);
      }
    } finally {
      delete proto.lateSlot;
    }
  });
});

describe("text: deep nesting", () => {
  const DEPTH = 100_000;

  it(`writes and reads ${DEPTH} levels of arrays and objects without recursion`, () => {
    let value: unknown = "leaf";
    for (let i = 0; i < DEPTH; i++) value = i % 2 === 0 ? [value] : { v: value };
    const back = parse(stringify(value));
    let at = back;
    for (let i = DEPTH - 1; i >= 0; i--) at = i % 2 === 0 ? (at as unknown[])[0] : (at as { v: unknown }).v;
    expect(at).toBe("leaf");
  });

  it("deeply nested Maps, Sets and error causes", () => {
    let value: unknown = 1;
    for (let i = 0; i < DEPTH; i++) {
      value =
        i % 3 === 0
          ? new Map([[i, value]])
          : i % 3 === 1
            ? new Set([value])
            : new Error("e", { cause: value });
    }
    expect(() => parse(stringify(value))).not.toThrow();
  });

  it("deeply nested JSON in a hostile text is a typed error, not a crash", () => {
    const text = `[${H},[],${'["A",'.repeat(DEPTH)}1${"]".repeat(DEPTH)}]`;
    expect(() => parse(text)).toThrow(LimitError);
    const objects = `[${H},[],${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}]`;
    expect(() => parse(objects)).toThrow(LimitError);
  });

  it("every kind of object met past the deferral depth keeps its identity and its place in the order", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: unknown,
      ) {}
    }
    const point = defineType({
      name: "Point",
      test: (v: object) => v instanceof Point,
      encode: (p: Point) => [p.x, p.y],
      decode: (d: unknown) => new Point((d as [number, unknown])[0], (d as [number, unknown])[1]),
    });
    const buffer = new Uint8Array([1, 2, 3, 4]).buffer;
    const shared = { shared: true };
    // Below 64 levels of arrays, one of everything, some met again higher up and deeper down.
    const deep = [
      new Map<unknown, unknown>([[shared, new Set([shared])]]),
      new Uint16Array(buffer, 2, 1),
      new DataView(buffer),
      new Point(1, shared),
      new Date(5),
      Object.assign(Object.create(null), { a: shared }),
      new RangeError("r", { cause: shared }),
      { records: [{ a: 1 }, { a: 2 }] },
      shared,
      Object.create(null),
      new Point(2, { inner: [1, [2, [3, { four: 4 }]]] }),
      Object.setPrototypeOf(new Uint8Array(buffer, 0, 2), Array.prototype),
      new Uint8Array(buffer, 1, 2),
    ];
    // Every chain length around the deferral depth, so each kind is met right at it once.
    const deferred = new Set<boolean>();
    for (const length of [40, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68]) {
      let value: unknown[] = deep;
      for (let i = 0; i < length; i++) value = [value, i === 40 ? shared : i];
      const root = [shared, value, buffer];
      const text = stringify(root, { types: [point] });
      const back = parse(text, { types: [point] }) as unknown[];
      let at = back[1] as unknown[];
      for (let i = 0; i < length; i++) at = at[0] as unknown[];
      const s = back[0];
      expect(s).toEqual({ shared: true });
      const [map, view, dataView, p, date, nullObject, error, records, again] = at as [
        Map<unknown, Set<unknown>>,
        Uint16Array,
        DataView,
        Point,
        Date,
        Record<string, unknown>,
        RangeError,
        { records: { a: number }[] },
        unknown,
      ];
      expect([...map.keys()][0]).toBe(s);
      expect([...[...map.values()][0]!][0]).toBe(s);
      expect(view.buffer).toBe(back[2]);
      expect(dataView.buffer).toBe(back[2]);
      expect([...view]).toEqual([new Uint16Array(buffer, 2, 1)[0]]);
      expect(p).toBeInstanceOf(Point);
      expect(p.y).toBe(s);
      expect(date.getTime()).toBe(5);
      expect(Object.getPrototypeOf(nullObject)).toBe(null);
      expect(nullObject.a).toBe(s);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.cause).toBe(s);
      expect(records.records).toEqual([{ a: 1 }, { a: 2 }]);
      expect(again).toBe(s);
      const [empty, q, swapped, later] = (at as unknown[]).slice(9) as [
        object,
        Point,
        Uint8Array,
        Uint8Array,
      ];
      expect(Object.getPrototypeOf(empty)).toBe(null);
      expect(Object.keys(empty)).toEqual([]);
      // The decoder saw its data complete, containers deferred inside it included.
      expect(p.x).toBe(1);
      expect(q.x).toBe(2);
      expect(q.y).toEqual({ inner: [1, [2, [3, { four: 4 }]]] });
      expect(swapped.buffer).toBe(back[2]);
      expect(later.buffer).toBe(back[2]);
      expect([...later]).toEqual([2, 3]);
      // Deferred entries follow the root in the top-level array once the chain is long enough.
      deferred.add((JSON.parse(text) as unknown[]).length > 3);
    }
    expect([...deferred].sort()).toEqual([false, true]);
  });

  it("custom types nested deeper than maxDepth throw LimitError", () => {
    const box = defineType({
      name: "Box",
      test: (v: object) => "boxed" in v,
      encode: (v: { boxed: unknown }) => v.boxed,
      decode: (d: unknown) => ({ boxed: d }),
    });
    let value: unknown = 0;
    for (let i = 0; i < 50; i++) value = { boxed: value };
    const text = stringify(value, { types: [box] });
    expect(() => parse(text, { types: [box], maxDepth: 10 })).toThrow(LimitError);
    expect(parse(text, { types: [box] })).toEqual(value);
  });
});

describe("text parse: mutated valid texts give values or typed errors", () => {
  const sample = (() => {
    const shared = { id: 1, tags: ["a", "b"] };
    const root: Record<string, unknown> = {
      shared,
      again: shared,
      list: [1, 2.5, -0, Number.NaN, undefined, null, true, "s"],
      map: new Map<unknown, unknown>([[shared, new Set([1, 2])]]),
      date: new Date(0),
      re: /x+/g,
      bytes: new Uint8Array([1, 2, 3]),
      err: new TypeError("t"),
      big: 12n,
    };
    root.self = root;
    return stringify(root);
  })();

  fuzzIt("character edits", RUNS, (numRuns) => {
    fc.assert(
      fc.property(
        fc.nat({ max: sample.length - 1 }),
        fc.nat({ max: 8 }),
        fc.string({ maxLength: 4 }),
        (at, remove, insert) => {
          const text = sample.slice(0, at) + insert + sample.slice(at + remove);
          try {
            parse(text);
          } catch (error) {
            if (!(error instanceof StructuraError)) throw error;
          }
        },
      ),
      { numRuns },
    );
  });

  fuzzIt("JSON-level edits (replaced elements)", RUNS, (numRuns) => {
    const json = JSON.parse(sample) as unknown[];
    const scalar = fc.oneof(
      fc.integer({ min: -10, max: json.length + 5 }),
      fc.double(),
      fc.string({ maxLength: 6 }),
      fc.constantFrom("Map", "Set", "Date", "Shape", "Custom", "Error", "__proto__", null, true),
    );
    const node = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 3 }), scalar),
    );
    fc.assert(
      fc.property(fc.nat({ max: json.length - 1 }), node, (index, replacement) => {
        const copy = JSON.parse(sample) as unknown[];
        copy[index] = replacement;
        try {
          parse(JSON.stringify(copy));
        } catch (error) {
          if (!(error instanceof StructuraError)) throw error;
        }
      }),
      { numRuns },
    );
  });

  fuzzIt("edits anywhere in the tree (every container, any child)", RUNS, (numRuns) => {
    const json = JSON.parse(sample) as unknown;
    const places: [number, string | number][] = [];
    const containers: unknown[] = [];
    const collect = (v: unknown) => {
      if (typeof v !== "object" || v === null) return;
      const index = containers.push(v) - 1;
      for (const key of Object.keys(v)) {
        places.push([index, Array.isArray(v) ? Number(key) : key]);
        collect((v as Record<string, unknown>)[key]);
      }
    };
    collect(json);
    const scalar = fc.oneof(
      fc.integer({ min: -3, max: 40 }),
      fc.double(),
      fc.string({ maxLength: 6 }),
      fc.constantFrom(
        ...["~0", "~1", "~7", "~40", "~u", "~n", "~N", "~s0", "~b1", "~~", "~", "A", "a", "O", "Map"],
        ...["Set", "Date", "Error", "Custom", "TypedArray", "__proto__", null, true],
      ),
    );
    const node = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 3 }), scalar),
    );
    fc.assert(
      fc.property(fc.nat({ max: places.length - 1 }), node, (at, replacement) => {
        const copy = JSON.parse(sample) as unknown;
        const copies: unknown[] = [];
        const again = (v: unknown) => {
          if (typeof v !== "object" || v === null) return;
          copies.push(v);
          for (const key of Object.keys(v)) again((v as Record<string, unknown>)[key]);
        };
        again(copy);
        const [index, key] = places[at]!;
        (copies[index] as Record<string | number, unknown>)[key] = replacement;
        try {
          parse(JSON.stringify(copy));
        } catch (error) {
          if (!(error instanceof StructuraError)) throw error;
        }
      }),
      { numRuns },
    );
  });
});

describe("text parse: structure-aware mutations of texts with deferred entries, shapes and custom data", () => {
  class Point {
    constructor(
      public x: unknown,
      public y: unknown,
    ) {}
  }
  const PointType = defineType({
    name: "Point",
    class: Point,
    encode: (p: Point) => ({ x: p.x, y: p.y }),
    decode: (d: { x: unknown; y: unknown }) => new Point(d.x, d.y),
  });
  const types = [PointType];
  const sample = (() => {
    let deep: unknown = new Point(1, [2, 3]);
    for (let i = 0; i < 150; i++) deep = i % 2 === 0 ? [deep, { k: i, u: undefined }] : new Map([[i, deep]]);
    const sparse = Object.assign(new Array(3), { 0: 1, 2: 3, "4294967295": "big", extra: true });
    const shared = { id: 1, name: "n", tag: undefined };
    return stringify(
      {
        deep,
        sparse,
        shared,
        list: [shared, { id: 2, name: "m", tag: "t" }],
        point: new Point(new Point(0, "~"), "x".repeat(70)),
        again: "x".repeat(70),
        view: new Uint8Array([1, 2, 3]),
      },
      { types },
    );
  })();
  const top = JSON.parse(sample) as unknown[];

  it("the sample has deferred entries, shapes and custom data (so the mutations reach them)", () => {
    expect(top.length).toBeGreaterThan(4);
    expect((top[1] as unknown[]).length).toBeGreaterThan(1);
    expect(sample).toContain('"Custom","Point"');
  });

  const tryParse = (text: string) => {
    try {
      parse(text, { types, maxDepth: 200 });
    } catch (error) {
      if (!(error instanceof StructuraError)) throw error;
    }
  };

  fuzzIt("entries dropped, duplicated, swapped or moved, and shape-table edits", RUNS, (numRuns) => {
    const n = top.length;
    fc.assert(
      fc.property(
        fc.constantFrom("drop", "dup", "swap", "shape", "ref"),
        fc.nat({ max: n - 1 }),
        fc.nat({ max: n - 1 }),
        fc.integer({ min: -2, max: 5 }),
        (op, a, b, k) => {
          const copy = JSON.parse(sample) as unknown[];
          const shapes = copy[1] as unknown[][];
          switch (op) {
            case "drop":
              copy.splice(Math.max(3, a), 1);
              break;
            case "dup":
              copy.splice(Math.max(3, a), 0, copy[Math.max(2, b)]);
              break;
            case "swap": {
              const i = Math.max(2, a);
              const j = Math.max(2, b);
              [copy[i], copy[j]] = [copy[j], copy[i]];
              break;
            }
            case "shape": {
              const shape = shapes[a % shapes.length]!;
              if (k < 0) shape.pop();
              else if (k === 0) shape.push(shape[0]!);
              else shape.push([`k${k}`]);
              break;
            }
            case "ref":
              copy.push(["A", `~${a * 7 + k}`, `~s${k + 1}`]);
              break;
          }
          tryParse(JSON.stringify(copy));
        },
      ),
      { numRuns },
    );
  });

  fuzzIt("characters edited anywhere", RUNS, (numRuns) => {
    fc.assert(
      fc.property(
        fc.nat({ max: sample.length - 1 }),
        fc.constantFrom("[", "]", "{", "}", ",", "~", "0", "9", '"', "A", "-"),
        (at, c) => tryParse(sample.slice(0, at) + c + sample.slice(at + 1)),
      ),
      { numRuns },
    );
  });
});
