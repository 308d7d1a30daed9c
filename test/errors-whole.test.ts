/**
 * Errors arrive whole (issue 15): in the text and binary formats, through the channel, the streams and
 * compat/flatted, an error keeps its class, name, message, stack, cause, AggregateError's errors and
 * its own enumerable properties; `errors: "structuredClone"` gives exactly the structured clone. The
 * fixture table (test/fixtures/values.ts, `codec`) covers the same for every codec; this file adds
 * Node's own errors, the option's plumbing and hostile error records.
 */

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../src/binary/index.ts";
import { createChannel, openChannel } from "../src/channel/index.ts";
import { clone } from "../src/clone/index.ts";
import * as flatted from "../src/compat/flatted.ts";
import {
  ArgumentError,
  DataCloneError,
  DecodeError,
  LimitError,
  StructuraError,
} from "../src/core/errors.ts";
import { createDecoder, createEncoder } from "../src/stream/index.ts";
import { parse, stringify } from "../src/text/index.ts";
import { take } from "./channel/helpers.ts";
import { expectSameStructure } from "./helpers/equal.ts";

type Codec = { name: string; trip: (value: unknown, options?: { errors?: "structuredClone" }) => unknown };

const codecs: Codec[] = [
  { name: "binary", trip: (v, o) => deserialize(serialize(v, o)) },
  { name: "text", trip: (v, o) => parse(stringify(v, o)) },
  { name: "text (pretty)", trip: (v, o) => parse(stringify(v, { ...o, space: 1 })) },
  {
    name: "binary stream",
    trip: (v, o) => createDecoder().push(createEncoder(o).encode(v))[0],
  },
  {
    name: "text stream",
    trip: (v, o) =>
      createDecoder({ format: "text" }).push(
        createEncoder({ ...o, format: "text", plainJson: false }).encode(v),
      )[0],
  },
];

