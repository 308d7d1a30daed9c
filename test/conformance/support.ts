/**
 * Shared by the conformance suite (test/conformance/*.test.ts), which runs under vitest (Node), under
 * `bun test` (Bun maps the `vitest` import to `bun:test`), and in Deno, Chromium and Firefox (bundled by
 * scripts/build-portable.mjs with `vitest` aliased to test/portable/vitest-shim.ts), so it imports only
 * what all of them support.
 *
 * Every case is written from the HTML spec's StructuredSerialize/StructuredDeserialize steps and the
 * lists of cases in web-platform-tests (html/webappapis/structured-clone), Node's and Bun's
 * structured-clone tests. Each check runs twice: against structura's `clone` and against this runtime's
 * own `structuredClone`, the oracle. Where the runtime is known to deviate from the spec the case is
 * marked (DEVIATIONS below): the native run then asserts that the runtime still deviates (so a stale mark
 * fails), and structura is held to the spec.
 */

import { expect, it } from "vitest";
import { clone } from "../../src/index.ts";

export type ConformanceRuntime = "node" | "bun" | "deno" | "chromium" | "firefox";

function detectRuntime(): ConformanceRuntime {
  const g = globalThis as { Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } };
  if (g.Bun !== undefined) return "bun";
  if (g.Deno !== undefined) return "deno";
  if (typeof process !== "undefined" && typeof process.versions?.node === "string") return "node";
  return (g.navigator?.userAgent ?? "").includes("Firefox") ? "firefox" : "chromium";
}

export const runtime: ConformanceRuntime = detectRuntime();

export type Clone = (value: unknown, options?: unknown) => unknown;

export const structura: Clone = (value, options) =>
  options === undefined ? clone(value) : clone(value, options as never);
export const native: Clone = (value, options) =>
  options === undefined
    ? structuredClone(value)
    : structuredClone(value, options as StructuredSerializeOptions);

/** Runtime deviations from the spec, by case id: what the runtime does instead. */
export const DEVIATIONS: Readonly<Record<string, Partial<Record<ConformanceRuntime, string>>>> = {
  "file-stays-file": { node: "Node 20 clones a File into a plain Blob" },
  "file-subclass": { node: "Node 20 clones a File (subclass) into a plain Blob" },
  "non-serializable-platform": { node: "Node 20 clones a Response into {} instead of refusing it" },
  "domexception-clone": { node: "Node 20 clones a DOMException into {}" },
  "domexception-stack": {
    node: "Node 20 clones a DOMException into {} (no stack)",
    firefox: "Firefox gives the clone of a DOMException an empty stack",
  },
  "stack-from-engine": {
    firefox:
      "Firefox serializes an error's stack from the engine's record of where the error was made, not by reading `stack`: an assigned, inherited or getter-made stack is not the clone's, and a stack getter is not run",
  },
  "detached-after-kept": {
    node: "Node 20 ignores an already detached ArrayBuffer in the transfer list",
    firefox: "Firefox detaches the buffers listed before an already detached one, then throws",
  },
  "domexception-transfer": { node: "Node 20 throws TypeError, not DataCloneError, for a non-transferable" },
  "platform-object-transfer": {
    node: "Node 20 throws TypeError, not DataCloneError, for a non-transferable",
    deno: "Deno throws TypeError (it takes any object in the list but a buffer for a port), not DataCloneError",
  },
  "duplicate-transfer": {
    deno: "Deno accepts the same ArrayBuffer twice in the transfer list (and detaches it)",
  },
  "exception-detaches": {
    deno: "Deno detaches the listed buffers even when serializing the value throws",
  },
  "detached-buffer-transfer": {
    node: "Node 20 ignores an already detached ArrayBuffer in the transfer list",
  },
  "detached-during-serialization": {
    node: "Node 20 completes the transfer of a buffer a getter detached while the value was serialized",
    deno: "Deno completes the transfer of a buffer a getter detached while the value was serialized",
  },
  "index-getter-fills-hole": {
    bun: "Bun copies an element an index getter stored into a hole, which the key snapshot taken before any read excludes",
  },
  "index-getter-adds-named": {
    bun: "Bun copies a named property an index getter added, which the key snapshot taken before any read excludes",
  },
  "detached-check-order": {
    bun: "Bun checks for a detached buffer in the transfer list before serializing, so a getter's exception is lost",
    deno: "Deno checks for a detached buffer in the transfer list before serializing, so a getter's exception is lost",
  },
  "stackless-error": {
    node: "V8 gives the clone of an error without a string stack an own `stack: undefined`",
    deno: "V8 gives the clone of an error without a string stack an own `stack: undefined`",
    chromium: "V8 gives the clone of an error without a string stack an own `stack: undefined`",
  },
  "sab-transfer": {
    node: "Node 20 throws TypeError, not DataCloneError, for a SharedArrayBuffer in the list",
  },
  "transfer-not-iterable-object": {
    node: "Node 20 treats null, or an object without a callable @@iterator, as no transfer list",
  },
  "transfer-iteration-order": {
    node: "Node 20 reads the whole transfer iterable before converting its entries",
  },
};

