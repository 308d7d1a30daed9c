/**
 * compat/ungap's `structuredClone(value, { json | lossy })` copies in one walk (src/compat/ungap/lossy.ts)
 * what the text writer's lenient mode writes and the text reader reads back, which is what it did
 * before and what `deserialize(serialize(value, options))` still does. Each case runs both and compares
 * the results, the order in which user code (getters, toJSON) ran, and the errors thrown.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import structuredClone, { deserialize, serialize } from "../../src/compat/ungap/index.ts";
import { DataCloneError } from "../../src/core/errors.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { fuzzIt } from "../helpers/fuzz.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 100;

type Options = { json?: boolean; lossy?: boolean };
const MODES: [string, Options][] = [
  ["lossy", { lossy: true }],
  ["json", { json: true }],
];

/** The value, and what user code ran, through the walk and through serialize + deserialize. */
function both(make: () => unknown, options: Options) {
  // One value for both (neither writes to it): its errors' stacks are the same strings.
  const value = make();
  const run = (copy: (value: unknown) => unknown) => {
    const log: string[] = [];
    (globalThis as { __log?: string[] }).__log = log;
    let out: unknown;
    let error: unknown;
    try {
      out = copy(value);
    } catch (e) {
      error = e;
    }
    return { out, error, log };
  };
  const walked = run((v) => structuredClone(v, options));
  const viaTree = run((v) => deserialize(serialize(v, options)));
  return { walked, viaTree };
}

function same(make: () => unknown, options: Options) {
  const { walked, viaTree } = both(make, options);
  expect(walked.error === undefined, String(walked.error ?? viaTree.error)).toBe(viaTree.error === undefined);
  if (viaTree.error !== undefined) {
    expect((walked.error as Error).constructor).toBe((viaTree.error as Error).constructor);
    return;
  }
  expectSameStructure(walked.out, viaTree.out);
  expect(walked.log).toEqual(viaTree.log);
}

const log = (what: string) => (globalThis as { __log?: string[] }).__log?.push(what);

/** Values that meet every rule of the lenient writer. */
const cases: [string, () => unknown][] = [
  [
    "functions and symbols in objects, arrays, Maps, Sets",
    () => ({
      f() {},
      s: Symbol("s"),
      list: [1, () => {}, Symbol(), 2],
      map: new Map<unknown, unknown>([
        ["f", () => {}],
        [() => {}, 1],
        ["k", "v"],
        [Symbol(), Symbol()],
      ]),
      set: new Set([1, () => {}, Symbol(), 2]),
    }),
  ],
  [
    "sparse arrays, holes with extra properties, functions in them",
    () => {
      // biome-ignore lint/suspicious/noSparseArray: holes on purpose
      const holes = [1, , () => {}, , { a: 1 }];
      const extra: unknown[] & { x?: unknown; f?: unknown } = [1, 2, 3];
      extra.x = { y: 1 };
      extra.f = () => {};
      // A hole made up for by an extra property: the key count equals the length.
      const hidden: unknown[] & { z?: number } = [1, () => {}, 3];
      delete hidden[2];
      hidden.z = 1;
      const long: unknown[] = [];
      long.length = 2 ** 31;
      long[7] = "seven";
      return { holes, extra, hidden, long };
    },
  ],
  [
    "toJSON in every kind of holder",
    () => {
      const j = (tag: string) => ({
        toJSON() {
          log(`toJSON ${tag}`);
          return { tag };
        },
      });
      const bare = Object.assign(Object.create(null), { inNull: j("null-proto") });
      class Holder {
        inClass = j("class");
      }
      const sparse: unknown[] = [j("sparse")];
      sparse[5] = j("sparse5");
      const error = Object.assign(new Error("e", { cause: j("cause") }), { prop: j("error prop") });
      return {
        plain: j("plain"),
        list: [j("dense"), { deep: j("deep") }],
        bare,
        holder: new Holder(),
        sparse,
        map: new Map([[j("map key"), j("map value")]]),
        set: new Set([j("set")]),
        error,
        undef: {
          toJSON() {
            return undefined;
          },
        },
        date: new Date(0),
      };
    },
  ],
  [
    "refused kinds become their own enumerable properties",
    () => {
      const weak = Object.assign(new WeakMap(), { a: 1 });
      const promise = Object.assign(Promise.resolve(1), { b: [2] });
      const detached = new ArrayBuffer(8);
      const view = Object.assign(new Uint8Array(detached), { own: 1 });
      globalThis.structuredClone(undefined, { transfer: [detached] });
      const blob = new Blob(["x"]);
      return { weak, promise, detached, view, blob, proxy: new Proxy({ p: 1 }, {}) };
    },
  ],
  [
    "errors whole: names, classes, causes, properties, functions in their slots",
    () => {
      const e = Object.assign(new TypeError("t", { cause: () => {} }), {
        name: "Custom",
        extra: [1],
        f() {},
      });
      e.stack = "S";
      const agg = new AggregateError([e, () => {}], "agg", { cause: e });
      const bare = new RangeError();
      Object.defineProperty(bare, "stack", { value: undefined });
      class MyError extends SyntaxError {}
      return {
        e,
        agg,
        bare,
        mine: new MyError("m"),
        self: Object.assign(new Error("s"), { me: null as unknown }),
      };
    },
  ],
  [
    "views share their buffer; resizable and growable buffers; tracking views",
    () => {
      const buffer = new ArrayBuffer(16);
      const resizable = new (ArrayBuffer as unknown as new (n: number, o: object) => ArrayBuffer)(8, {
        maxByteLength: 32,
      });
      const shared = new (SharedArrayBuffer as unknown as new (n: number, o: object) => SharedArrayBuffer)(
        8,
        {
          maxByteLength: 16,
        },
      );
      return [
        new Uint8Array(buffer, 2, 4),
        new DataView(buffer, 1),
        buffer,
        new Float64Array(resizable),
        new DataView(resizable, 2),
        new Int16Array(shared),
        new BigInt64Array(2),
      ];
    },
  ],
  [
    "leaves: dates, regexps, boxed primitives, URL, DOMException, -0, NaN, BigInt",
    () => [
      new Date(Number.NaN),
      new Date(5),
      /a+/gimsuy,
      Object(false),
      Object(-0),
      Object(""),
      Object(10n),
      new URL("https://example.com/a?b=1#c"),
      new URLSearchParams("a=1&b=2"),
      new DOMException("m", "AbortError"),
      -0,
      Number.NaN,
      10n ** 30n,
      undefined,
    ],
  ],
  [
    "__proto__, constructor and prototype keys; getters run once, in order",
    () => {
      const o = JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":1}}');
      return {
        o,
        get first() {
          log("first");
          return {
            get inner() {
              log("inner");
              return 1;
            },
          };
        },
        get second() {
          log("second");
          return 2;
        },
      };
    },
  ],
  [
    "null prototypes, empty and not, and class instances",
    () => {
      class Point {
        x = 1;
        f = () => {};
        get y() {
          return 2;
        }
      }
      return [Object.create(null), Object.assign(Object.create(null), { a: () => {}, b: 1 }), new Point()];
    },
  ],
  [
    "shared references and cycles through every container",
    () => {
      const shared = { s: 1 };
      const root: Record<string, unknown> = { a: shared, b: [shared], m: new Map([[shared, shared]]) };
      root.self = root;
      root.set = new Set([root, shared]);
      root.error = Object.assign(new Error("x"), { back: root });
      return root;
    },
  ],
  [
    "nesting 20,000 deep, through objects, arrays, Maps and errors",
    () => {
      let v: unknown = { end: () => {} };
      for (let i = 0; i < 20_000; i++) {
        switch (i % 4) {
          case 0:
            v = { v };
            break;
          case 1:
            v = [v, () => {}];
            break;
          case 2:
            v = new Map([["v", v]]);
            break;
          default:
            v = new Error("e", { cause: v });
        }
      }
      return v;
    },
  ],
];