function fsError(): NodeJS.ErrnoException {
  try {
    readFileSync("/definitely/not/here");
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  throw new Error("readFileSync did not throw");
}

function withProperties(): Error {
  const cause = new TypeError("root cause");
  const e = Object.assign(new Error("expected 1 to be 2", { cause }), {
    name: "AssertionError",
    actual: { list: [1] },
    expected: { list: [2] },
    showDiff: true,
    operator: "deepStrictEqual",
    when: new Date(5),
    inner: new RangeError("inner"),
  });
  Object.assign(e, { self: e, causeAgain: cause });
  return e;
}

describe.each(codecs)("errors whole: $name", ({ trip }) => {
  it("a Node fs error keeps code, errno, syscall and path", () => {
    const original = fsError();
    const back = trip(original) as NodeJS.ErrnoException;
    expect(back).toBeInstanceOf(Error);
    expect(back.code).toBe("ENOENT");
    expect(back.errno).toBe(original.errno);
    expect(back.syscall).toBe("open");
    expect(back.path).toBe("/definitely/not/here");
    expect(back.message).toBe(original.message);
    expect(back.stack).toBe(original.stack);
    expect(Object.keys(back)).toEqual(Object.keys(original));
    // Under structured clone semantics those are dropped.
    expect(Object.keys(trip(original, { errors: "structuredClone" }) as object)).toEqual([]);
  });

  it("properties with nested errors, Dates, shared references and cycles through the error", () => {
    const back = trip(withProperties()) as ReturnType<typeof withProperties> & Record<string, unknown>;
    expect(back.name).toBe("AssertionError");
    expect(Object.getPrototypeOf(back)).toBe(Error.prototype);
    expect(back.self).toBe(back);
    expect(back.causeAgain).toBe(back.cause);
    expect(back.cause).toBeInstanceOf(TypeError);
    expect(back.inner).toBeInstanceOf(RangeError);
    expect(back.when).toEqual(new Date(5));
    expect(back.expected).toEqual({ list: [2] });
    expect(Object.getOwnPropertyDescriptor(back, "name")!.enumerable).toBe(true);
    expect(Object.getOwnPropertyDescriptor(back, "cause")!.enumerable).toBe(false);
    const plain = trip(withProperties(), { errors: "structuredClone" }) as Error;
    expect(plain.name).toBe("Error");
    expect(Object.keys(plain)).toEqual([]);
    // structura's clone (the spec's; Bun's native clone drops `cause`, a Bun deviation).
    expectSameStructure(plain, clone(withProperties()), { compareStacks: false });
  });

  it("AggregateError keeps its class and errors, with a cycle back to itself", () => {
    const inner = new Error("first");
    const all = new AggregateError([inner, "second"], "both failed", { cause: inner });
    (all.errors as unknown[]).push(all);
    const back = trip(all) as AggregateError;
    expect(back).toBeInstanceOf(AggregateError);
    expect(back.name).toBe("AggregateError");
    expect(back.errors).toHaveLength(3);
    expect(back.errors[0]).toBe(back.cause);
    expect(back.errors[2]).toBe(back);
    expect(Reflect.ownKeys(back).filter((k) => k !== "stack")).toEqual(
      Reflect.ownKeys(all).filter((k) => k !== "stack"),
    );
    expect(Object.getOwnPropertyDescriptor(back, "errors")!.enumerable).toBe(false);
    const plain = trip(all, { errors: "structuredClone" }) as Error;
    expect(plain).not.toBeInstanceOf(AggregateError);
    expect("errors" in plain).toBe(false);
  });

  it("a custom class: the nearest built-in class and the class's name", () => {
    class HttpError extends RangeError {
      status = 404;
    }
    Object.defineProperty(HttpError.prototype, "name", {
      value: "HttpError",
      configurable: true,
      writable: true,
    });
    const back = trip(new HttpError("not found")) as RangeError & { status: number };
    expect(Object.getPrototypeOf(back)).toBe(RangeError.prototype);
    expect(back.name).toBe("HttpError");
    expect(Object.getOwnPropertyDescriptor(back, "name")!.enumerable).toBe(false);
    expect(back.status).toBe(404);
    expect((trip(new HttpError("x"), { errors: "structuredClone" }) as Error).name).toBe("Error");
  });

  it("a class lookup never uses a name: an Error named TypeError stays an Error", () => {
    const back = trip(Object.assign(new Error("m"), { name: "TypeError" })) as Error;
    expect(Object.getPrototypeOf(back)).toBe(Error.prototype);
    expect(back.name).toBe("TypeError");
    // structured clone picks the class by name (the spec's rule), as the option does.
    const cloned = trip(Object.assign(new Error("m"), { name: "TypeError" }), { errors: "structuredClone" });
    expect(Object.getPrototypeOf(cloned)).toBe(TypeError.prototype);
  });

  it("SuppressedError keeps error and suppressed where the host has it", () => {
    const Suppressed = (globalThis as { SuppressedError?: new (e: unknown, s: unknown, m?: string) => Error })
      .SuppressedError;
    if (Suppressed === undefined) return;
    const e = new Suppressed(new Error("disposal"), new Error("body"), "suppressed");
    const back = trip(e) as Error & { error: Error; suppressed: Error };
    expect(back).toBeInstanceOf(Suppressed);
    expect(back.error.message).toBe("disposal");
    expect(back.suppressed.message).toBe("body");
  });

  it("a function among the properties is refused with its path", () => {
    const e = Object.assign(new Error("m"), { config: { adapter() {} } });
    expect(() => trip({ e })).toThrow(DataCloneError);
    try {
      trip({ e });
    } catch (error) {
      expect((error as DataCloneError).message).toContain("value.e.config.adapter");
    }
    // The option drops properties, as structured clone does.
    expect((trip({ e }, { errors: "structuredClone" }) as { e: Error }).e.message).toBe("m");
  });
});

describe("errors whole: compat/flatted", () => {
  it("keeps name and own properties as flatted does, and class, stack and cause besides", () => {
    const e = Object.assign(new Error("x", { cause: 1 }), { name: "AssertionError", expected: 1, actual: 2 });
    const back = flatted.parse(flatted.stringify({ e })).e as typeof e;
    expect(back).toBeInstanceOf(Error);
    expect(back.name).toBe("AssertionError");
    expect(back.expected).toBe(1);
    expect(back.actual).toBe(2);
    expect(back.cause).toBe(1);
    expect(back.stack).toBe(e.stack);
  });

  it("leaves functions among the properties out, as JSON does", () => {
    const e = Object.assign(new AggregateError([() => 1, 2], "m"), { fn() {}, keep: true });
    const back = flatted.parse(flatted.stringify(e)) as AggregateError & { keep: boolean };
    expect(back).toBeInstanceOf(AggregateError);
    expect(Object.keys(back)).toEqual(["keep"]);
    expect(back.errors).toEqual([null, 2]);
  });
});

describe("errors whole: channel", () => {
  function pair(options?: Parameters<typeof createChannel>[0]) {
    const { local, remote } = createChannel(options);
    return { a: local, b: openChannel(remote, options) };
  }

  it("an error arrives whole, or as structured clone keeps it with the option", async () => {
    for (const errors of [undefined, "structuredClone"] as const) {
      const { a, b } = pair(errors === undefined ? {} : { errors });
      a.postMessage(withProperties());
      a.postMessage(fsError());
      const [got, fs] = (await take(b, 2)) as [Error & Record<string, unknown>, NodeJS.ErrnoException];
      if (errors === undefined) {
        expect(got.name).toBe("AssertionError");
        expect(got.self).toBe(got);
        expect(fs.code).toBe("ENOENT");
      } else {
        expect(got.name).toBe("Error");
        expect(fs.code).toBeUndefined();
      }
      a.close();
      b.close();
    }
  });

  it("checks the option up front", () => {
    expect(() => createChannel({ errors: "all" as never })).toThrow(ArgumentError);
  });
});

describe("errors whole: options", () => {
  it("refuses an unknown errors mode where it is given", () => {
    expect(() => serialize(1, { errors: "none" as never })).toThrow(ArgumentError);
    expect(() => stringify(1, { errors: "none" as never })).toThrow(ArgumentError);
    expect(() => createEncoder({ errors: "none" as never })).toThrow(ArgumentError);
    // Readers take no such option: they read what the writer wrote.
    expect(() => deserialize(serialize(1), { errors: "whole" } as never)).toThrow(ArgumentError);
  });

  it("a serialize inside a custom type's encode keeps its own errors mode", () => {
    // Module-level encoder state is saved and restored around a nested call.
    class Box {
      constructor(readonly e: Error) {}
    }
    const type = {
      name: "Box",
      class: Box,
      encode: (b: Box) => serialize(b.e, { errors: "structuredClone" }),
      decode: (bytes: Uint8Array) => new Box(deserialize(bytes)),
    };
    const e = Object.assign(new Error("m"), { code: 1 });
    const back = deserialize(serialize([new Box(e), e], { types: [type] }), { types: [type] }) as [
      Box,
      Error & { code?: number },
    ];
    expect((back[0].e as Error & { code?: number }).code).toBeUndefined();
    expect(back[1].code).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------
// Hostile error records

function binaryError(bytes: number[]): StructuraError {
  try {
    deserialize(new Uint8Array(bytes));
  } catch (error) {
    expect(error).toBeInstanceOf(StructuraError);
    return error as StructuraError;
  }
  throw new Error("expected deserialize to throw");
}

function textError(text: string): StructuraError {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(StructuraError);
    return error as StructuraError;
  }
  throw new Error("expected parse to throw");
}

const H = '"structura:3"';

describe("errors whole: hostile binary error records", () => {
  // b5 02, EXT 0x0a, class, flags, ...
  it("rejects unknown classes and flags, and flags that do not fit the class", () => {
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 9, 0])).toMatchObject({ code: "ERR_BAD_VALUE", offset: 2 });
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 0, 128])).toMatchObject({ code: "ERR_BAD_VALUE" });
    // errors (16) only with AggregateError, error/suppressed (32) only with SuppressedError.
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 0, 16, 0xe0])).toMatchObject({ code: "ERR_BAD_VALUE" });
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 7, 32, 0xc0, 0xc0])).toMatchObject({ code: "ERR_BAD_VALUE" });
    // Version 1 allows neither class 7 nor flags past 7.
    expect(binaryError([0xb5, 1, 0xd7, 0x0a, 7, 0])).toMatchObject({ code: "ERR_BAD_VALUE" });
    expect(binaryError([0xb5, 1, 0xd7, 0x0a, 0, 64, 0])).toMatchObject({ code: "ERR_BAD_VALUE" });
  });

  it("rejects a name that is not a string, a property count past the input, truncation anywhere", () => {
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 0, 8, 0x01])).toMatchObject({ code: "ERR_BAD_VALUE" });
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 0, 64, 0x7f])).toMatchObject({ code: "ERR_BAD_LENGTH" });
    expect(binaryError([0xb5, 2, 0xd7, 0x0a, 0, 64, 1, 0x01, 0x01])).toMatchObject({ code: "ERR_BAD_VALUE" });
    const full = serialize(withProperties());
    for (let cut = 2; cut < full.length; cut++) {
      expect(() => deserialize(full.subarray(0, cut))).toThrow(DecodeError);
    }
  });

  it("defines __proto__ and constructor keys as own properties, never touching a prototype", () => {
    // { "__proto__": { polluted: 1 }, constructor: 5 } as error properties.
    const bytes = [0xb5, 2, 0xd7, 0x0a, 0, 64, 2];
    bytes.push(0x89, ...Buffer.from("__proto__"), 0xd1, 1, 0x88, ...Buffer.from("polluted"), 1);
    bytes.push(0x8b, ...Buffer.from("constructor"), 5);
    const back = deserialize(new Uint8Array(bytes)) as Error & Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Error.prototype);
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")!.value).toEqual({ polluted: 1 });
    expect(Object.hasOwn(back, "constructor")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(back instanceof Error).toBe(true);
  });

  it("holds maxDepth through chains of errors", () => {
    let e: Error = new Error("leaf");
    for (let i = 0; i < 50; i++) e = Object.assign(new Error(String(i)), { next: e });
    const bytes = serialize(e);
    expect(() => deserialize(bytes, { maxDepth: 20 })).toThrow(LimitError);
    expect(() => serialize(e, { maxDepth: 20 })).toThrow(LimitError);
    expect((deserialize(bytes) as Error).message).toBe("49");
  });
});

