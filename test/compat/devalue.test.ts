/**
 * structura/compat/devalue against devalue's own published expectations (rewritten here, not copied):
 * round trips of every type devalue carries, `uneval` evaluated in a fresh realm, reducers/revivers,
 * DevalueError's message/path/value/root, XSS safety, and texts written by devalue itself.
 */

import vm from "node:vm";
import * as devalue from "devalue";
import { describe, expect, it } from "vitest";
import * as compat from "../../src/compat/devalue/index.ts";
import { DecodeError, LimitError, StructuraError } from "../../src/core/errors.ts";
import { HEADER } from "../../src/text/format.ts";
import { parse as structuraParse } from "../../src/text/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { chain, fixtures } from "./devalue-fixtures.ts";

/** Evaluates uneval's output in a fresh realm, as a browser would evaluate an inlined script. */
function evaluate(source: string, globals: Record<string, unknown> = {}): unknown {
  // A bare vm context has no URL or URLSearchParams (web APIs, which a page has): lend them.
  return vm.runInNewContext(`(${source})`, { URL, URLSearchParams, ...globals });
}

const loose = { compareStacks: false };
const SCRIPT_RE = /<\/script>\u2028/;
const SCRIPT_END = /<\/script/i;
const SEPARATORS = /[\u2028\u2029]/;

