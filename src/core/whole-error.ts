/**
 * Errors "whole", as the text (v3) and binary (v2) formats keep them by default: more than the
 * structured clone algorithm keeps (`types.ts` readError/buildError, which `clone` and the
 * `errors: "structuredClone"` option use). See docs/text-format.md §3.3 and docs/binary-format.md §8.1.
 *
 * Kept: the class, as the nearest built-in error constructor on the prototype chain from a closed list
 * (never a constructor looked up by a name from input); `name`, whatever string it is; `message`,
 * `stack`, `cause`; AggregateError's `errors`, SuppressedError's `error` and `suppressed`; and the other
 * own enumerable string-keyed properties, as ordinary values.
 */

import { ERROR_NAMES, setStack } from "./error-parts.ts";
import { intrinsic } from "./intrinsics.ts";
import { defineProperty, getOwnPropertyDescriptor, getPrototypeOf } from "./reflect.ts";

/** The closed list of error classes, by id (the binary format's class byte; the text format's name). */
export const ERROR_CLASSES = /* @__PURE__ */ intrinsic(
  () => [...ERROR_NAMES, "AggregateError", "SuppressedError"] as const,
);
export type ErrorClassName = (typeof ERROR_CLASSES)[number];
export const AGGREGATE_ERROR = 7;
export const SUPPRESSED_ERROR = 8;

type AnyErrorCtor = new (...args: unknown[]) => Error;

/** The constructors this host has, by class id (SuppressedError is newer than most hosts). */
// Module-level lookups marked pure, so that bundles without whole errors drop them (see intrinsics.ts).
const classCtors: (AnyErrorCtor | undefined)[] = /* @__PURE__ */ intrinsic(() =>
  ERROR_CLASSES.map((name) => (globalThis as unknown as Record<string, AnyErrorCtor | undefined>)[name]),
);
/** Class id by prototype object: the prototype chain walk compares identities, never names. */
const classByProto: Map<object, number> = /* @__PURE__ */ intrinsic(() => {
  const byProto = new Map<object, number>();
  for (let i = 0; i < classCtors.length; i++) {
    const ctor = classCtors[i];
    if (typeof ctor === "function") byProto.set(ctor.prototype as object, i);
  }
  return byProto;
});

const keysOf = /* @__PURE__ */ intrinsic(() => Object.keys);

/** An error taken apart (see readWholeError). Fields not present are `undefined`/false. */
export interface WholeError {
  /** Index in ERROR_CLASSES. */
  cls: number;
  /** A name to define on the rebuilt error (its class would otherwise give another one). */
  name: string | undefined;
  hasMessage: boolean;
  message: string | undefined;
  stack: string | undefined;
  hasCause: boolean;
  cause: unknown;
  /** AggregateError's own `errors`. */
  hasErrors: boolean;
  errors: unknown;
  /** SuppressedError's own `error` and `suppressed`. */
  hasSuppressed: boolean;
  error: unknown;
  suppressed: unknown;
  /** Own enumerable string keys written as properties (the fields above left out). */
  keys: string[];
}

function ownData(o: object, key: string): PropertyDescriptor | undefined {
  const desc = getOwnPropertyDescriptor(o, key);
  return desc !== undefined && "value" in desc ? desc : undefined;
}

/** The nearest allow-listed class on the prototype chain (Error when there is none). */
export function errorClassOf(error: object): number {
  for (let o = getPrototypeOf(error) as object | null; o !== null; o = getPrototypeOf(o) as object | null) {
    const cls = classByProto.get(o);
    if (cls !== undefined) return cls;
  }
  return 0;
}

/** The name an error of class `cls` rebuilt on this host shows without a name of its own. */
function className(cls: number): string {
  return ERROR_CLASSES[cls]!;
}

/**
 * Takes an error apart for the whole-error formats. `message` and `cause` are own data properties (as in
 * the structured clone algorithm), `stack` is read with [[Get]] and kept when it is a string, `name` is
 * read with [[Get]] and kept when it is a string other than the class's: an own enumerable `name` is
 * kept as a property instead, so that its enumerability comes back too. `stack` is never a property.
 */
