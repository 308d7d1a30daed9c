/**
 * Property tests: arbitrary cloneable graphs (every structured-clone type, holes, extra and hidden
 * properties, getters, shared buffers, then random extra references that create sharing and cycles)
 * must clone exactly as the native `structuredClone` clones them.
 *
 * fast-check generates a plain *description* of a graph; each run builds a fresh graph from it, so
 * shrinking works on data and a counterexample prints as a readable description.
 *
 * Runs: `FUZZ_RUNS` (default 200, which keeps the default test run fast).
 */

import fc from "fast-check";
import { describe } from "vitest";
import { clone } from "../../src/index.ts";
import { expectNoSharing, expectSameStructure } from "../helpers/equal.ts";
import { fuzzIt } from "../helpers/fuzz.ts";
import { nativeCompareOptions } from "../helpers/runtime.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 200;
/** Per-test time limit that grows with the run count (Bun's default is 5 s). */
const TIMEOUT = Math.max(30_000, RUNS * 40);

// ---------------------------------------------------------------------------------------------------
// Descriptions

type Prim = undefined | null | boolean | number | bigint | string;

type Desc =
  | { t: "prim"; v: Prim }
  | { t: "date"; v: number }
  | { t: "regexp"; source: string; flags: string; lastIndex: number }
  | { t: "boxed"; v: number | string | boolean | bigint }
  | { t: "buffer"; bytes: number[]; max: number | null; shared: boolean }
  | {
      t: "view";
      type: string;
      bytes: number[];
      reuse: number | null;
      offset: number;
      length: number;
      tracking: boolean;
    }
  | { t: "error"; ctor: string; message: string | null; cause: Desc | null }
  | { t: "array"; items: (Desc | null)[]; extraLength: number; extra: Entry[] }
  | { t: "object"; entries: Entry[]; proto: "object" | "null" | "class" }
  | { t: "map"; entries: [Desc, Desc][] }
  | { t: "set"; items: Desc[] };

interface Entry {
  key: string;
  value: Desc;
  /** How the property is defined on the source. */
  as: "data" | "getter" | "hidden" | "symbol";
}

interface Link {
  from: number;
  to: number;
  key: string;
}

interface Graph {
  root: Desc;
  links: Link[];
}

const TYPED_ARRAYS = [
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
  "Float16Array",
  "DataView",
].filter((name) => typeof (globalThis as Record<string, unknown>)[name] === "function");

const INDEX = /^(?:0|[1-9]\d*)$/;

const ERRORS = ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];

// ---------------------------------------------------------------------------------------------------
// Arbitraries

const stringArb = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom("", "\ud800", "a\udc00b", "\u{1F600}", "__proto__", "\u2028"),
);

const keyArb = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("__proto__", "constructor", "0", "1", "10", "length", "", "a b", "-1"),
  },
);

const primArb: fc.Arbitrary<Prim> = fc.oneof(
  fc.constantFrom<Prim>(
    undefined,
    null,
    true,
    false,
    0,
    -0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n }),
  stringArb,
);

const bytesArb = fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 24 });

const leafArb: fc.Arbitrary<Desc> = fc.oneof(
  { weight: 6, arbitrary: primArb.map((v): Desc => ({ t: "prim", v })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.constant(Number.NaN))
      .map((v): Desc => ({ t: "date", v })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        source: fc.constantFrom("a", "[a-z]+", "\\d*", "(?:x|y)", "", "\\/", "\\u{1F600}", "^\\p{L}$"),
        flags: fc.subarray(["d", "g", "i", "m", "s", "y"]).map((f) => f.join("")),
        unicode: fc.constantFrom("u", "v"),
        lastIndex: fc.nat(10),
      })
      .map(
        (r): Desc => ({ t: "regexp", source: r.source, flags: r.flags + r.unicode, lastIndex: r.lastIndex }),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.double(), stringArb, fc.boolean(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }))
      .map((v): Desc => ({ t: "boxed", v })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        bytes: bytesArb,
        max: fc.option(fc.integer({ min: 24, max: 64 }), { nil: null }),
        shared: fc.boolean(),
      })
      .map((b): Desc => ({ t: "buffer", ...b })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        type: fc.constantFrom(...TYPED_ARRAYS),
        bytes: bytesArb,
        reuse: fc.option(fc.nat(), { nil: null }),
        offset: fc.nat(),
        length: fc.nat(),
        tracking: fc.boolean(),
      })
      .map((v): Desc => ({ t: "view", ...v })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        ctor: fc.constantFrom(...ERRORS),
        message: fc.option(stringArb, { nil: null }),
        // Causes are primitives or errors: a cause that could lead back to its Error makes V8's own
        // deserializer fail ("Unable to deserialize cloned data"), see the fixture "Error whose cause is itself".
        cause: fc.option(
          fc.oneof(
            primArb.map((v): Desc => ({ t: "prim", v })),
            fc
              .record({ message: stringArb })
              .map((e): Desc => ({ t: "error", ctor: "Error", message: e.message, cause: null })),
          ),
          { nil: null },
        ),
      })
      .map((e): Desc => ({ t: "error", ...e })),
  },
);

