/**
 * structura/compat/ungap and structura/compat/ungap/json against @ungap/structured-clone's own
 * published expectations (rewritten here, not copied), interop with the real package's record arrays
 * and JSON texts, and hostile record arrays (including the constructor-by-name payloads @ungap's own
 * deserializer runs).
 */

import ungapClone, {
  deserialize as ungapDeserialize,
  serialize as ungapSerialize,
} from "@ungap/structured-clone";
import { stringify as ungapStringify } from "@ungap/structured-clone/json";
import { describe, expect, it } from "vitest";
import structuredClone, { deserialize, serialize } from "../../src/compat/ungap/index.ts";
import { parse, stringify } from "../../src/compat/ungap/json.ts";
import { DataCloneError, DecodeError } from "../../src/core/errors.ts";
import { parse as structuraParse } from "../../src/text/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";

function everything() {
  const { buffer } = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]);
  const obj: Record<string, unknown> = {
    arr: [],
    bigint: 1n,
    boolean: true,
    number: 123,
    string: "",
    undefined: undefined,
    null: null,
    buffer,
    dataview: new DataView(buffer),
    int: new Uint32Array([1, 2, 3]),
    map: new Map([["a", 123]]),
    set: new Set(["a", "b"]),
    Bool: Object(false),
    Num: Object(0),
    Str: Object(""),
    re: /test/gim,
    error: new Error("test"),
    BI: Object(1n),
    date: new Date(1_700_000_000_000),
  };
  (obj.arr as unknown[]).push(obj, obj, obj);
  return obj;
}

/** @ungap's own checks of a deserialized `everything()`. */
// biome-ignore lint/suspicious/noExplicitAny: @ungap's results are any, as its checks read them
function checkEverything(d: Record<string, any>) {
  expect(d.arr).toHaveLength(3);
  expect(d.arr[0]).toBe(d);
  expect(d.arr[2]).toBe(d);
  expect(d.bigint).toBe(1n);
  expect(d.boolean).toBe(true);
  expect(d.number).toBe(123);
  expect(d.string).toBe("");
  expect("undefined" in d && d.undefined === undefined).toBe(true);
  expect(d.null).toBe(null);
  expect(d.int).toBeInstanceOf(Uint32Array);
  expect([...d.int]).toEqual([1, 2, 3]);
  expect(d.map.get("a")).toBe(123);
  expect([...d.set].join(",")).toBe("a,b");
  expect(d.Bool).toBeInstanceOf(Boolean);
  expect(d.Bool.valueOf()).toBe(false);
  expect(d.Num).toBeInstanceOf(Number);
  expect(d.Num.valueOf()).toBe(0);
  expect(d.Str).toBeInstanceOf(String);
  expect(d.Str.valueOf()).toBe("");
  expect(d.re).toBeInstanceOf(RegExp);
  expect(d.re.source).toBe("test");
  expect(d.re.flags).toBe("gim");
  expect(d.error).toBeInstanceOf(Error);
  expect(d.error.message).toBe("test");
  expect(d.BI).toBeInstanceOf(BigInt);
  expect(d.BI.valueOf()).toBe(1n);
  expect(d.date).toBeInstanceOf(Date);
  expect(d.date.toISOString()).toBe(new Date(1_700_000_000_000).toISOString());
  expect(new Uint8Array(d.buffer)).toEqual(new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]));
}

function lossyInput() {
  return [
    1,
    () => {},
    new Map([["key", Symbol()]]),
    new Set([Symbol()]),
    { test() {}, sym: Symbol() },
    {
      toJSON() {
        return "OK";
      },
    },
  ];
}

// biome-ignore lint/suspicious/noExplicitAny: as above
function checkLossy(out: any[]) {
  expect(out[0]).toBe(1);
  expect(out[1]).toBe(null);
  expect(out[2].size).toBe(0);
  expect(out[3].size).toBe(0);
  expect(JSON.stringify(out[4])).toBe("{}");
  expect(out[5]).toBe("OK");
}

