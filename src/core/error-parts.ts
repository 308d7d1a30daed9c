/**
 * Errors taken apart and rebuilt (split from types.ts): the seven names the spec keeps, message, stack
 * and cause read per the HTML algorithm, and rebuilt from a closed allow-list of constructors.
 */

import { intrinsic } from "./intrinsics.ts";
import { defineProperty, getOwnPropertyDescriptor, hasOwn } from "./reflect.ts";

/** The error names the spec keeps; any other name becomes "Error". */
export const ERROR_NAMES = [
  "Error",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
] as const;
export type ErrorName = (typeof ERROR_NAMES)[number];

export interface ErrorParts {
  name: ErrorName;
  /** Present only when the error had an own data property `message` (ToString'd). */
  message: string | undefined;
  hasMessage: boolean;
  /** The `stack` string, when the error had one. */
  stack: string | undefined;
  /** `cause`, when the error had an own data property `cause`. */
  hasCause: boolean;
  cause: unknown;
}

/**
 * Takes an Error apart per the HTML algorithm (name via [[Get]], kept only if it is one of the seven
 * standard names; message only if an own data property), plus what V8 and Bun also carry: the stack
 * and an own data `cause`.
 *
 * The stack is read with an ordinary [[Get]], as V8's serializer does: engines keep it in different
 * places (an own data property in V8 before 2025 and in JavaScriptCore, an own accessor in newer V8, an
 * accessor on Error.prototype in SpiderMonkey), and only [[Get]] finds it in all of them. It is kept
 * when it is a string.
 *
 * Node deviation: V8 applies ToString to `name` and reads it twice; the spec reads it once and compares
 * the value itself, so `{ toString() { return "TypeError" } }` gives "Error". structura follows the spec.
 */
export function readError(error: object): ErrorParts {
  const rawName = (error as { name?: unknown }).name;
  const name: ErrorName = ERROR_NAMES.includes(rawName as ErrorName) ? (rawName as ErrorName) : "Error";
  const messageDesc = getOwnPropertyDescriptor(error, "message");
  const hasMessage = messageDesc !== undefined && "value" in messageDesc;
  const message = hasMessage ? String(messageDesc.value) : undefined;
  const rawStack = (error as { stack?: unknown }).stack;
  const stack = typeof rawStack === "string" ? rawStack : undefined;
  const causeDesc = getOwnPropertyDescriptor(error, "cause");
  const hasCause = causeDesc !== undefined && "value" in causeDesc;
  return { name, message, hasMessage, stack, hasCause, cause: hasCause ? causeDesc.value : undefined };
}

const errorConstructors: Record<ErrorName, ErrorConstructor> = /* @__PURE__ */ intrinsic(() => ({
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
}));

/**
 * Rebuilds an Error from a closed allow-list of constructors (never looked up by a name from input).
 * `message` and `cause` become own non-enumerable data properties, as on a native error.
 */
export function buildError(name: ErrorName, message: string | undefined, stack: string | undefined): Error {
  const Ctor = errorConstructors[name] ?? Error;
  const error = message === undefined ? new Ctor() : new Ctor(message);
  setStack(error, stack);
  return error;
}

/**
 * Gives a rebuilt error (or DOMException) the original's stack, in the form this engine's own errors
 * carry it, which is what its native clone produces: where a new error has an own `stack` accessor
 * (newer V8), through that accessor's setter; where it has an own data property (older V8,
 * JavaScriptCore), as a data property; where it has none (SpiderMonkey keeps an accessor on
 * Error.prototype), as an own data property, the only way to give one object a stack of its own.
 *
 * Without a stack, the stack captured when the error was made here is removed (it would name
 * structura's frames, not the original's) and nothing is defined: an own `stack: undefined` would hide
 * an accessor on the prototype.
 */
export function setStack(error: object, stack: string | undefined): void {
  // Never read the new error's own `stack` here: in V8 that formats the trace captured at construction
  // (slow, and slower still where a test runner maps it through source maps).
  if (stack === undefined) {
    if (hasOwn.call(error, "stack")) delete (error as { stack?: unknown }).stack;
    return;
  }
  const setter = ownStackSetter();
  if (setter !== null && hasOwn.call(error, "stack")) {
    setter.call(error, stack);
    return;
  }
  defineProperty(error, "stack", { value: stack, writable: true, enumerable: false, configurable: true });
}

let stackSetter: ((this: object, value: string) => void) | null | undefined;

/** The setter of the own `stack` accessor this engine gives new errors (newer V8), or null; probed once. */
function ownStackSetter(): ((this: object, value: string) => void) | null {
  if (stackSetter === undefined) {
    const desc = getOwnPropertyDescriptor(new Error(), "stack");
    stackSetter = desc?.set ?? null;
  }
  return stackSetter;
}

/** Sets `cause` on a rebuilt error (separately, so a cause that refers back to the error can be wired). */
export function setErrorCause(error: Error, cause: unknown): void {
  defineProperty(error, "cause", {
    value: cause,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

export function isErrorName(name: unknown): name is ErrorName {
  return ERROR_NAMES.includes(name as ErrorName);
}
