/**
 * What the algorithm uses from the realm and from the host: intrinsics captured once (a global deleted
 * later changes nothing), platform objects that are not ordinary objects (never copied as records), and
 * user code (getters) run exactly as often as the native clone runs it. Node's own platform objects
 * (KeyObject, BlockList, ...) are in ./node-objects.test.ts, which only Node and Bun run.
 */

import { describe, expect, it } from "vitest";
import { type Clone, caught, conform, expectThrowsDom, native, runtime, structura } from "./support.ts";

/** Each global the algorithm builds with, and a value whose clone needs it. */
const INTRINSICS: [string, () => unknown, (copy: unknown, saved: unknown) => void][] = [
  ["Blob", () => new Blob(["x"]), (c, C) => expect(c instanceof (C as typeof Blob)).toBe(true)],
  [
    "File",
    () => new File(["x"], "f.txt"),
    (c, C) => expect(c instanceof (C as typeof Blob)).toBe(runtime === "bun" || (c as File).name === "f.txt"),
  ],
  ["Map", () => new Map([[1, 2]]), (c, C) => expect(c instanceof (C as typeof Map)).toBe(true)],
  ["Set", () => new Set([1]), (c, C) => expect(c instanceof (C as typeof Set)).toBe(true)],
  ["Date", () => new Date(5), (c, C) => expect(c instanceof (C as typeof Date)).toBe(true)],
  ["RegExp", () => /x/g, (c, C) => expect(c instanceof (C as typeof RegExp)).toBe(true)],
  [
    "ArrayBuffer",
    () => new ArrayBuffer(2),
    (c, C) => expect(c instanceof (C as typeof ArrayBuffer)).toBe(true),
  ],
  [
    "DataView",
    () => new DataView(new ArrayBuffer(2)),
    (c, C) => expect(c instanceof (C as typeof DataView)).toBe(true),
  ],
  [
    "Uint8Array",
    () => new Uint8Array([1, 2]),
    (c, C) => expect(c instanceof (C as typeof Uint8Array)).toBe(true),
  ],
  [
    "Float64Array",
    () => new Float64Array([0.5]),
    (c, C) => expect(c instanceof (C as typeof Float64Array)).toBe(true),
  ],
  [
    "BigInt64Array",
    () => new BigInt64Array([1n]),
    (c, C) => expect(c instanceof (C as typeof BigInt64Array)).toBe(true),
  ],
  ["TypeError", () => new TypeError("t"), (c, C) => expect(c instanceof (C as typeof TypeError)).toBe(true)],
  ["Error", () => new Error("e"), (c, C) => expect(c instanceof (C as typeof Error)).toBe(true)],
  ["Boolean", () => new Boolean(true), (c, C) => expect(c instanceof (C as typeof Boolean)).toBe(true)],
  ["Number", () => new Number(1), (c, C) => expect(c instanceof (C as typeof Number)).toBe(true)],
  ["String", () => new String("s"), (c, C) => expect(c instanceof (C as typeof String)).toBe(true)],
  ["Array", () => [1, [2]], (c, C) => expect((C as typeof Array).isArray(c)).toBe(true)],
];

describe("intrinsics are the realm's, captured at load", () => {
  for (const [name, make, verify] of INTRINSICS) {
    conform(`${name} deleted from the global: the clone is still made`, (impl) => {
      const value = make();
      const g = globalThis as Record<string, unknown>;
      const saved = g[name];
      let copy: unknown;
      delete g[name];
      try {
        copy = impl(value);
      } finally {
        g[name] = saved;
      }
      verify(copy, saved);
    });
  }
  conform("DOMException deleted from the global: refusals are still DOMExceptions", (impl) => {
    const g = globalThis as Record<string, unknown>;
    const saved = g.DOMException;
    let error: unknown;
    delete g.DOMException;
    try {
      error = caught(() => impl(() => 1));
    } finally {
      g.DOMException = saved;
    }
    expect((error as DOMException).constructor).toBe(saved);
    expect((error as DOMException).name).toBe("DataCloneError");
  });
  conform("a replaced global constructor is not called", (impl) => {
    const g = globalThis as Record<string, unknown>;
    const saved = g.Map;
    let called = false;
    g.Map = function FakeMap() {
      called = true;
    };
    let copy: unknown;
    try {
      copy = impl(new (saved as MapConstructor)([[1, 1]]));
    } finally {
      g.Map = saved;
    }
    expect(called).toBe(false);
    expect(copy instanceof (saved as MapConstructor)).toBe(true);
  });
});