describe("compat/ungap: @ungap's expectations", () => {
  it("serialize/deserialize round-trips every type, cycles included", () => {
    const value = everything();
    const serialized = serialize(value);
    expect(JSON.parse(JSON.stringify(serialized))).toEqual(serialized); // JSON-compatible
    checkEverything(deserialize(serialized));
    checkEverything(deserialize(serialized)); // the serialized value is left as it was
    // A structura text, as JSON of it.
    checkEverything(structuraParse(JSON.stringify(serialized)));
  });

  it("deserialize reads @ungap's own record arrays; parse reads its JSON texts", () => {
    checkEverything(deserialize(ungapSerialize(everything())));
    checkEverything(parse(JSON.stringify(ungapSerialize(everything()))));
    const lossy = ungapStringify(lossyInput());
    checkLossy(parse(lossy));
  });

  it("stringify keeps undefined members and their order", () => {
    const text = stringify({ foo: "test", bar: undefined, foobar: null });
    const back = parse(text);
    expect(Object.keys(back).join(",")).toBe("foo,bar,foobar");
    expect(back.bar).toBe(undefined);
    const theirs = parse(ungapStringify({ foo: "test", bar: undefined, foobar: null }));
    expect(Object.keys(theirs).join(",")).toBe("foo,bar,foobar");
  });

  it("serialize without options refuses a function (structura: DataCloneError with a path)", () => {
    expect(() => serialize(() => {})).toThrow(DataCloneError);
    expect(() => serialize({ a: [() => {}] })).toThrow("value.a[0]");
  });

  it("structuredClone with { json: true }: lossy, toJSON called; and through stringify/parse", () => {
    const lossy = structuredClone(lossyInput(), { json: true });
    checkLossy(lossy);
    checkLossy(parse(stringify(lossy)));
    checkLossy(ungapClone(lossyInput(), { json: true }));
    checkLossy([...structuredClone(lossyInput().slice(0, 5), { lossy: true }), "OK"]);
  });

  it("an invalid Date round-trips", () => {
    const viaRecords = deserialize(serialize(new Date(Number.NaN)));
    expect(viaRecords).toBeInstanceOf(Date);
    expect(Number.isNaN(viaRecords.getTime())).toBe(true);
    const viaJson = parse(stringify(new Date(Number.NaN)));
    expect(Number.isNaN(viaJson.getTime())).toBe(true);
    expect(Number.isNaN(deserialize(ungapSerialize(new Date(Number.NaN))).getTime())).toBe(true);
  });

  it("structuredClone without options is the structured clone algorithm (as the platform's)", () => {
    const value = everything();
    expectSameStructure(structuredClone(value), globalThis.structuredClone(value), { compareStacks: false });
    expect(() => structuredClone({ f() {} })).toThrow(DataCloneError);
  });

  it("what comes back richer than from @ungap: views, -0, error causes, sparse arrays, null prototypes", () => {
    const buffer = new ArrayBuffer(8);
    const value = {
      view: new Uint8Array(buffer, 2, 3),
      same: new Uint16Array(buffer),
      zero: -0,
      error: new RangeError("x", { cause: "why" }),
      // biome-ignore lint/suspicious/noSparseArray: holes are the point
      sparse: [1, , 3],
      bare: Object.assign(Object.create(null), { a: 1 }),
    };
    for (const back of [
      deserialize(serialize(value)),
      parse(stringify(value)),
      structuredClone(value, { lossy: true }),
    ]) {
      expect(back.view.byteOffset).toBe(2);
      expect(back.view.length).toBe(3);
      expect(back.view.buffer).toBe(back.same.buffer);
      expect(Object.is(back.zero, -0)).toBe(true);
      expect(back.error).toBeInstanceOf(RangeError);
      expect(back.error.cause).toBe("why");
      expect(1 in back.sparse).toBe(false);
      expect(Object.getPrototypeOf(back.bare)).toBe(null);
    }
    const theirs = ungapDeserialize(ungapSerialize(value));
    expect(theirs.view.byteOffset).toBe(0); // @ungap copies a view's elements into a new buffer
  });

  it("lossy: a Map entry left out for a function or symbol does not take the other side's object with it", () => {
    // Writing the key numbers its object; the entry was dropped after that, and the later reference to
    // the object had no node ("A deferral point has no entry left").
    const k = { a: 1 };
    const v = { b: 2 };
    const fn = () => 1;
    const value = {
      byValue: new Map<unknown, unknown>([
        [k, fn],
        ["s", Symbol("s")],
        ["kept", 3],
      ]),
      byKey: new Map<unknown, unknown>([[fn, v]]),
      k,
      v,
    };
    for (const back of [
      deserialize(serialize(value, { lossy: true })),
      deserialize(serialize(value, { json: true })),
      parse(stringify(value)),
      structuredClone(value, { lossy: true }),
    ]) {
      expect([...back.byValue]).toEqual([["kept", 3]]);
      expect(back.byKey.size).toBe(0);
      expect(back.k).toEqual({ a: 1 });
      expect(back.v).toEqual({ b: 2 });
    }
    // As @ungap leaves such entries out.
    const theirs = ungapDeserialize(ungapSerialize(value, { lossy: true }));
    expect([...theirs.byValue]).toEqual([["kept", 3]]);
    expect(theirs.byKey.size).toBe(0);
  });
});