export function readWholeError(error: object): WholeError {
  const cls = errorClassOf(error);
  const messageDesc = ownData(error, "message");
  const hasMessage = messageDesc !== undefined;
  const rawStack = (error as { stack?: unknown }).stack;
  const stack = typeof rawStack === "string" ? rawStack : undefined;
  const causeDesc = ownData(error, "cause");
  const errorsDesc = cls === AGGREGATE_ERROR ? ownData(error, "errors") : undefined;
  const errorDesc = cls === SUPPRESSED_ERROR ? ownData(error, "error") : undefined;
  const suppressedDesc = cls === SUPPRESSED_ERROR ? ownData(error, "suppressed") : undefined;
  const hasSuppressed = errorDesc !== undefined && suppressedDesc !== undefined;
  const nameDesc = getOwnPropertyDescriptor(error, "name");
  let name: string | undefined;
  if (nameDesc === undefined || !nameDesc.enumerable) {
    const rawName = (error as { name?: unknown }).name;
    if (typeof rawName === "string" && rawName !== className(cls)) name = rawName;
  }
  const own = keysOf(error);
  const keys: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const key = own[i]!;
    switch (key) {
      case "message":
        if (hasMessage) continue;
        break;
      case "stack":
        // Only ever the stack field (a string): SpiderMonkey's Error.prototype.stack setter makes an
        // assigned non-string an own enumerable property, which V8 and JSC keep non-enumerable.
        continue;
      case "cause":
        if (causeDesc !== undefined) continue;
        break;
      case "errors":
        if (errorsDesc !== undefined) continue;
        break;
      case "error":
      case "suppressed":
        if (hasSuppressed) continue;
        break;
    }
    keys.push(key);
  }
  return {
    cls,
    name,
    hasMessage,
    message: hasMessage ? String(messageDesc.value) : undefined,
    stack,
    hasCause: causeDesc !== undefined,
    cause: causeDesc?.value,
    hasErrors: errorsDesc !== undefined,
    errors: errorsDesc?.value,
    hasSuppressed,
    error: errorDesc?.value,
    suppressed: suppressedDesc?.value,
    keys,
  };
}

/**
 * Builds an error of class `cls` (from the closed list; a class this host lacks becomes an Error named
 * after it), with `message`, `stack` and `name`. The slots (cause, errors, error/suppressed, properties)
 * are set afterwards with `defineHidden`/`defineVisible`, so that they can refer back to the error.
 * `hasCause` makes room for `cause` where a native error has it (before AggregateError's `errors`).
 */
export function buildWholeError(
  cls: number,
  name: string | undefined,
  message: string | undefined,
  stack: string | undefined,
  hasCause: boolean,
): Error {
  const Ctor = classCtors[cls];
  let error: Error;
  if (Ctor === undefined) {
    error = message === undefined ? new Error() : new Error(message);
    if (name === undefined) name = className(cls);
  } else if (cls === AGGREGATE_ERROR) {
    error = new Ctor([], message, hasCause ? { cause: undefined } : undefined);
  } else if (cls === SUPPRESSED_ERROR) {
    error = new Ctor(undefined, undefined, message);
  } else {
    error = message === undefined ? new Ctor() : new Ctor(message);
  }
  setStack(error, stack);
  if (name !== undefined) defineHidden(error, "name", name);
  return error;
}

/** An own non-enumerable data property, as a native error's `message`, `cause` and `errors` are. */
export function defineHidden(target: object, key: string, value: unknown): void {
  defineProperty(target, key, { value, writable: true, enumerable: false, configurable: true });
}

/** An own enumerable data property (never an assignment: `__proto__` stays a property). */
export function defineVisible(target: object, key: string, value: unknown): void {
  defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Whether a class id is on the closed list. */
export function isErrorClass(cls: unknown): cls is number {
  return typeof cls === "number" && cls >= 0 && cls < ERROR_CLASSES.length && (cls | 0) === cls;
}

/** The class id of a class name from input (a closed-list lookup), or -1. */
export function errorClassId(name: unknown): number {
  return ERROR_CLASSES.indexOf(name as ErrorClassName);
}
