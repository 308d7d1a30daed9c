/**
 * Golden vectors: the exact text version 3 writes for a set of values (test/vectors/text/v3.json). An
 * accidental format change fails here; a deliberate one bumps the version and adds a new vector file.
 * Regenerate (only for a new version!) with UPDATE_VECTORS=1. The version 2 vectors (v2.json, written
 * by the version 2 writer) must still read back to their values.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "../../src/text/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { errorVectors } from "../vectors/errors.ts";

const FILE = new URL("../vectors/text/v3.json", import.meta.url);
const FILE_V2 = new URL("../vectors/text/v2.json", import.meta.url);

function cyclic(): unknown {
  const a: Record<string, unknown> = { name: "a" };
  a.self = a;
  a.list = [a, { back: a }];
  return a;
}

const vectors: Record<string, () => unknown> = {
  undefined: () => undefined,
  null: () => null,
  true: () => true,
  integer: () => 42,
  float: () => 1.5,
  "negative zero": () => -0,
  NaN: () => Number.NaN,
  infinities: () => [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
  string: () => "hi \u2028 </script>",
  "long string repeated": () => ["x".repeat(64), "x".repeat(64)],
  bigint: () => -(2n ** 70n),
  "array with leading string": () => ["a", "b", 1],
  "empty containers": () => [[], {}],
  "records share a shape": () => [
    { id: 1, name: "a" },
    { id: 2, name: "b" },
  ],
  "wide records share a shape": () =>
    [1, 2].map((id) => ({ id, a: "a", b: true, c: null, d: 1.5, e: undefined, f: [id], __proto__x: id })),
  "__proto__ key": () => JSON.parse('{"__proto__":1}'),
  "__proto__ key in a shape": () =>
    JSON.parse('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"__proto__":8}') as Record<string, number>,
  "null prototype": () => Object.assign(Object.create(null), { a: 1 }),
  "sparse array with extra key": () => {
    const a = [1, 2, 3];
    delete a[1];
    return Object.assign(a, { extra: true });
  },
  "date and invalid date": () => [new Date(86_400_000), new Date(Number.NaN)],
  regexp: () => /a\/b/gi,
  "boxed primitives": () => [Object(false), Object(-0), Object("s"), Object(5n)],
  "map and set": () => new Map<unknown, unknown>([["k", new Set([1, "x"])]]),
  "buffer and views": () => {
    const buffer = new Uint8Array([1, 2, 3, 4]).buffer;
    return [buffer, new Uint16Array(buffer, 2, 1), new DataView(buffer, 1)];
  },
  "error with cause": () => {
    // Built in the order a reader rebuilds one (construct, set the stack, then define the cause): JSC
    // materializes an error's line, column and sourceURL properties on first touch, so with
    // `{ cause }` in the constructor they would come after the cause and the own keys would differ.
    const e = new RangeError("bad");
    e.stack = "RangeError: bad\n    at x";
    Object.defineProperty(e, "cause", { value: 1, writable: true, enumerable: false, configurable: true });
    return e;
  },
  url: () => [new URL("https://example.com/?q=1"), new URLSearchParams("a=1&b=2")],
  "cycle and sharing": cyclic,
  "strings starting with the sigil": () => [
    "~",
    "~u",
    "~1",
    "~~",
    `~${"x".repeat(70)}`,
    `~${"x".repeat(70)}`,
  ],
  "records with undefined members": () => [
    { a: 1, b: undefined },
    { a: 2, b: undefined },
    { a: 3, b: 4 },
  ],
  "empty null-prototype objects": () => [Object.create(null), { meta: Object.create(null) }],
  "nesting past the deferral depth": () => {
    let list: unknown = null;
    for (let i = 0; i < 70; i++) list = i % 2 === 0 ? { i, next: list } : [i, list];
    return list;
  },
};

/** Version 3 adds errors kept whole (the "Error+" node). */
const vectorsV3: Record<string, () => unknown> = { ...vectors, ...errorVectors };

describe("text: golden vectors (format version 3)", () => {
  if (process.env.UPDATE_VECTORS === "1") {
    const out: Record<string, string> = {};
    for (const [name, make] of Object.entries(vectorsV3)) out[name] = stringify(make());
    writeFileSync(FILE, `${JSON.stringify(out, null, 2)}\n`);
  }
  const golden = JSON.parse(readFileSync(FILE, "utf8")) as Record<string, string>;

  it("covers every vector", () => {
    expect(Object.keys(golden).sort()).toEqual(Object.keys(vectorsV3).sort());
  });

  for (const [name, make] of Object.entries(vectorsV3)) {
    it(name, () => {
      const text = golden[name]!;
      expect(stringify(make())).toBe(text);
      expectSameStructure(parse(text), parse(stringify(make())));
      expectSameStructure(parse(text), make(), { compareStacks: true });
    });
  }
});

describe("text: version 2 vectors still read", () => {
  const golden = JSON.parse(readFileSync(FILE_V2, "utf8")) as Record<string, string>;

  it("covers every version 2 vector", () => {
    expect(Object.keys(golden).sort()).toEqual(Object.keys(vectors).sort());
  });

  for (const [name, make] of Object.entries(vectors)) {
    it(name, () => {
      const text = golden[name]!;
      expect(text.startsWith('["structura:2",')).toBe(true);
      expectSameStructure(parse(text), make(), { compareStacks: true });
    });
  }

  it("a version 2 text holding an Error+ node is refused (that node is version 3's)", () => {
    const text = '["structura:2",[],["Error+","Error","N","m",null,0]]';
    expect(() => parse(text)).toThrow(expect.objectContaining({ code: "ERR_UNKNOWN_TAG" }));
    expect(parse(text.replace("structura:2", "structura:3"))).toMatchObject({ name: "N", message: "m" });
  });
});