/**
 * Deviations of the host that structura inherits, because it hands these platform objects to the host's
 * own structuredClone (it cannot see inside a MessagePort). structura is then held to the host's result.
 */
export const INHERITED: Readonly<Record<string, Partial<Record<ConformanceRuntime, string>>>> = {
  "detached-port-transfer": {
    bun: "Bun transfers an already transferred MessagePort again without throwing",
  },
};

/**
 * Cases that cannot be posed in a runtime, by case id: why. Such a case is reported as skipped there,
 * with the reason in its name.
 */
export const NOT_APPLICABLE: Readonly<Record<string, Partial<Record<ConformanceRuntime, string>>>> = {
  "stackless-error": {
    firefox:
      "SpiderMonkey keeps every error's stack in the engine, read through an accessor on Error.prototype: `delete e.stack` leaves it, so no error without a string stack can be made",
  },
  "stack-property-shape": {
    firefox:
      "SpiderMonkey keeps an error's stack in an internal slot behind an accessor on Error.prototype, set only by the engine: a script can carry the original's stack (checked above) only as an own property",
  },
};

/** Why a case cannot be posed in this runtime, if it cannot. */
export function notApplicable(id: string | undefined): string | undefined {
  return id === undefined ? undefined : NOT_APPLICABLE[id]?.[runtime];
}

/** This runtime's deviation for a case, if any. */
export function deviation(id: string | undefined): string | undefined {
  return id === undefined ? undefined : DEVIATIONS[id]?.[runtime];
}

/** Every mark that applies to this runtime (for the README's count). */
export function deviationsHere(): string[] {
  return Object.keys(DEVIATIONS).filter((id) => DEVIATIONS[id]![runtime] !== undefined);
}

async function fails(fn: () => unknown): Promise<boolean> {
  try {
    await fn();
    return false;
  } catch {
    return true;
  }
}

/**
 * One conformance case: `check(impl)` must pass for structura, and for the native clone unless the
 * runtime deviates (then it must fail for the native clone).
 */
export function conform(name: string, check: (impl: Clone) => unknown, id?: string): void {
  const inapplicable = notApplicable(id);
  if (inapplicable !== undefined) {
    it.skipIf(true)(`${name} — not applicable in ${runtime}: ${inapplicable}`, () => {});
    return;
  }
  const inherited = id === undefined ? undefined : INHERITED[id]?.[runtime];
  if (inherited !== undefined) {
    it(`${name} — structura and native ${runtime} deviate alike (host object): ${inherited}`, async () => {
      expect(await fails(() => check(structura))).toBe(true);
      expect(await fails(() => check(native))).toBe(true);
    });
    return;
  }
  it(`${name} — structura`, async () => {
    await check(structura);
  });
  const why = deviation(id);
  if (why === undefined) {
    it(`${name} — native ${runtime} (oracle)`, async () => {
      await check(native);
    });
  } else {
    it(`${name} — native ${runtime} deviates: ${why}`, async () => {
      expect(await fails(() => check(native))).toBe(true);
    });
  }
}

export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw, but the call returned normally");
}

/**
 * What WPT's assert_throws_dom checks: a genuine DOMException of this realm (its constructor is
 * DOMException itself), with the name and the legacy code.
 */
export function expectThrowsDom(fn: () => unknown, name = "DataCloneError", code = 25): DOMException {
  const error = caught(fn) as DOMException;
  expect(typeof error).toBe("object");
  expect(error.constructor).toBe(DOMException);
  expect(Object.getPrototypeOf(error)).toBe(DOMException.prototype);
  expect(error.name).toBe(name);
  expect(error.code).toBe(code);
  return error;
}

/** What assert_throws_js checks: an error whose constructor is exactly `Ctor`. */
export function expectThrowsJs(fn: () => unknown, Ctor: ErrorConstructor): unknown {
  const error = caught(fn) as Error;
  expect(error.constructor).toBe(Ctor);
  return error;
}

/** Blob bytes (Response, as WPT reads them, is in both runtimes; arrayBuffer() is simpler). */
export async function bytesOf(blob: Blob): Promise<number[]> {
  return [...new Uint8Array(await blob.arrayBuffer())];
}