/** Runs `clone` with `impl` on a value made fresh, counting the reads its getters report. */
function countReads(impl: Clone, make: (count: () => void) => unknown): number {
  let reads = 0;
  const value = make(() => {
    reads++;
  });
  try {
    impl(value);
  } catch {
    // the count is what matters
  }
  return reads;
}

const GETTER_CASES: [string, (count: () => void) => unknown][] = [
  [
    "an index getter in an array of 9 primitives",
    (count) => {
      const a = [1, 2, 3, 4, 5, 6, 7, 8, 9];
      Object.defineProperty(a, 3, {
        get() {
          count();
          return 4;
        },
        enumerable: true,
        configurable: true,
      });
      return a;
    },
  ],
  [
    "an index getter in an array of 100 primitives",
    (count) => {
      const a = Array.from({ length: 100 }, (_, i) => i);
      Object.defineProperty(a, 99, {
        get() {
          count();
          return "last";
        },
        enumerable: true,
        configurable: true,
      });
      return a;
    },
  ],
  [
    "an own Symbol.toStringTag getter on a class instance",
    (count) => {
      class Plain {
        v = 1;
      }
      const p = new Plain();
      Object.defineProperty(p, Symbol.toStringTag, {
        get() {
          count();
          return "Custom";
        },
      });
      return p;
    },
  ],
  [
    "a Symbol.toStringTag getter on a class, and an own getter on its instance",
    (count) => {
      class Tagged {
        get [Symbol.toStringTag](): string {
          count();
          return "Tagged";
        }
      }
      const t = new Tagged();
      Object.defineProperty(t, "x", {
        get() {
          count();
          return 1;
        },
        enumerable: true,
      });
      return { list: [t, t] };
    },
  ],
  [
    "a class with a Symbol.toStringTag data property and an own getter",
    (count) => {
      class Named {
        declare [Symbol.toStringTag]: string;
      }
      Object.defineProperty(Named.prototype, Symbol.toStringTag, { value: "Named" });
      const n = new Named();
      Object.defineProperty(n, "x", {
        get() {
          count();
          return 1;
        },
        enumerable: true,
      });
      return n;
    },
  ],
  [
    "a Symbol.toStringTag getter on a null-prototype object",
    (count) => {
      const o = Object.create(null);
      Object.defineProperty(o, Symbol.toStringTag, {
        get() {
          count();
          return "Z";
        },
      });
      o.a = 1;
      return o;
    },
  ],
  [
    "a Symbol.toStringTag getter on a plain object without own keys",
    (count) =>
      Object.defineProperty({}, Symbol.toStringTag, {
        get() {
          count();
          return "Q";
        },
      }),
  ],
];

describe("getters run exactly as often as natively", () => {
  for (const [name, make] of GETTER_CASES) {
    it(`${name}: structura runs them as many times as native ${runtime}`, () => {
      expect(countReads(structura, make)).toBe(countReads(native, make));
    });
  }
  it("a class instance with a tag getter is an ordinary object: its own data is copied, as natively", () => {
    const make = () => {
      class Tagged {
        a = 1;
        get [Symbol.toStringTag](): string {
          return "Tagged";
        }
      }
      return new Tagged();
    };
    expect(structura(make())).toEqual(native(make()));
  });
  it("a refusal inside a class instance with a tag keeps error.path", () => {
    class Tagged {
      get [Symbol.toStringTag](): string {
        return "Tagged";
      }
      f = () => 1;
    }
    const e = caught(() => structura({ items: [new Tagged()] })) as DOMException & { path?: string };
    expect(e.name).toBe("DataCloneError");
    expect(e.path).toBe("value.items[0].f");
  });
  it("a refusal inside a class instance with a data tag keeps error.path", () => {
    class Named {
      g = Symbol("s");
    }
    Object.defineProperty(Named.prototype, Symbol.toStringTag, { value: "Named" });
    const e = caught(() => structura({ n: new Named() })) as DOMException & { path?: string };
    expect(e.name).toBe("DataCloneError");
    expect(e.path).toBe("value.n.g");
  });
});

describe("a Symbol.toStringTag getter hides nothing", () => {
  const refused: [string, () => object][] = [
    ["WeakMap", () => new WeakMap()],
    ["WeakSet", () => new WeakSet()],
    ["Promise", () => Promise.resolve(1)],
    ["generator", () => (function* () {})()],
  ];
  for (const [name, make] of refused) {
    conform(
      `a ${name} with an own tag getter is still refused (DataCloneError), the getter never run`,
      (impl) => {
        let reads = 0;
        const value = Object.defineProperty(make(), Symbol.toStringTag, {
          get() {
            reads++;
            return "Disguised";
          },
        });
        expectThrowsDom(() => impl({ value }));
        expect(reads).toBe(0);
      },
    );
  }
});