const tree = fc.letrec<{ node: Desc; array: Desc; object: Desc; map: Desc; set: Desc; entry: Entry }>(
  (tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 4, arbitrary: leafArb },
      { weight: 2, arbitrary: tie("array") },
      { weight: 2, arbitrary: tie("object") },
      { weight: 1, arbitrary: tie("map") },
      { weight: 1, arbitrary: tie("set") },
    ),
    entry: fc.record({
      key: keyArb,
      value: tie("node"),
      as: fc.constantFrom<Entry["as"]>("data", "data", "data", "data", "getter", "hidden", "symbol"),
    }),
    array: fc
      .record({
        items: fc.array(fc.option(tie("node"), { nil: null, freq: 6 }), { maxLength: 6 }),
        extraLength: fc.constantFrom(0, 0, 0, 2),
        extra: fc.array(tie("entry"), { maxLength: 2 }),
      })
      .map((a): Desc => ({ t: "array", ...a })),
    object: fc
      .record({
        entries: fc.array(tie("entry"), { maxLength: 6 }),
        proto: fc.constantFrom<"object" | "null" | "class">("object", "object", "object", "null", "class"),
      })
      .map((o): Desc => ({ t: "object", ...o })),
    map: fc
      .array(fc.tuple(tie("node"), tie("node")), { maxLength: 4 })
      .map((entries): Desc => ({ t: "map", entries })),
    set: fc.array(tie("node"), { maxLength: 4 }).map((items): Desc => ({ t: "set", items })),
  }),
);

/** A graph: mostly rooted at a container, plus extra references added once it is built. */
const graphArb: fc.Arbitrary<Graph> = fc
  .oneof(tree.node, tree.object, tree.array, tree.object, tree.array, tree.map, tree.set)
  .chain((root) =>
    fc
      .array(fc.record({ from: fc.nat(), to: fc.nat(), key: keyArb }), { maxLength: 6 })
      .map((links): Graph => ({ root, links })),
  );

// ---------------------------------------------------------------------------------------------------
// Building a fresh graph from a description

class Instance {}

type ViewCtor = new (buffer: ArrayBufferLike, byteOffset?: number, length?: number) => ArrayBufferView;

interface Built {
  root: unknown;
  containers: object[];
  objects: object[];
}

function define(target: object, key: PropertyKey, value: unknown, enumerable = true): void {
  Object.defineProperty(target, key, { value, enumerable, writable: true, configurable: true });
}

