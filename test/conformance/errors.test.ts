/**
 * Error stacks (HTML: "user agents should attach ... notably the stack property"; V8 reads it with a
 * plain [[Get]]), DOMException serialization (WebIDL: name, message, and the stack), and the
 * DataCloneError that refusals throw, as WPT's assert_throws_dom sees it.
 */

import { describe, expect, it } from "vitest";
import { serialize } from "../../src/binary/index.ts";
import { DataCloneError } from "../../src/index.ts";
import { stringify } from "../../src/text/index.ts";
import { caught, conform, expectThrowsDom, native, notApplicable, runtime, structura } from "./support.ts";

const CONSTRUCTORS = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError];

/** The form of a property, without its value (a stack accessor's functions differ per object). */
function shape(desc: PropertyDescriptor | undefined): string {
  if (desc === undefined) return "absent";
  const kind = "value" in desc ? `data(writable=${desc.writable})` : "accessor";
  return `${kind} enumerable=${desc.enumerable} configurable=${desc.configurable}`;
}

describe("error stacks", () => {
  for (const Ctor of CONSTRUCTORS) {
    conform(`${Ctor.name}: the clone's stack is the original's`, (impl) => {
      const e = new Ctor("m");
      expect(typeof e.stack).toBe("string");
      expect((impl(e) as Error).stack).toBe(e.stack);
    });
    const why = notApplicable("stack-property-shape");
    const title = `${Ctor.name}: the clone's stack property has the form of the native clone's`;
    it.skipIf(why !== undefined)(
      why === undefined ? title : `${title} — not applicable in ${runtime}: ${why}`,
      () => {
        const e = new Ctor("m");
        const mine = Object.getOwnPropertyDescriptor(structura(e) as object, "stack");
        const theirs = Object.getOwnPropertyDescriptor(native(e) as object, "stack");
        expect(shape(mine)).toBe(shape(theirs));
      },
    );
  }
  conform(
    "an assigned stack string is kept",
    (impl) => {
      const e = new Error("m");
      e.stack = "custom\n  at nowhere";
      expect((impl(e) as Error).stack).toBe("custom\n  at nowhere");
    },
    "stack-from-engine",
  );
  conform(
    "the stack is read with [[Get]]: a stack inherited through an accessor is kept",
    (impl) => {
      // What SpiderMonkey does: no own `stack`, an accessor on the prototype chain.
      class InheritedStack extends Error {
        override get stack(): string {
          return "inherited\n  at somewhere";
        }
      }
      const e = new InheritedStack("m");
      delete (e as { stack?: string }).stack;
      expect(Object.getOwnPropertyDescriptor(e, "stack")).toBeUndefined();
      expect((impl(e) as Error).stack).toBe("inherited\n  at somewhere");
    },
    "stack-from-engine",
  );
  conform(
    "a stack getter runs exactly once",
    (impl) => {
      let reads = 0;
      const e = new Error("m");
      Object.defineProperty(e, "stack", {
        get() {
          reads++;
          return "counted";
        },
        configurable: true,
      });
      expect((impl(e) as Error).stack).toBe("counted");
      expect(reads).toBe(1);
    },
    "stack-from-engine",
  );
  conform(
    "an error without a string stack: the clone gets no own stack (nothing hides a prototype's accessor)",
    (impl) => {
      const e = new Error("m");
      delete (e as { stack?: string }).stack;
      const copy = impl(e) as Error;
      expect(Object.getOwnPropertyDescriptor(copy, "stack")).toBeUndefined();
      expect(copy.stack).toBeUndefined();
    },
    "stackless-error",
  );
  conform(
    "an Error's name getter and stack getter run once each, name first",
    (impl) => {
      const reads: string[] = [];
      const e = new Error("m");
      Object.defineProperty(e, "name", {
        get() {
          reads.push("name");
          return "TypeError";
        },
        configurable: true,
      });
      Object.defineProperty(e, "stack", {
        get() {
          reads.push("stack");
          return "s";
        },
        configurable: true,
      });
      const copy = impl(e) as Error;
      expect(copy instanceof TypeError).toBe(true);
      expect(reads.filter((r) => r === "stack")).toEqual(["stack"]);
      expect(reads[0]).toBe("name");
    },
    "stack-from-engine",
  );
});