describe("compat/devalue: round trips (devalue's fixtures)", () => {
  for (const f of fixtures) {
    it(`stringify → parse: ${f.name}`, () => {
      const value = f.make();
      if (f.stringifyCannot) {
        // Known difference: structura's text writer refuses objects of another realm.
        expect(() => compat.stringify(value)).toThrow(compat.DevalueError);
        return;
      }
      const expected = f.expected?.() ?? value;
      const text = compat.stringify(value);
      expectSameStructure(compat.parse(text), expected, loose);
      expectSameStructure(compat.unflatten(JSON.parse(text)), expected, loose);
    });
    it(`uneval → eval in a fresh realm: ${f.name}`, () => {
      const value = f.make();
      expectSameStructure(evaluate(compat.uneval(value)), f.expected?.() ?? value, loose);
    });
    if (!f.devalueCannot) {
      it(`reads devalue's own text: ${f.name}`, () => {
        const value = f.make();
        const expected = f.expected?.() ?? value;
        const text = devalue.stringify(value);
        expectSameStructure(compat.parse(text), expected, loose);
        const parsed = JSON.parse(text);
        const copy = JSON.stringify(parsed);
        expectSameStructure(compat.unflatten(parsed), expected, loose);
        expect(JSON.stringify(parsed)).toBe(copy); // unflatten leaves its input untouched
      });
    }
  }

  it("stringify writes structura text, which structura/text reads", () => {
    const value = { a: [1, 2], d: new Date(0) };
    const text = compat.stringify(value);
    expect(JSON.parse(text)[0]).toBe(HEADER);
    expectSameStructure(structuraParse(text), value);
  });

  it("what devalue refuses and structura carries: errors, __proto__ keys", () => {
    const error = new TypeError("bad", { cause: { code: 7 } });
    const back = compat.parse(compat.stringify({ error })) as { error: TypeError };
    expect(back.error).toBeInstanceOf(TypeError);
    expect(back.error.message).toBe("bad");
    expect(back.error.cause).toEqual({ code: 7 });
    expect(() => devalue.stringify({ error })).toThrow("non-POJO");
    const evaluated = evaluate(compat.uneval(error)) as Error;
    expect(evaluated.name).toBe("TypeError");
    expect(evaluated.message).toBe("bad");
    expect(evaluated.cause).toEqual({ code: 7 });

    const inner = JSON.parse('{"__proto__":{"polluted":1},"x":2}');
    for (const out of [compat.parse(compat.stringify({ inner })), evaluate(compat.uneval({ inner }))]) {
      const got = (out as { inner: Record<string, unknown> }).inner;
      expect(Object.getPrototypeOf(got)).toBe(Object.getPrototypeOf(out));
      expect(Object.getOwnPropertyDescriptor(got, "__proto__")?.value).toEqual({ polluted: 1 });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});

describe("compat/devalue: uneval", () => {
  it("writes identifier keys bare and every other key quoted, as devalue does", () => {
    const value = { a: 1, _$x9: 2, constructor: 3, "b-c": 4, "9a": 5, "": 6, "a b": 7, "</script>": 8, é: 9 };
    const source = compat.uneval(value);
    expect(source).toContain("a:1");
    expect(source).toContain("_$x9:2");
    expect(source).toContain("constructor:3");
    expect(source).toContain('"b-c":4');
    expect(source).toContain('"9a":5');
    expect(source).not.toContain("</script>");
    const back = evaluate(source) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).not.toBeNull();
    expect(Object.entries(back)).toEqual(Object.entries(value));
  });

  it("writes a plain literal when nothing repeats, and a function when something does", () => {
    expect(evaluate(compat.uneval({ message: "hello" }))).toEqual({ message: "hello" });
    expect(compat.uneval({ message: "hello" })).not.toContain("function");
    const obj: Record<string, unknown> = { message: "hello" };
    obj.self = obj;
    const source = compat.uneval(obj);
    expect(source.startsWith("(function(){")).toBe(true);
    const back = evaluate(source) as Record<string, unknown>;
    expect(back.self).toBe(back);
  });

  it("is safe to inline in a <script>: no </script>, <!--, U+2028/2029; strings and keys cannot escape", () => {
    const nasty = [
      "</script><script>alert(1)</script>",
      "<!--",
      "\u2028\u2029",
      '"; alert(1); "',
      "\\",
      "'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal is the payload
      "`${alert(1)}`",
      "*/alert(1)/*",
    ];
    const value: Record<string, unknown> = { list: nasty, re: SCRIPT_RE };
    for (const s of nasty) value[s] = s;
    value.__proto__keyed = JSON.parse('{"__proto__":"</script>"}');
    const source = compat.uneval(value);
    expect(source).not.toMatch(SCRIPT_END);
    expect(source).not.toContain("<!--");
    expect(source).not.toMatch(SEPARATORS);
    // Evaluated inside a script element's text, with a global alert that records calls.
    const calls: unknown[] = [];
    const back = vm.runInNewContext(`var preloaded = ${source};\npreloaded`, {
      alert: (x: unknown) => calls.push(x),
    });
    expect(calls).toEqual([]);
    expectSameStructure(back, value);
    // The same for stringify's text.
    const text = compat.stringify(value);
    expect(text).not.toMatch(SCRIPT_END);
    expect(text).not.toMatch(SEPARATORS);
  });

  it("replacer: devalue's js tag, holes written recursively, shared values kept", () => {
    class Vector {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const v = new Vector(1, 2);
    const source = compat.uneval({ a: v, b: v }, (value, js) => {
      if (value instanceof Vector) return js`new Vector(${value.x},${value.y})`;
      return undefined;
    });
    const back = evaluate(source, { Vector }) as { a: Vector; b: Vector };
    expect(back.a).toBeInstanceOf(Vector);
    expect(back.a).toBe(back.b);
    expect(back.a.y).toBe(2);
    expect(() => compat.uneval(v, () => "new Vector()")).toThrow(TypeError);
  });

  it("a replacer's identifiers never collide with generated variables", () => {
    const shared = { n: 1 };
    const wrapped = { tag: "w", shared };
    const source = compat.uneval([shared, shared, wrapped], (value, js) =>
      value === wrapped ? js`(function($_0){return {tag:$_0,shared:${shared}}})("w")` : undefined,
    );
    const back = evaluate(source) as [unknown, unknown, { tag: string; shared: unknown }];
    expect(back[0]).toBe(back[1]);
    expect(back[2].shared).toBe(back[0]);
    expect(back[2].tag).toBe("w");
  });

  it("tens of thousands of shared objects give valid source", () => {
    // devalue passed shared objects as parameters and broke past 65,534; here they are variables of one
    // var statement, which has no such limit (20,000 keeps the case quick under Bun, whose vm is slow).
    const many = Array.from({ length: 20_000 }, () => ({}));
    const back = evaluate(compat.uneval([...many, ...many])) as object[];
    expect(back).toHaveLength(40_000);
    expect(back[19_999]).toBe(back[39_999]);
    expect(back[0]).not.toBe(back[1]);
  });

  it("deep nesting gives source of bounded nesting", () => {
    const deep = chain(3_000);
    expectSameStructure(evaluate(compat.uneval(deep)), deep);
  });

  it("a typed array shared with its buffer is rebuilt before a cycle uses it", () => {
    const buffer = new ArrayBuffer(4);
    const view = new Uint8Array(buffer);
    view[1] = 9;
    const root: Record<string, unknown> = { view, buffer };
    root.self = root;
    const back = evaluate(compat.uneval(root)) as { view: Uint8Array; buffer: ArrayBuffer; self: unknown };
    expect(back.view.buffer).toBe(back.buffer);
    expect(back.view[1]).toBe(9);
    expect(back.self).toBe(back);
  });

  it("shared objects are filled by member statements: identifiers as .key, other keys quoted, __proto__ own", () => {
    const shared: Record<string, unknown> = { a: 1, "b-c": 2, "</script>": 3, constructor: 4 };
    shared.self = shared;
    const bare = Object.create(null) as Record<string, unknown>;
    bare.__proto__ = 5;
    bare.me = bare;
    const plain = JSON.parse('{"__proto__":6}') as Record<string, unknown>;
    plain.me = plain;
    const source = compat.uneval([shared, bare, plain]);
    expect(source).toContain(".a=1");
    expect(source).toContain('["b-c"]=2');
    expect(source).not.toMatch(SCRIPT_END);
    const [s, b, p] = evaluate(source) as Record<string, unknown>[];
    expect(Object.entries(s!)).toEqual(Object.entries(shared).map(([k, v]) => [k, v === shared ? s : v]));
    expect(Object.getPrototypeOf(b)).toBeNull();
    expect(Object.getOwnPropertyDescriptor(b, "__proto__")?.value).toBe(5);
    expect(Object.getPrototypeOf(p)).not.toBeNull();
    expect(Object.getOwnPropertyDescriptor(p, "__proto__")?.value).toBe(6);
    expect(p!.me).toBe(p);
  });

  it("shared views met before their shared buffer are built after it", () => {
    const buffer = new ArrayBuffer(6);
    const view = new Uint8Array(buffer, 1, 3);
    view[0] = 7;
    const dataView = new DataView(buffer, 2);
    const cyclic: Record<string, unknown> = {};
    const value = [view, view, dataView, dataView, buffer, buffer, cyclic];
    cyclic.back = value;
    const back = evaluate(compat.uneval(value)) as [
      Uint8Array,
      Uint8Array,
      DataView,
      DataView,
      ArrayBuffer,
      ArrayBuffer,
      object,
    ];
    expect(back[0]).toBe(back[1]);
    expect(back[0].buffer).toBe(back[4]);
    expect(back[2].buffer).toBe(back[4]);
    expect(back[2].byteOffset).toBe(2);
    expect([...back[0]]).toEqual([7, 0, 0]);
    expect((back[6] as Record<string, unknown>).back).toBe(back);
  });

  it("arrays: own indices only, as devalue (other own keys and inherited elements are not written)", () => {
    const withKey = Object.assign([1, 2], { extra: () => 1 });
    // biome-ignore lint/suspicious/noSparseArray: holes are the point
    const holey = [1, , 3];
    const sparse: unknown[] = [];
    sparse[1000] = "x";
    (sparse as unknown as Record<string, unknown>).extra = 1;
    const proto = Array.prototype as unknown as Record<number, unknown>;
    proto[1] = "inherited";
    try {
      for (const value of [withKey, holey, sparse]) {
        const source = compat.uneval(value);
        expect(source).not.toContain("extra");
        expect(source).not.toContain("inherited");
        const back = evaluate(source) as unknown[];
        expect(back).toHaveLength(value.length);
        expect(Object.keys(back)).toEqual(Object.keys(value).filter((k) => k !== "extra"));
        expect(evaluate(devalue.uneval(value))).toEqual(back);
      }
    } finally {
      delete proto[1];
    }
    // Shared and cyclic arrays with holes are written by statements: the holes stay holes.
    // biome-ignore lint/suspicious/noSparseArray: holes are the point
    const cyclic: unknown[] = [1, , 3];
    cyclic[4] = cyclic;
    const back = evaluate(compat.uneval(cyclic)) as unknown[];
    expect(back).toHaveLength(5);
    expect(1 in back).toBe(false);
    expect(back[4]).toBe(back);
  });

  it("refusals inside arrays, holes and fragments report the path of the refused value", () => {
    const fn = () => 1;
    const thrown = (v: unknown, replacer?: Parameters<typeof compat.uneval>[1]): compat.DevalueError => {
      try {
        compat.uneval(v, replacer);
      } catch (error) {
        return error as compat.DevalueError;
      }
      throw new Error("did not throw");
    };
    // biome-ignore lint/suspicious/noSparseArray: holes are the point
    const holey: unknown[] = [1, , { f: fn }];
    expect(thrown({ list: holey }).path).toBe(".list[2].f");
    const sparse: unknown[] = [];
    sparse[5000] = [Symbol("s")];
    expect(thrown({ sparse }).path).toBe(".sparse[5000][0]");
    const e = thrown({ deep: [{ map: new Map([["k", [fn]]]) }] });
    expect(e.path).toBe('.deep[0].map.get("k")[0]');
    expect(e.value).toBe(fn);
    class Point {}
    // A hole of a fragment is walked like any value; its refusal names the object the fragment wrote.
    const wrapper = { inner: new Point() };
    const r = thrown({ w: wrapper }, (value, js) => (value === wrapper ? js`W(${fn})` : undefined));
    expect(r.message).toBe("Cannot stringify a function");
    expect(r.path).toBe(".w");
  });
});

describe("compat/devalue: reducers and revivers (custom types)", () => {
  class Foo {
    constructor(readonly value: unknown) {}
  }
  class Bar {
    constructor(readonly value: unknown) {}
  }
  // An inherited reducer must not be used (devalue#80): only own keys count.
  const reducers = Object.assign(Object.create({ polluted: () => true }), {
    Foo: (x: unknown) => x instanceof Foo && x.value,
    Bar: (x: unknown) => x instanceof Bar && x.value,
  });
  const revivers = { Foo: (x: unknown) => new Foo(x), Bar: (x: unknown) => new Bar(x) };

  it("round trip, shared instance kept", () => {
    const foo = new Foo({ bar: new Bar({ answer: 42 }) });
    for (const text of [compat.stringify([foo, foo], reducers), devalue.stringify([foo, foo], reducers)]) {
      const [a, b] = compat.parse(text, revivers) as [Foo, Foo];
      expect(a).toBe(b);
      expect(a).toBeInstanceOf(Foo);
      expect((a.value as { bar: Bar }).bar).toBeInstanceOf(Bar);
      expect(((a.value as { bar: Bar }).bar.value as { answer: number }).answer).toBe(42);
    }
  });

  it("a reducer for a built-in type takes precedence (custom fallback)", () => {
    const text = compat.stringify(new Date(Number.NaN), { Date: (v: unknown) => v instanceof Date && "x" });
    const back = compat.parse(text, { Date: (v: string) => new Date(v) }) as Date;
    expect(back).toBeInstanceOf(Date);
    expect(Number.isNaN(back.getTime())).toBe(true);
  });

  it("a function wrapped in a custom type", () => {
    class FunctionRef {
      constructor(readonly fn: (x: number) => number) {}
    }
    const value = { ref: new FunctionRef((x) => x * 2), nested: { data: 42 } };
    const text = compat.stringify(value, {
      FunctionRef: (v: unknown) => v instanceof FunctionRef && String(v.fn),
    });
    const back = compat.parse(text, {
      FunctionRef: (s: string) => new FunctionRef(vm.runInThisContext(s)),
    }) as typeof value;
    expect(back.ref.fn(3)).toBe(6);
    expect(back.nested.data).toBe(42);
  });

  it("a missing reviver is a typed error", () => {
    const text = compat.stringify(new Foo(1), reducers);
    expect(() => compat.parse(text)).toThrow(DecodeError);
    expect(() => compat.parse(devalue.stringify(new Foo(1), reducers))).toThrow(DecodeError);
  });
});

describe("compat/devalue: DevalueError (message, path, value, root)", () => {
  for (const [name, fn] of [
    ["stringify", (v: unknown) => compat.stringify(v)],
    ["uneval", (v: unknown) => compat.uneval(v)],
  ] as const) {
    const thrown = (v: unknown): compat.DevalueError => {
      try {
        fn(v);
      } catch (error) {
        return error as compat.DevalueError;
      }
      throw new Error("did not throw");
    };

    it(`${name}: non-POJOs, symbols and boxed symbols throw`, () => {
      class Foo {}
      expect(thrown(new Foo()).message).toBe("Cannot stringify arbitrary non-POJOs");
      expect(thrown(Symbol("s")).name).toBe("DevalueError");
      expect(thrown(Object(Symbol("s")))).toBeInstanceOf(compat.DevalueError);
      expect(thrown(new Foo())).toBeInstanceOf(StructuraError);
    });

    it(`${name}: path, value and root`, () => {
      const invalid = function invalid() {};
      const root = { foo: { array: [invalid] } };
      const e = thrown(root);
      expect(e.name).toBe("DevalueError");
      expect(e.message).toBe("Cannot stringify a function");
      expect(e.path).toBe(".foo.array[0]");
      expect(e.value).toBe(invalid);
      expect(e.root).toBe(root);

      const after = thrown({ map: new Map([["key", "value"]]), object: { invalid() {} } });
      expect(after.path).toBe(".object.invalid");

      class Whatever {}
      const bad = new Whatever();
      const inMap = { foo: { "string-key": new Map([["key", bad]]) } };
      const e2 = thrown(inMap);
      expect(e2.message).toBe("Cannot stringify arbitrary non-POJOs");
      expect(e2.path).toBe('.foo["string-key"].get("key")');
      expect(e2.value).toBe(bad);
      expect(e2.root).toBe(inMap);
    });
  }
});

describe("compat/devalue: hostile input to parse/unflatten", () => {
  const bad: [string, string][] = [
    ["typed array over a non-buffer", '[["Int8Array", 1], { "length": 2 }, 1000000000]'],
    ["ArrayBuffer that is not base64", '[["ArrayBuffer", { "length": 100 }]]'],
    ["empty text", ""],
    ["not JSON", "]["],
    ["hole as the root", "-2"],
    ["a bare string", '"hello"'],
    ["a positive number", "42"],
    ["true", "true"],
    ["null", "null"],
    ["an object", "{}"],
    ["an empty array", "[]"],
    ["sparse array with a string index", '[[-7,1,"__proto__",{}]]'],
    ["sparse array non-integer index", '[[-7,5,"foo",1]]'],
    ["sparse array negative index", "[[-7,5,-1,1]]"],
    ["sparse array index out of bounds", "[[-7,2,5,1]]"],
    ["sparse array non-integer length", '[[-7,"abc"]]'],
    ["sparse array negative length", "[[-7,-3]]"],
    ["sparse array float length", "[[-7,1.5]]"],
    ["sparse array length over 2^32-1", "[[-7,4294967296]]"],
    ["sparse array float index", "[[-7,5,1.5,1]]"],
    ["boxed object", '[["Object",{"__proto__":1}],{}]'],
    ["boxed object, nested", '[{"wrapped":1},["Object",{"__proto__":2}],{}]'],
    ["an index that is a method name", '[{"0":1,"toString":"push"},"hello"]'],
    ["a huge index", "[[1e300]]"],
    ["an index past the end", "[[4294967295]]"],
    ["a negative index that is no constant", "[[-99]]"],
    ["a typed array over itself", '[["Uint8Array", 0]]'],
    ["typed arrays over each other", '[["Uint8Array", 1], ["Uint8Array", 0]]'],
    ["a view past its buffer", '[["Uint8Array", 1, 2, 10], ["ArrayBuffer", "AAAA"]]'],
    ["an unknown type name", '[["Function","return 1"]]'],
    ["a global's name as a type", '[["eval","1"]]'],
    ["a bad RegExp", '[["RegExp","("]]'],
    ["a bad BigInt", '[["BigInt","1e3"]]'],
    ["a bad URL", '[["URL","not a url"]]'],
    ["a null-object key that is not a string", '[["null",1,2],"x"]'],
    ["a structura text of another version", '["structura:9",[],1]'],
  ];
  for (const [name, text] of bad) {
    it(`typed DecodeError: ${name}`, () => {
      expect(() => compat.parse(text)).toThrow(DecodeError);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return;
      }
      if (typeof parsed === "object" || typeof parsed === "number") {
        expect(() => compat.unflatten(parsed)).toThrow(StructuraError);
      }
    });
  }

  it("a bad index is reported at the entry that holds it", () => {
    const pathOf = (text: string, revivers?: Record<string, (v: unknown) => unknown>) => {
      try {
        compat.parse(text, revivers);
      } catch (error) {
        expect(error).toBeInstanceOf(DecodeError);
        return (error as DecodeError).path;
      }
      throw new Error("no error");
    };
    expect(pathOf('[{"a":1},{"b":5}]')).toBe("$[1]");
    expect(pathOf('[[1,2],"x",[1.5]]')).toBe("$[2]");
    expect(pathOf('[["Map",1,"k"],"x"]')).toBe("$[0]");
    // After a reviver's data is filled, the entry holding the custom value again.
    expect(pathOf('[{"p":1,"q":9},["P",2],{"x":3},7]', { P: (v) => v })).toBe("$[0]");
  });

  it("a reviver whose data refers back to it is a typed error", () => {
    expect(() => compat.parse('[["Custom", 0]]', { Custom: (v: unknown) => v })).toThrow(DecodeError);
  });

  it("__proto__ and constructor keys become own data properties; no prototype is touched", () => {
    for (const text of [
      '[{"__proto__":1,"constructor":2},{"polluted":3},{"prototype":3},true]',
      '[["null","__proto__",1],{"polluted":2},true]',
      '[[-7,2,1,1],{"__proto__":2},{"polluted":3},true]',
    ]) {
      const back = compat.parse(text) as Record<string, unknown>;
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
      if (!Array.isArray(back) && Object.getPrototypeOf(back) !== null) {
        expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
        expect(Object.getOwnPropertyDescriptor(back, "__proto__")?.value).toEqual({ polluted: true });
        expect(back.constructor).toEqual({ prototype: true });
      }
    }
  });

  it("a chain 200,000 entries long reads without a stack overflow", () => {
    const n = 200_000;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(`{"next":${i + 1}}`);
    parts.push("1");
    const back = compat.parse(`[${parts.join(",")}]`) as { next: unknown };
    let depth = 0;
    let at: unknown = back;
    while (typeof at === "object" && at !== null) {
      at = (at as { next: unknown }).next;
      depth++;
    }
    expect(depth).toBe(n);
  });

  it("revivers nested past maxDepth are a LimitError, not a stack overflow", () => {
    const n = 5000;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(`["W",${i + 1}]`);
    parts.push("0");
    expect(() => compat.parse(`[${parts.join(",")}]`, { W: (x: unknown) => [x] })).toThrow(LimitError);
  });

  it("a very sparse array's length is not walked", () => {
    const back = compat.parse("[[-7,4294967295,4294967294,1],true]") as unknown[];
    expect(back.length).toBe(4294967295);
    expect(back[4294967294]).toBe(true);
  });
});