describe("compat/ungap: hostile record arrays", () => {
  const payload = "return globalThis.__pwned = true";
  const bad: [string, unknown][] = [
    ["a record named Function", [["Function", payload]]],
    ["a record named eval", [["eval", payload]]],
    ["a record named Worker", [["Worker", "x"]]],
    ["a record named Array Iterator", [["Array Iterator", []]]],
    ["a record named Proxy", [["Proxy", {}]]],
    ["an unknown numeric type", [[42, 1]]],
    ["an index past the end", [[1, [1]]]],
    ["a huge index", [[1, [1e300]]]],
    ["a negative index", [[1, [-1]]]],
    ["a fractional index", [[1, [0.5]]]],
    ["a string index", [[1, ["0"]]]],
    ["a record that is not a pair", [5]],
    ["an empty array", []],
    ["not an array", { 0: [0, 1] }],
    [
      "an object whose entries are not pairs",
      [
        [2, [1]],
        [0, "a"],
      ],
    ],
    ["an object key that is an object", [[2, [[0, 0]]]]],
    ["a primitive holding an object", [[0, { a: 1 }]]],
    ["a bad BigInt", [[8, "1e3"]]],
    ["a bad RegExp", [[4, { source: "(", flags: "" }]]],
    ["bad typed array elements", [["Uint8Array", [{}]]]],
    ["bad bytes", [["ArrayBuffer", [300]]]],
    // Found by test/compat/fuzz.test.ts: String() of these threw a raw TypeError, or ran the input's own
    // toString.
    ["a type that is a null-prototype object", [[Object.create(null), 1]]],
    ["an index that is a null-prototype object", [[1, [Object.create(null)]]]],
    [
      "an Error message that is an object with a toString",
      [
        [
          7,
          {
            name: "Error",
            message: { toString: () => ((globalThis as { __pwned?: unknown }).__pwned = true) },
          },
        ],
      ],
    ],
  ];
  for (const [name, records] of bad) {
    it(`typed DecodeError, nothing run: ${name}`, () => {
      expect(() => deserialize(records)).toThrow(DecodeError);
      expect(() => parse(JSON.stringify(records))).toThrow(DecodeError);
      expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined();
    });
  }

  it("errors are rebuilt from the seven standard constructors only", () => {
    const e = deserialize([[7, { name: "TypeError", message: "m" }]]);
    expect(e).toBeInstanceOf(TypeError);
    const other = deserialize([[7, { name: "MyError", message: "m" }]]);
    expect(other.constructor).toBe(Error);
    // @ungap's own deserializer calls `new globalThis[name](message)`: here, Function is an Error's name.
    const payload = deserialize([[7, { name: "Function", message: "return globalThis.__pwned = true" }]]);
    expect(payload.constructor).toBe(Error);
    expect(typeof payload).toBe("object");
  });

  it("__proto__ and constructor keys become own data properties; no prototype is touched", () => {
    const records = [
      [
        2,
        [
          [1, 2],
          [3, 4],
        ],
      ],
      [0, "__proto__"],
      [2, [[5, 6]]],
      [0, "constructor"],
      [2, [[7, 6]]],
      [0, "polluted"],
      [0, true],
      [0, "prototype"],
    ];
    const back = deserialize(records);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")?.value).toEqual({ polluted: true });
    expect(back.constructor).toEqual({ prototype: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a chain 200,000 records long reads without a stack overflow", () => {
    const n = 200_000;
    const records: unknown[] = [];
    for (let i = 0; i < n; i++) records.push([1, [i + 1]]);
    records.push([0, "end"]);
    let at = deserialize(records);
    let depth = 0;
    while (Array.isArray(at)) {
      at = at[0];
      depth++;
    }
    expect(depth).toBe(n);
    expect(at).toBe("end");
  });

  it("a structura text is read by its own reader (bad ones are typed errors too)", () => {
    expect(() => parse('["structura:2",[],"~9"]')).toThrow(DecodeError);
    expect(() => parse('["structura:9",[],1]')).toThrow(DecodeError);
    expect(() => parse("[")).toThrow(DecodeError);
  });
});