describe("DOMException", () => {
  conform(
    "a DOMException clones into a DOMException with the same name, message and code",
    (impl) => {
      const e = new DOMException("the message", "AbortError");
      const copy = impl(e) as DOMException;
      expect(copy.constructor).toBe(DOMException);
      expect(copy).not.toBe(e);
      expect(copy.name).toBe("AbortError");
      expect(copy.message).toBe("the message");
      expect(copy.code).toBe(20);
    },
    "domexception-clone",
  );
  conform(
    "a DOMException's clone has the original's stack",
    (impl) => {
      const e = new DOMException("m", "DataCloneError");
      const copy = impl(e) as DOMException & { stack?: string };
      expect(copy.constructor).toBe(DOMException);
      expect(copy.stack).toBe((e as { stack?: string }).stack);
    },
    "domexception-stack",
  );
  it("a DOMException with a stack assigned: the clone carries that stack", () => {
    const e = new DOMException("m", "NotFoundError") as DOMException & { stack?: string };
    Object.defineProperty(e, "stack", { value: "assigned", writable: true, configurable: true });
    expect((structura(e) as { stack?: string }).stack).toBe("assigned");
  });
});

describe("DataCloneError is a genuine DOMException", () => {
  const refusals: [string, () => unknown][] = [
    ["a function", () => structura(() => 1)],
    ["a function, nested", () => structura({ a: [{ f() {} }] })],
    ["a symbol", () => structura(Symbol("s"))],
    ["a WeakMap", () => structura({ w: new WeakMap() })],
    [
      "a detached buffer",
      () =>
        structura({
          b: (() => {
            const b = new ArrayBuffer(1);
            native(b, { transfer: [b] });
            return b;
          })(),
        }),
    ],
    [
      "a duplicate in the transfer list",
      () => {
        const b = new ArrayBuffer(1);
        return structura(b, { transfer: [b, b] });
      },
    ],
    ["binary serialize", () => serialize({ f() {} })],
    ["text stringify", () => stringify({ f() {} })],
  ];
  for (const [name, fn] of refusals) {
    it(`${name}: constructor DOMException, name DataCloneError, code 25, instanceof DataCloneError`, () => {
      const e = expectThrowsDom(fn);
      expect(e instanceof DataCloneError).toBe(true);
    });
  }
  it("path is an own property of the thrown DOMException", () => {
    const e = caught(() => structura({ a: [{ f() {} }] })) as DataCloneError;
    expect(Object.hasOwn(e, "path")).toBe(true);
    expect(e.path).toBe("value.a[0].f");
    expect(e.message).toContain("value.a[0].f");
  });
  it("native structuredClone's DataCloneError is also an instanceof DataCloneError", () => {
    expect(caught(() => native(() => 1)) instanceof DataCloneError).toBe(true);
  });
  it("other DOMExceptions, other errors and look-alikes are not", () => {
    expect(new DOMException("x", "AbortError") instanceof DataCloneError).toBe(false);
    expect(new Error("DataCloneError") instanceof DataCloneError).toBe(false);
    expect({ name: "DataCloneError" } instanceof DataCloneError).toBe(false);
    expect(Object.create(DOMException.prototype) instanceof DataCloneError).toBe(false);
    expect((null as unknown as object) instanceof DataCloneError).toBe(false);
  });
  it("new DataCloneError(message, path) makes one, as before", () => {
    const e = new DataCloneError("could not be cloned.", "value.x");
    expect(e.constructor).toBe(DOMException);
    expect(e.name).toBe("DataCloneError");
    expect(e.code).toBe(25);
    expect(e.path).toBe("value.x");
    expect(e.message).toBe("value.x: could not be cloned.");
    expect(e instanceof DataCloneError).toBe(true);
  });
});
