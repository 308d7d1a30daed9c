/**
 * The structured-clone battery (web-platform-tests html/webappapis/structured-clone), every case that
 * applies outside a browser (no document: no FileList, ImageData, ImageBitmap), restated from the
 * HTML spec's serialization steps. See ./support.ts for how each case runs against structura and the
 * native oracle.
 */

import { describe, expect } from "vitest";
import { bytesOf, type Clone, conform, expectThrowsDom } from "./support.ts";

type Compare = (actual: unknown, input: unknown) => void | Promise<void>;

/** A value, its clone, and a comparison; the clone must never be the input itself. */
function check(name: string, make: () => unknown, compare: Compare, id?: string): void {
  conform(
    name,
    async (impl: Clone) => {
      const input = make();
      const copy = impl(input);
      await compare(copy, input);
    },
    id,
  );
}

const same: Compare = (actual, input) => {
  expect(Object.is(actual, input)).toBe(true);
};

function asArray(each: Compare): Compare {
  return async (actual, input) => {
    expect(Array.isArray(actual)).toBe(true);
    expect(actual).not.toBe(input);
    const a = actual as unknown[];
    const i = input as unknown[];
    expect(a.length).toBe(i.length);
    for (const key in i) await each(a[key as unknown as number], i[key as unknown as number]);
  };
}

function asObject(each: Compare): Compare {
  return async (actual, input) => {
    expect(actual instanceof Object).toBe(true);
    expect(Array.isArray(actual)).toBe(false);
    expect(actual).not.toBe(input);
    const a = actual as Record<string, unknown>;
    const i = input as Record<string, unknown>;
    for (const key in i) await each(a[key], i[key]);
  };
}

/** A value alone, in an array, and as a property of an object. */
function checkEverywhere(name: string, make: () => unknown, compare: Compare, id?: string): void {
  check(name, make, compare, id);
  check(`array holding ${name}`, () => [make()], asArray(compare), id);
  check(`object holding ${name}`, () => ({ x: make() }), asObject(compare), id);
}

const PRIMITIVES: [string, unknown][] = [
  ["undefined", undefined],
  ["null", null],
  ["true", true],
  ["false", false],
  ["empty string", ""],
  ["lone high surrogate", "\uD800"],
  ["lone low surrogate", "\uDC00"],
  ["NUL", "\u0000"],
  ["astral character", "\uDBFF\uDFFD"],
  ["0.2", 0.2],
  ["0", 0],
  ["-0", -0],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["-Infinity", Number.NEGATIVE_INFINITY],
  ["2^53", 2 ** 53],
  ["-(2^53)", -(2 ** 53)],
  ["2^53 + 2", 2 ** 53 + 2],
  ["-(2^53 + 2)", -(2 ** 53 + 2)],
  ["0n", 0n],
  ["-0n", -0n],
  ["-9007199254740994000n", -9007199254740994000n],
  ["a 76-digit BigInt", -(10n ** 75n) * 7n - 12345n],
];

describe("battery: primitives", () => {
  for (const [name, value] of PRIMITIVES) check(`primitive ${name}`, () => value, same);
  check("array of every primitive", () => PRIMITIVES.map(([, v]) => v), asArray(same));
  check(
    "object of every primitive (keys named after them)",
    () => Object.fromEntries(PRIMITIVES.filter(([, v]) => typeof v !== "bigint")),
    asObject(same),
  );
});

function boxed(Type: (value: unknown) => unknown): Compare {
  return (actual, input) => {
    expect(typeof actual).toBe("object");
    expect(actual).not.toBe(input);
    expect(Object.is(Type(actual), Type(input))).toBe(true);
  };
}