function build(graph: Graph): unknown {
  const state: Built = { root: undefined, containers: [], objects: [] };
  const buffers: ArrayBufferLike[] = [];

  const makeBuffer = (bytes: number[], max: number | null, shared: boolean): ArrayBufferLike => {
    const options = max === null ? undefined : { maxByteLength: Math.max(max, bytes.length) };
    const Ctor = (shared ? SharedArrayBuffer : ArrayBuffer) as unknown as new (
      n: number,
      o?: { maxByteLength: number },
    ) => ArrayBufferLike;
    const buffer = options === undefined ? new Ctor(bytes.length) : new Ctor(bytes.length, options);
    new Uint8Array(buffer).set(bytes);
    buffers.push(buffer);
    return buffer;
  };

  const node = (d: Desc): unknown => {
    let made: object;
    switch (d.t) {
      case "prim":
        return d.v;
      case "date":
        made = new Date(d.v);
        break;
      case "regexp":
        made = new RegExp(d.source, d.flags);
        (made as RegExp).lastIndex = d.lastIndex;
        break;
      case "boxed":
        made = Object(d.v) as object;
        break;
      case "buffer":
        made = makeBuffer(d.bytes, d.max, d.shared);
        break;
      case "view": {
        const Ctor = (globalThis as unknown as Record<string, ViewCtor>)[d.type]!;
        const size =
          d.type === "DataView" ? 1 : (Ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
        const buffer =
          d.reuse !== null && buffers.length > 0
            ? buffers[d.reuse % buffers.length]!
            : makeBuffer(d.bytes, d.tracking ? d.bytes.length + 16 : null, false);
        const capacity = Math.floor(buffer.byteLength / size);
        const offset = d.offset % (capacity + 1);
        const resizable = (buffer as { resizable?: boolean; growable?: boolean }).resizable === true;
        // V8 refuses a length-tracking view whose buffer is not a whole number of elements.
        if (d.tracking && resizable && buffer.byteLength % size === 0) made = new Ctor(buffer, offset * size);
        else made = new Ctor(buffer, offset * size, d.length % (capacity - offset + 1));
        break;
      }
      case "error": {
        const Ctor = (globalThis as unknown as Record<string, ErrorConstructor>)[d.ctor]!;
        const options = d.cause === null ? undefined : { cause: node(d.cause) };
        made = d.message === null ? new Ctor(undefined, options) : new Ctor(d.message, options);
        break;
      }
      case "array": {
        const array: unknown[] = [];
        state.containers.push(array);
        state.objects.push(array);
        for (let i = 0; i < d.items.length; i++) {
          const item = d.items[i]!;
          if (item !== null) array[i] = node(item);
        }
        array.length = d.items.length + d.extraLength;
        for (const entry of d.extra) if (!INDEX.test(entry.key) && entry.key !== "length") put(array, entry);
        return array;
      }
      case "object": {
        const proto =
          d.proto === "object" ? Object.prototype : d.proto === "null" ? null : Instance.prototype;
        const object = Object.create(proto) as object;
        state.containers.push(object);
        state.objects.push(object);
        for (const entry of d.entries) put(object, entry);
        return object;
      }
      case "map": {
        const map = new Map<unknown, unknown>();
        state.containers.push(map);
        state.objects.push(map);
        for (const [k, v] of d.entries) map.set(node(k), node(v));
        return map;
      }
      case "set": {
        const set = new Set<unknown>();
        state.containers.push(set);
        state.objects.push(set);
        for (const item of d.items) set.add(node(item));
        return set;
      }
    }
    state.objects.push(made);
    return made;
  };

  const put = (target: object, entry: Entry): void => {
    const value = node(entry.value);
    switch (entry.as) {
      case "data":
        define(target, entry.key, value);
        break;
      case "hidden":
        define(target, entry.key, value, false);
        break;
      case "symbol":
        define(target, Symbol(entry.key), value);
        break;
      case "getter":
        Object.defineProperty(target, entry.key, { get: () => value, enumerable: true, configurable: true });
        break;
    }
  };

  const root = node(graph.root);
  // Extra references: sharing, and cycles whenever the target is an ancestor of the container.
  if (state.containers.length > 0 && state.objects.length > 0) {
    for (const link of graph.links) {
      const from = state.containers[link.from % state.containers.length]!;
      const to = state.objects[link.to % state.objects.length]!;
      if (Array.isArray(from)) from.push(to);
      else if (from instanceof Map) from.set(link.to % 2 === 0 ? link.key : to, to);
      else if (from instanceof Set) from.add(to);
      else define(from, link.key, to);
    }
  }
  return root;
}

// ---------------------------------------------------------------------------------------------------

describe(`property: clone agrees with native structuredClone (${RUNS} runs)`, () => {
  fuzzIt(
    "arbitrary graphs with sharing and cycles",
    RUNS,
    (numRuns) => {
      fc.assert(
        fc.property(graphArb, (graph) => {
          const source = build(graph);
          const expected = structuredClone(source);
          const actual = clone(source);
          expectSameStructure(actual, expected, nativeCompareOptions());
          expectNoSharing(source, actual);
        }),
        { numRuns },
      );
    },
    TIMEOUT,
  );

  fuzzIt(
    "the same graph cloned twice (warm per-shape caches) gives equal, independent copies",
    Math.max(1, Math.floor(RUNS / 2)),
    (numRuns) => {
      fc.assert(
        fc.property(graphArb, (graph) => {
          const source = build(graph);
          const first = clone(source);
          const second = clone(source);
          expectSameStructure(second, first);
          expectNoSharing(first, second);
        }),
        { numRuns },
      );
    },
    TIMEOUT,
  );

  fuzzIt(
    "arrays of same-shape flat objects, with duplicates and shared elements",
    RUNS,
    (numRuns) => {
      const flat = fc.record({
        keys: fc.uniqueArray(keyArb, { maxLength: 5 }),
        count: fc.integer({ min: 1, max: 40 }),
      });
      fc.assert(
        fc.property(
          flat,
          fc.array(primArb, { minLength: 5, maxLength: 5 }),
          fc.array(fc.nat(), { maxLength: 4 }),
          (shape, values, dups) => {
            const items: object[] = [];
            for (let i = 0; i < shape.count; i++) {
              const o = {};
              for (let k = 0; k < shape.keys.length; k++) define(o, shape.keys[k]!, k === 0 ? i : values[k]);
              items.push(o);
            }
            const source: unknown[] = [...items];
            for (const d of dups) source.push(items[d % items.length]);
            const holder = { source, first: items[0] };
            expectSameStructure(clone(holder), structuredClone(holder), nativeCompareOptions());
          },
        ),
        { numRuns },
      );
    },
    TIMEOUT,
  );
});
