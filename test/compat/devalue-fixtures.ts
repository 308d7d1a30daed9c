/**
 * Values covering what devalue's own suite checks (its categories: primitives, boxed primitives,
 * built-ins, strings that need escaping, cycles, repetitions, XSS, null prototypes, cross-realm
 * objects, sparse arrays), written afresh for structura's compat/devalue tests.
 */

import vm from "node:vm";

const SIMPLE_RE = /r/;
const DANGEROUS_RE = /[</script><script>alert('xss')//]/;

export interface Fixture {
  name: string;
  make: () => unknown;
  /** devalue itself cannot write it (so no interop case from devalue's text). */
  devalueCannot?: boolean;
  /** structura's text writer refuses it (another realm's objects): uneval and reading only. */
  stringifyCannot?: boolean;
  /** What comes back, when it is not the value itself. */
  expected?: () => unknown;
}

const cyclicMap = () => {
  const m = new Map<unknown, unknown>();
  m.set("self", m);
  m.set(m, "key");
  return m;
};
const cyclicSet = () => {
  const s = new Set<unknown>();
  s.add(s);
  s.add(1);
  return s;
};
const cyclicArray = () => {
  const a: unknown[] = [1];
  a.push(a);
  return a;
};
const cyclicObject = () => {
  const o: Record<string, unknown> = { name: "o" };
  o.self = o;
  o.child = { parent: o };
  return o;
};
const cyclicNull = () => {
  const o = Object.create(null) as Record<string, unknown>;
  o.self = o;
  return o;
};
const interlinked = () => {
  const a = { name: "a" } as Record<string, unknown>;
  const b = { name: "b", a } as Record<string, unknown>;
  a.b = b;
  return new Map<unknown, unknown>([
    [a, b],
    [b, a],
  ]);
};

export const fixtures: Fixture[] = [
  { name: "positive integer", make: () => 42 },
  { name: "negative integer", make: () => -42 },
  { name: "decimals", make: () => [0.1, -0.1, 1e21, 5e-324, Number.MAX_VALUE] },
  { name: "NaN", make: () => Number.NaN },
  { name: "+Infinity", make: () => Number.POSITIVE_INFINITY },
  { name: "-Infinity", make: () => Number.NEGATIVE_INFINITY },
  { name: "zero", make: () => 0 },
  { name: "negative zero", make: () => -0 },
  { name: "zero then negative zero in an array", make: () => [0, -0] },
  { name: "string", make: () => "hello" },
  { name: "booleans", make: () => [true, false] },
  { name: "bigint", make: () => 12345678901234567890n },
  { name: "undefined", make: () => undefined },
  { name: "null", make: () => null },
  { name: "boxed numbers", make: () => [Object(1), Object(-1), Object(0.5), Object(Number.NaN), Object(-0)] },
  {
    name: "boxed infinities",
    make: () => [Object(Number.POSITIVE_INFINITY), Object(Number.NEGATIVE_INFINITY)],
  },
  { name: "boxed string, boolean, bigint", make: () => [Object("x"), Object(false), Object(7n)] },
  { name: "RegExp", make: () => /^a.b+$/gimsuy },
  { name: "Date", make: () => new Date(1_700_000_000_000) },
  { name: "invalid Date", make: () => new Date(Number.NaN), devalueCannot: true },
  { name: "Array", make: () => ["a", "b", "c"] },
  { name: "empty Array", make: () => [] },
  // biome-ignore lint/suspicious/noSparseArray: holes are the point
  { name: "sparse Array", make: () => [, "b", , ,] },
  {
    name: "very sparse Array",
    make: () => {
      const a: unknown[] = [];
      a[1_000_000] = "x";
      a[5] = "y";
      return a;
    },
  },
  { name: "Object", make: () => ({ foo: "bar", "x-y": 1, 1: "one" }) },
  { name: "Set", make: () => new Set([1, "two", { three: 3 }]) },
  {
    name: "Map",
    make: () =>
      new Map<unknown, unknown>([
        ["a", 1],
        [{ k: 1 }, [2]],
      ]),
  },
  { name: "Uint8Array", make: () => new Uint8Array([1, 2, 3]) },
  { name: "Float64Array with -0 and NaN", make: () => new Float64Array([-0, Number.NaN, 1.5]) },
  { name: "BigInt64Array", make: () => new BigInt64Array([1n, -2n]) },
  { name: "BigUint64Array", make: () => new BigUint64Array([2n ** 64n - 1n]) },
  { name: "ArrayBuffer", make: () => new Uint8Array([9, 8, 7]).buffer },
  { name: "DataView", make: () => new DataView(new Uint8Array([1, 2, 3, 4]).buffer) },
  { name: "DataView subview", make: () => new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2) },
  { name: "sliced typed array", make: () => new Uint16Array([1, 2, 3, 4]).subarray(1, 3) },
  { name: "URL", make: () => new URL("https://example.com/a?b=c#d") },
  { name: "URLSearchParams", make: () => new URLSearchParams("a=1&b=2&a=3") },
  { name: "newline, quotes, backslash", make: () => ["a\nb", 'say "hi"', "back\\slash", "tab\t"] },
  {
    name: "lone surrogates",
    make: () => ["\ud800", "\udc00", "\udc00\udc00", "\ud800\ud800", "\udc00\ud800"],
  },
  { name: "surrogate pair", make: () => "\ud83d\ude00" },
  { name: "control characters", make: () => ["\0", "\u0001", "\u001f", "\u007f"] },
  { name: "line and paragraph separators", make: () => ["\u2028", "\u2029", { "\u2028": "\u2029" }] },
  { name: "Map (cyclical)", make: cyclicMap },
  { name: "Set (cyclical)", make: cyclicSet },
  { name: "Array (cyclical)", make: cyclicArray },
  { name: "Object (cyclical)", make: cyclicObject },
  { name: "null-prototype object (cyclical)", make: cyclicNull },
  {
    name: "repetitions",
    make: () => {
      const o = { x: 1 };
      const re = SIMPLE_RE;
      const d = new Date(5);
      const buffer = new ArrayBuffer(8);
      const view = new Uint8Array(buffer, 2, 4);
      return [
        o,
        o,
        re,
        re,
        d,
        d,
        new Map(),
        new Map(),
        new Set(),
        buffer,
        view,
        view,
        new DataView(buffer, 1),
        "s",
        "s",
      ];
    },
  },
  { name: "Map keys (interlinked)", make: interlinked },
  {
    name: "dangerous string",
    make: () => "</script><script src='https://evil.example/x.js'>alert('pwned')</script>",
  },
  { name: "dangerous key", make: () => ({ '<svg onload=alert("xss")>': "</script>" }) },
  { name: "dangerous regex", make: () => DANGEROUS_RE },
  { name: "HTML comment opener", make: () => "<!-- </SCRIPT " },
  { name: "object without prototype", make: () => Object.create(null) },
  {
    name: "null-prototype object with keys",
    make: () => Object.assign(Object.create(null), { a: 1, b: [2] }),
  },
  {
    name: "cross-realm POJO",
    make: () => vm.runInNewContext("({ a: 1, b: [1, 2] })"),
    stringifyCannot: true,
  },
  {
    name: "non-enumerable symbolic key",
    make: () => {
      const o = { x: 1 };
      Object.defineProperty(o, Symbol("k"), { value: 1, enumerable: false });
      return o;
    },
    expected: () => ({ x: 1 }),
  },
  { name: "deep nesting (chain of 5,000)", make: () => chain(5000), devalueCannot: true },
];

export function chain(n: number): unknown {
  let v: unknown = { end: true };
  for (let i = 0; i < n; i++) v = { next: v };
  return v;
}