describe("battery: wrapper objects", () => {
  for (const b of [true, false]) {
    checkEverywhere(
      `Boolean object ${b}`,
      () => new Boolean(b),
      (a, i) => {
        expect(a instanceof Boolean).toBe(true);
        boxed((v) => String(v))(a, i);
      },
    );
  }
  for (const [name, s] of PRIMITIVES.filter(([, v]) => typeof v === "string")) {
    checkEverywhere(
      `String object, ${name}`,
      () => new String(s),
      (a, i) => {
        expect(a instanceof String).toBe(true);
        boxed(String)(a, i);
      },
    );
  }
  for (const [name, n] of PRIMITIVES.filter(([, v]) => typeof v === "number")) {
    checkEverywhere(
      `Number object ${name}`,
      () => new Number(n),
      (a, i) => {
        expect(a instanceof Number).toBe(true);
        boxed(Number)(a, i);
      },
    );
  }
  checkEverywhere(
    "BigInt object -9007199254740994n",
    () => Object(-9007199254740994n),
    (a, i) => {
      expect(a instanceof BigInt).toBe(true);
      boxed((v) => BigInt(v as bigint))(a, i);
    },
  );
});

describe("battery: Date", () => {
  for (const t of [0, -0, -8.64e15, 8.64e15]) {
    checkEverywhere(
      `Date ${Object.is(t, -0) ? "-0" : t}`,
      () => new Date(t),
      (a, i) => {
        expect(a instanceof Date).toBe(true);
        expect(a).not.toBe(i);
        expect(Object.is(Number(a), Number(i))).toBe(true);
      },
    );
  }
});

function regexp(source: string): Compare {
  return (a, i) => {
    const actual = a as RegExp;
    const input = i as RegExp;
    expect(actual instanceof RegExp).toBe(true);
    expect(actual).not.toBe(input);
    for (const flag of ["global", "ignoreCase", "multiline", "sticky", "unicode"] as const) {
      expect(actual[flag]).toBe(input[flag]);
    }
    expect(actual.source).toBe(source);
    expect(actual.lastIndex).toBe(0);
  };
}

/** A RegExp made by the constructor from a source string, as the cases describe them. */
function re(source: string, flags?: string): RegExp {
  return new RegExp(source, flags);
}

describe("battery: RegExp", () => {
  checkEverywhere(
    "RegExp with flags and a lastIndex",
    () => {
      const r = /foo/gim;
      r.lastIndex = 2;
      return r;
    },
    regexp("foo"),
  );
  checkEverywhere("RegExp sticky", () => re("foo", "y"), regexp("foo"));
  checkEverywhere("RegExp unicode", () => re("foo", "u"), regexp("foo"));
  checkEverywhere("RegExp empty", () => re(""), regexp("(?:)"));
  checkEverywhere("RegExp slash", () => re("/"), regexp("\\/"));
  checkEverywhere("RegExp new line", () => re("\n"), regexp("\\n"));
});

const compareError: Compare = (a, i) => {
  const actual = a as Error & { foo?: unknown };
  const input = i as Error;
  expect(actual instanceof Error).toBe(true);
  expect(actual.constructor).toBe(input.constructor);
  expect(actual.name).toBe(input.name);
  expect(Object.hasOwn(actual, "message")).toBe(Object.hasOwn(input, "message"));
  expect(actual.message).toBe(input.message);
  expect(actual.foo).toBeUndefined();
};

describe("battery: Error types", () => {
  check("Error without a message", () => new Error(), compareError);
  for (const Ctor of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError]) {
    check(
      `${Ctor.name} with a message and a custom property`,
      () => Object.assign(new Ctor("message text"), { foo: "bar" }),
      compareError,
    );
  }
});

