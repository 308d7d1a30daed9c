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

const H = '"structura:1"';

describe("text parse: malformed input", () => {
  it.each([
    ["not JSON", "{", "ERR_TRUNCATED"],
    ["truncated", `[${H},2,{"a":`, "ERR_TRUNCATED"],
    ["garbage", `[${H},2,}`, "ERR_SYNTAX"],
    ["empty", "", "ERR_TRUNCATED"],
    ["not an array", '{"a":1}', "ERR_VERSION"],
    ["no header", "[1,2]", "ERR_VERSION"],
    ["other version", '["structura:99",1]', "ERR_VERSION"],
    ["only a header", `[${H}]`, "ERR_VERSION"],
    ["reference past the end", `[${H},5]`, "ERR_BAD_REFERENCE"],
    ["reference to the header", `[${H},2,[0]]`, "ERR_BAD_REFERENCE"],
    ["reference to the root slot", `[${H},2,[1]]`, "ERR_BAD_REFERENCE"],
    ["unknown sentinel", `[${H},-9]`, "ERR_BAD_REFERENCE"],
    ["huge integer reference", `[${H},2,[1e300]]`, "ERR_BAD_REFERENCE"],
    ["negative zero reference", `[${H},2,[-0]]`, "ERR_BAD_REFERENCE"],
    ["nested object in a slot", `[${H},2,{"a":{"b":1}}]`, "ERR_BAD_VALUE"],
    ["nested array in a slot", `[${H},2,[[1]]]`, "ERR_BAD_VALUE"],
    ["object root slot", `[${H},{"a":1}]`, "ERR_BAD_VALUE"],
    ["boolean node", `[${H},2,true]`, "ERR_BAD_VALUE"],
    ["unknown tag", `[${H},2,["Function","return 1"]]`, "ERR_UNKNOWN_TAG"],
    ["globalThis name as tag", `[${H},2,["eval","1"]]`, "ERR_UNKNOWN_TAG"],
    ["Date with a string", `[${H},2,["Date","x"]]`, "ERR_BAD_VALUE"],
    ["Date arity", `[${H},2,["Date"]]`, "ERR_BAD_VALUE"],
    ["bad RegExp", `[${H},2,["RegExp","(","g"]]`, "ERR_BAD_VALUE"],
    ["bad BigInt", `[${H},2,["BigInt","1e3"]]`, "ERR_BAD_VALUE"],
    ["error name not allowed", `[${H},2,["Error","Function",null,null]]`, "ERR_BAD_VALUE"],
    ["Map with odd entries", `[${H},2,["Map",3],1]`, "ERR_BAD_VALUE"],
    [
      "typed array of an unknown type",
      `[${H},2,["TypedArray","Worker",3,0,0],["ArrayBuffer",""]]`,
      "ERR_BAD_VALUE",
    ],
    ["typed array not on a buffer", `[${H},2,["TypedArray","Uint8Array",3,0,1],{}]`, "ERR_BAD_REFERENCE"],
    [
      "typed array past its buffer",
      `[${H},2,["TypedArray","Uint8Array",3,0,9],["ArrayBuffer","AAA="]]`,
      "ERR_BAD_VALUE",
    ],
    ["bad base64", `[${H},2,["ArrayBuffer","***"]]`, "ERR_BAD_VALUE"],
    ["resizable max below length", `[${H},2,["ArrayBuffer","AAA=",1]]`, "ERR_BAD_VALUE"],
    ["array length key", `[${H},2,["Array",1,{"length":null}]]`, "ERR_BAD_VALUE"],
    ["array index past length", `[${H},2,["Array",1,{"5":null}]]`, "ERR_BAD_VALUE"],
    ["array length too big", `[${H},2,["Array",1e20,{}]]`, "ERR_BAD_VALUE"],
    ["shape referenced as a value", `[${H},2,["Shape","a"]]`, "ERR_BAD_REFERENCE"],
    ["shape with non-string keys", `[${H},2,[3,1],["Shape",1]]`, "ERR_BAD_VALUE"],
    ["shaped object with too many values", `[${H},2,[3,1,2],["Shape","a"]]`, "ERR_BAD_VALUE"],
    ["unregistered custom type", `[${H},2,["Custom","Point",null]]`, "ERR_UNKNOWN_TYPE"],
    ["bad URL", `[${H},2,["URL","not a url"]]`, "ERR_BAD_VALUE"],
  ])("%s", (_name, text, code) => {
    const error = decodeError(text);
    expect(error.code).toBe(code);
    expect(typeof error.offset).toBe("number");
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThanOrEqual(text.length);
  });

  it("reports the offset of the offending node", () => {
    const text = `[${H},2,{"a":3},["Nope"]]`;
    const error = decodeError(text);
    expect(error.code).toBe("ERR_UNKNOWN_TAG");
    expect(text.slice(error.offset).startsWith('["Nope"]')).toBe(true);
  });

  it("rejects non-string input with a typed error", () => {
    expect(() => parse(42 as unknown as string)).toThrow(StructuraError);
  });
});

describe("text parse: prototype safety", () => {
  it("__proto__, constructor and prototype keys stay own data properties (object and shaped forms)", () => {
    for (const text of [
      `[${H},2,{"__proto__":3,"constructor":3,"prototype":3},{"polluted":true}]`,
      `[${H},2,[3,4,4,4],["Shape","__proto__","constructor","prototype"],{"polluted":true}]`,
      `[${H},2,["Object",{"__proto__":3}],{"polluted":true}]`,
      `[${H},2,["Array",0,{"__proto__":3}],{"polluted":true}]`,
    ]) {
      const value = parse(text) as Record<string, unknown>;
      expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
      expect(value.polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty("polluted");
    }
  });

  it("names from the input are never looked up: '__proto__' as a tag is an unknown tag", () => {
    for (const tag of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(decodeError(`[${H},2,["${tag}"]]`).code).toBe("ERR_UNKNOWN_TAG");
    }
    expect(parse(`[${H},2,{"a":"__proto__"}]`)).toEqual({ a: "__proto__" });
  });

  it("an enumerable property on Object.prototype is not read as a slot of plain objects", () => {
    const proto = Object.prototype as Record<string, unknown>;
    for (const polluted of [3, { x: 1 }, "s"]) {
      proto.pollutedSlot = polluted;
      try {
        const value = parse(`[${H},2,{"a":3,"b":"x"},7]`) as Record<string, unknown>;
        expect(Object.keys(value)).toEqual(["a", "b"]);
        expect(value.a).toBe(7);
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
    const text = `[${H},2,${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}]`;
    expect(() => parse(text)).toThrow(StructuraError);
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

  it("character edits", () => {
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
      { numRuns: RUNS },
    );
  });

  it("JSON-level edits (replaced elements)", () => {
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
      { numRuns: RUNS },
    );
  });
});