describe("compat/ungap structuredClone with options: the walk gives what serialize + deserialize gives", () => {
  for (const [mode, options] of MODES) {
    for (const [name, make] of cases) {
      it(`${mode}: ${name}`, () => same(make, options));
    }

    it(`${mode}: the shared fixtures`, () => {
      for (const f of fixtures) {
        try {
          same(f.make, options);
        } catch (error) {
          throw new Error(`fixture ${f.name}: ${(error as Error).message}`);
        }
      }
    });

    // Parts of at most 500 runs, each after a macrotask (test/helpers/fuzz.ts): `npm run fuzz` runs more.
    fuzzIt(`${mode}: generated values with functions and symbols anywhere`, RUNS, (numRuns) => {
      const leaf = fc.oneof(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
          withBoxedValues: true,
        }),
        fc.constant(() => {}),
        fc.constant(Symbol("x")),
      );
      const value = fc.letrec((tie) => ({
        node: fc.oneof(
          { depthSize: "small" },
          leaf,
          fc.array(tie("node")),
          fc.dictionary(fc.string(), tie("node")),
          fc.array(fc.tuple(tie("node"), tie("node"))).map((entries) => new Map(entries)),
          fc.array(tie("node")).map((items) => new Set(items)),
        ),
      })).node;
      fc.assert(
        fc.property(value, (v) => {
          same(() => v, options);
        }),
        { numRuns },
      );
    });
  }

  it("a Map entry left out (its value is a function) whose key object is met again elsewhere", () => {
    // The text writer numbers the key object, then drops the entry with its node, so the tree refers to
    // an object it does not hold (serialize + deserialize: a DecodeError, "A deferral point has no entry
    // left"): a writer matter, src/text/writer.ts. The walk copies the key where it is met again.
    const key = { k: 1 };
    for (const [, options] of MODES) {
      const out = structuredClone({ map: new Map([[key, () => {}]]), key }, options);
      expect(out.map.size).toBe(0);
      expect(out.key).toEqual({ k: 1 });
      expect(out.key).not.toBe(key);
    }
  });

  it("the root: a function or symbol is null, json calls the root's toJSON", () => {
    expect(structuredClone(() => {}, { lossy: true })).toBe(null);
    expect(structuredClone(Symbol(), { json: true })).toBe(null);
    expect(structuredClone({ toJSON: () => [1] }, { json: true })).toEqual([1]);
  });

  it("with both options false it is the structured clone algorithm", () => {
    expect(() => structuredClone({ f() {} }, { lossy: false })).toThrow(DataCloneError);
    const date = new Date(1);
    expect(structuredClone(date, { json: false })).toEqual(date);
  });
});