/** CESU-8 (3 bytes per UTF-16 code unit): invalid UTF-8 that a Blob must keep byte for byte. */
function cesu8(units: number[]): number[] {
  const out: number[] = [];
  for (const u of units) out.push(0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
  return out;
}

function blobOf(bytes: number[]): () => Blob {
  return () => new Blob([new Uint8Array(bytes)]);
}

function compareBlob(expectFile: boolean): Compare {
  return async (a, i) => {
    const actual = a as Blob;
    const input = i as Blob;
    expect(actual instanceof Blob).toBe(true);
    if (!expectFile) expect(actual instanceof File).toBe(false);
    expect(actual).not.toBe(input);
    expect(actual.size).toBe(input.size);
    expect(actual.type).toBe(input.type);
    expect(await bytesOf(actual)).toEqual(await bytesOf(input));
  };
}

describe("battery: Blob and File", () => {
  const blobs: [string, () => Blob][] = [
    ["Blob with a type", () => new Blob(["foo"], { type: "text/x-bar" })],
    ["Blob of an unpaired high surrogate (invalid UTF-8)", blobOf(cesu8([0xd800]))],
    ["Blob of an unpaired low surrogate (invalid UTF-8)", blobOf(cesu8([0xdc00]))],
    ["Blob of a surrogate pair in CESU-8 (invalid UTF-8)", blobOf(cesu8([0xd800, 0xdc00]))],
    ["empty Blob", () => new Blob([""])],
    ["Blob of NUL", () => new Blob(["\u0000"])],
  ];
  for (const [name, make] of blobs) checkEverywhere(name, make, compareBlob(false));
  check(
    "array of two Blobs",
    () => [new Blob(["foo"], { type: "text/x-bar" }), new Blob([""])],
    asArray(compareBlob(false)),
  );
  check(
    "File keeps name, lastModified, type and bytes",
    () => new File(["foo"], "bar", { type: "text/x-bar", lastModified: 42 }),
    async (a, i) => {
      const actual = a as File;
      const input = i as File;
      expect(actual instanceof File).toBe(true);
      expect(actual.name).toBe(input.name);
      expect(actual.lastModified).toBe(input.lastModified);
      await compareBlob(true)(a, i);
    },
    "file-stays-file",
  );
  check(
    "an instance of a File subclass comes back as a File",
    () => {
      class FileSubclass extends File {}
      return new FileSubclass([], "");
    },
    (a) => {
      expect(Object.getPrototypeOf(a)).toBe(File.prototype);
    },
    "file-subclass",
  );
});

describe("battery: arrays and objects", () => {
  check("sparse array of length 10", () => new Array(10), asArray(same));
  check(
    "array with a non-index property",
    () => Object.assign([], { foo: "bar" }),
    (a, i) => {
      asArray(same)(a, i);
      expect((a as unknown as { foo: string }).foo).toBe("bar");
    },
  );
  check("object with an index property and a length", () => ({ "0": "foo", length: 1 }), asObject(same));
  check(
    "array that contains itself",
    () => {
      const a: unknown[] = [];
      a[0] = a;
      return a;
    },
    (a) => {
      expect(Array.isArray(a)).toBe(true);
      expect((a as unknown[])[0]).toBe(a);
    },
  );
  check(
    "object that contains itself",
    () => {
      const o: Record<string, unknown> = {};
      o.x = o;
      return o;
    },
    (a) => {
      expect((a as Record<string, unknown>).x).toBe(a);
    },
  );
  check(
    "array with the same object twice",
    () => {
      const shared = {};
      return [shared, shared];
    },
    (a) => {
      const arr = a as unknown[];
      expect(arr[0]).toBe(arr[1]);
    },
  );
  check(
    "object with the same object under two keys",
    () => {
      const shared = {};
      return { x: shared, y: shared };
    },
    (a) => {
      const o = a as Record<string, unknown>;
      expect(o.x).toBe(o.y);
    },
  );
  check(
    "a property on the prototype is not copied",
    () => {
      function Foo(this: object): void {}
      Foo.prototype = { foo: "bar" };
      return new (Foo as unknown as new () => object)();
    },
    (a) => {
      expect("foo" in (a as object)).toBe(false);
    },
  );
  check(
    "a non-enumerable property is not copied",
    () =>
      Object.defineProperty({}, "foo", {
        value: "bar",
        enumerable: false,
        writable: true,
        configurable: true,
      }),
    (a) => {
      expect("foo" in (a as object)).toBe(false);
    },
  );
  check(
    "a non-writable property becomes writable",
    () =>
      Object.defineProperty({}, "foo", {
        value: "bar",
        enumerable: true,
        writable: false,
        configurable: true,
      }),
    (a, i) => {
      const o = a as { foo: string };
      expect(o.foo).toBe((i as { foo: string }).foo);
      o.foo += " baz";
      expect(o.foo).toBe("bar baz");
    },
  );
  check(
    "a non-configurable property becomes configurable",
    () =>
      Object.defineProperty({}, "foo", {
        value: "bar",
        enumerable: true,
        writable: true,
        configurable: false,
      }),
    (a) => {
      const o = a as { foo?: string };
      expect(o.foo).toBe("bar");
      expect(delete o.foo).toBe(true);
      expect("foo" in o).toBe(false);
    },
  );
  conform("a getter that throws: the same exception propagates", (impl) => {
    const exception = new Error("from the getter");
    const value = {
      get testProperty(): never {
        throw exception;
      },
    };
    let thrown: unknown;
    try {
      impl(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(exception);
  });
  check(
    "Object.prototype clones into an ordinary object (its prototype can be set)",
    () => Object.prototype,
    (a, i) => {
      expect(a).not.toBe(i);
      expect(a instanceof Object).toBe(true);
      const proto = { some: "proto" };
      Object.setPrototypeOf(a as object, proto);
      expect(Object.getPrototypeOf(a)).toBe(proto);
    },
  );
});

describe("battery: platform objects", () => {
  conform(
    "a non-serializable platform object (Response) → DataCloneError",
    (impl) => {
      expectThrowsDom(() => impl(new Response()));
    },
    "non-serializable-platform",
  );
  conform("a Blob still deserializes after its interface is deleted from the global", (impl) => {
    const blob = new Blob(["x"]);
    const BlobInterface = globalThis.Blob;
    let copy: unknown;
    delete (globalThis as { Blob?: unknown }).Blob;
    try {
      copy = impl(blob);
    } finally {
      globalThis.Blob = BlobInterface;
    }
    expect(copy instanceof BlobInterface).toBe(true);
  });
});

function compareBuffer(a: unknown, i: unknown): void {
  const actual = a as ArrayBuffer & { maxByteLength: number; resizable: boolean; growable?: boolean };
  const input = i as typeof actual;
  expect(actual.byteLength).toBe(input.byteLength);
  expect(actual.maxByteLength).toBe(input.maxByteLength);
  expect(actual.resizable).toBe(input.resizable);
  expect(actual.growable).toBe(input.growable);
}

function compareView(Type: abstract new (...args: never[]) => ArrayBufferView): Compare {
  return (a, i) => {
    const actual = a as Uint8Array;
    const input = i as Uint8Array;
    expect(actual instanceof Type).toBe(true);
    expect(actual.length).toBe(input.length);
    expect(actual.byteLength).toBe(input.byteLength);
    expect(actual.byteOffset).toBe(input.byteOffset);
    expect(actual.buffer).not.toBe(input.buffer);
    for (let k = 0; k < actual.length; k++) expect(actual[k]).toBe(input[k]);
  };
}

const Resizable = ArrayBuffer as unknown as new (
  n: number,
  o: { maxByteLength: number },
) => ArrayBuffer & {
  resize(n: number): void;
};
const Growable = SharedArrayBuffer as unknown as new (
  n: number,
  o: { maxByteLength: number },
) => SharedArrayBuffer;

describe("battery: resizable buffers and views", () => {
  check(
    "resizable ArrayBuffer",
    () => new Resizable(16, { maxByteLength: 1024 }),
    (a, i) => {
      expect(a instanceof ArrayBuffer).toBe(true);
      compareBuffer(a, i);
    },
  );
  check("growable SharedArrayBuffer", () => new Growable(16, { maxByteLength: 1024 }), compareBuffer);
  check(
    "length-tracking Uint8Array",
    () => new Uint8Array(new Resizable(16, { maxByteLength: 1024 })),
    compareView(Uint8Array),
  );
  check(
    "length-tracking DataView",
    () => new DataView(new Resizable(16, { maxByteLength: 1024 })),
    compareView(DataView),
  );
  conform("an out-of-bounds typed array → DataCloneError", (impl) => {
    const ab = new Resizable(16, { maxByteLength: 1024 });
    const ta = new Uint8Array(ab, 8);
    ab.resize(0);
    expectThrowsDom(() => impl(ta));
  });
  conform("an out-of-bounds DataView → DataCloneError", (impl) => {
    const ab = new Resizable(16, { maxByteLength: 1024 });
    const dv = new DataView(ab, 8);
    ab.resize(0);
    expectThrowsDom(() => impl(dv));
  });
});