describe("errors whole: hostile text error records", () => {
  it("rejects bad classes, names, flags and field counts with a typed error and a path", () => {
    const bad = [
      `[${H},[],["Error+","Object",null,"m",null,0]]`,
      `[${H},[],["Error+","Function",null,"m",null,0]]`,
      `[${H},[],["Error+","Error",5,"m",null,0]]`,
      `[${H},[],["Error+","Error",null,"m",null,16]]`,
      `[${H},[],["Error+","Error",null,"m",null,1.5]]`,
      `[${H},[],["Error+","Error",null,"m",null,"1"]]`,
      `[${H},[],["Error+","Error",null,"m",null,2,[]]]`,
      `[${H},[],["Error+","AggregateError",null,"m",null,4,1,2]]`,
      `[${H},[],["Error+","Error",null,"m",null,1]]`,
      `[${H},[],["Error+","Error",null,"m",null,0,1]]`,
      `[${H},[],["Error+","Error",null,"m",null,8,[]]]`,
      `[${H},[],["Error+","Error",null,"m",null,8,"x"]]`,
      `[${H},[],["Error+","Error",null,"m"]]`,
    ];
    for (const text of bad) {
      const error = textError(text);
      expect(error, text).toBeInstanceOf(DecodeError);
      expect(error.code, text).toBe("ERR_BAD_VALUE");
      expect((error as DecodeError).path, text).toBe("$[2]");
    }
    expect(textError(`[${H},[],["Error+","Error",null,"m",null,1,"~5"]]`).code).toBe("ERR_BAD_REFERENCE");
  });

  it("defines __proto__, constructor and stack members as own properties", () => {
    const back = parse(
      `[${H},[],["Error+","Error",null,"m",null,8,{"__proto__":{"polluted":1},"constructor":"x","stack":7}]]`,
    ) as Error & Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Error.prototype);
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")!.value).toEqual({ polluted: 1 });
    expect(Object.getOwnPropertyDescriptor(back, "constructor")!.value).toBe("x");
    expect(back.stack).toBe(7);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("cycles through deferred errors: an error at a deferral point is filled from the queue", () => {
    const text = `[${H},[],["A","~1"],["Error+","AggregateError","N","m",null,11,"~1",["A","~0","~1"],{"self":"~1"}]]`;
    const [e] = parse(text) as [AggregateError & { self: unknown }];
    expect(e).toBeInstanceOf(AggregateError);
    expect(e.name).toBe("N");
    expect(e.cause).toBe(e);
    expect(e.errors[1]).toBe(e);
    expect(e.self).toBe(e);
    // And the writer defers errors met deep down.
    let deep: unknown = withProperties();
    for (let i = 0; i < 100; i++) deep = { deep };
    let back = parse(stringify(deep)) as { deep: unknown };
    for (let i = 0; i < 99; i++) back = back.deep as { deep: unknown };
    const leaf = back.deep as Error & { self: unknown };
    expect(leaf.name).toBe("AssertionError");
    expect(leaf.self).toBe(leaf);
  });

  it("holds maxDepth through errors", () => {
    let e: Error = new Error("leaf");
    for (let i = 0; i < 50; i++) e = Object.assign(new Error(String(i)), { next: e });
    expect(() => parse(stringify(e), { maxDepth: 20 })).toThrow(LimitError);
    expect((parse(stringify(e)) as Error).message).toBe("49");
  });
});
