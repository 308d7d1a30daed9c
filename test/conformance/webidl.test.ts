/**
 * WebIDL conversion of clone's arguments, as for `structuredClone(any value, optional
 * StructuredSerializeOptions options = {})`: a required first argument, a dictionary, and its `transfer`
 * member a `sequence<object>`; all converted before anything is serialized.
 */

import { describe, expect, it } from "vitest";
import { clone } from "../../src/index.ts";
import { conform, expectThrowsJs } from "./support.ts";

describe("arguments", () => {
  it("no argument at all → TypeError (structura)", () => {
    expectThrowsJs(() => (clone as unknown as () => unknown)(), TypeError);
  });
  it("no argument at all → TypeError (native oracle)", () => {
    expectThrowsJs(() => (structuredClone as unknown as () => unknown)(), TypeError);
  });
  conform("an explicit undefined is a value", (impl) => {
    expect(impl(undefined)).toBeUndefined();
  });
  conform("arguments past the second are ignored", (impl) => {
    expect((impl as (...a: unknown[]) => unknown)(1, undefined, "extra")).toBe(1);
  });
});

describe("the options dictionary", () => {
  conform("undefined and null are an empty dictionary", (impl) => {
    expect(impl(1, undefined)).toBe(1);
    expect(impl(1, null)).toBe(1);
    expect(impl(1, {})).toBe(1);
  });
  for (const [name, options] of [
    ["a number", 1],
    ["a string", "transfer"],
    ["true", true],
    ["a symbol", Symbol("o")],
    ["a BigInt", 1n],
  ] as const) {
    conform(`${name} → TypeError`, (impl) => {
      expectThrowsJs(() => impl(1, options), TypeError);
    });
  }
  conform("a function is an object: its transfer member is read", (impl) => {
    const buffer = new ArrayBuffer(2);
    const options = Object.assign(() => {}, { transfer: [buffer] });
    impl(buffer, options);
    expect(buffer.byteLength).toBe(0);
  });
  conform("the transfer member is read exactly once, before the value", (impl) => {
    const log: string[] = [];
    const options = {
      get transfer() {
        log.push("transfer");
        return [];
      },
    };
    const value = {
      get x() {
        log.push("x");
        return 1;
      },
    };
    impl(value, options);
    expect(log).toEqual(["transfer", "x"]);
  });
  conform("the transfer member is read even for a primitive value", (impl) => {
    let reads = 0;
    impl(1, {
      get transfer() {
        reads++;
        return undefined;
      },
    });
    expect(reads).toBe(1);
  });
  conform("an exception from the transfer getter propagates unchanged, and the value is not read", (impl) => {
    const boom = new Error("boom");
    let read = false;
    let thrown: unknown;
    try {
      impl(
        {
          get x() {
            read = true;
            return 1;
          },
        },
        {
          get transfer(): never {
            throw boom;
          },
        },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(boom);
    expect(read).toBe(false);
  });
});

describe("transfer: sequence<object> conversion", () => {
  for (const [name, transfer] of [
    ["an empty string", ""],
    ["a string", "ab"],
    ["a number", 1],
    ["true", true],
    ["a symbol", Symbol.iterator],
  ] as const) {
    conform(`${name} → TypeError (not an object, even when iterable)`, (impl) => {
      expectThrowsJs(() => impl(1, { transfer }), TypeError);
    });
  }
  conform(
    "null → TypeError",
    (impl) => {
      expectThrowsJs(() => impl(1, { transfer: null }), TypeError);
    },
    "transfer-not-iterable-object",
  );
  conform(
    "an object without @@iterator → TypeError",
    (impl) => {
      expectThrowsJs(() => impl(1, { transfer: {} }), TypeError);
    },
    "transfer-not-iterable-object",
  );
  conform(
    "an @@iterator that is not callable → TypeError",
    (impl) => {
      expectThrowsJs(() => impl(1, { transfer: { [Symbol.iterator]: 1 } }), TypeError);
    },
    "transfer-not-iterable-object",
  );
  conform("an iterator that yields a primitive → TypeError", (impl) => {
    expectThrowsJs(() => impl(1, { transfer: [new ArrayBuffer(1), 2] }), TypeError);
    expectThrowsJs(() => impl(1, { transfer: [null] }), TypeError);
  });
  conform("a Set and a generator are sequences", (impl) => {
    const a = new ArrayBuffer(1);
    const b = new ArrayBuffer(1);
    impl([a], { transfer: new Set([a]) });
    impl([b], {
      transfer: (function* () {
        yield b;
      })(),
    });
    expect(a.byteLength).toBe(0);
    expect(b.byteLength).toBe(0);
  });
  conform("an exception from the iterator propagates unchanged, before the value is read", (impl) => {
    const boom = new Error("iterator");
    let read = false;
    let thrown: unknown;
    try {
      impl(
        {
          get x() {
            read = true;
            return 1;
          },
        },
        {
          transfer: {
            [Symbol.iterator]() {
              return {
                next(): never {
                  throw boom;
                },
              };
            },
          },
        },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(boom);
    expect(read).toBe(false);
  });
  conform(
    "each entry is converted as it is stepped: a bad entry stops the iteration, without return()",
    (impl) => {
      const log: string[] = [];
      const entries: unknown[] = [new ArrayBuffer(1), 5, new ArrayBuffer(1)];
      let i = 0;
      const iterable = {
        [Symbol.iterator]() {
          log.push("iterator");
          return {
            next() {
              log.push("next");
              return i < entries.length
                ? { value: entries[i++], done: false }
                : { value: undefined, done: true };
            },
            return() {
              log.push("return");
              return { done: true };
            },
          };
        },
      };
      expectThrowsJs(() => impl(1, { transfer: iterable }), TypeError);
      expect(log).toEqual(["iterator", "next", "next"]);
    },
    "transfer-iteration-order",
  );
});
