/**
 * Error classes shared by every capability.
 *
 * Two families:
 * - `DataCloneError`: a value that the structured clone algorithm refuses (a function, a symbol, a
 *   WeakMap, ...). It is a `DOMException` named "DataCloneError", exactly what native
 *   `structuredClone` throws, so existing `catch` code keeps working; structura adds `path`.
 * - `StructuraError` and its subclasses: everything structura itself reports, chiefly bad input to a
 *   decoder (binary, text, multipart) and exceeded limits. Each carries a stable string `code`, and where
 *   it applies the `path` of the value and the `offset` (byte or character position) in the input.
 */

import { intrinsic } from "./intrinsics.ts";

/** Stable machine-readable codes. Adding one is fine; renaming one is a breaking change. */
export type StructuraErrorCode =
  // input ended before the value did
  | "ERR_TRUNCATED"
  // bytes/characters that are not what the format allows at that place
  | "ERR_SYNTAX"
  // a type tag this version does not know
  | "ERR_UNKNOWN_TAG"
  // a declared length that the input cannot hold, or that is out of range
  | "ERR_BAD_LENGTH"
  // a back-reference to a value that does not exist (yet)
  | "ERR_BAD_REFERENCE"
  // a structurally valid record whose contents are impossible (e.g. a view past its buffer's end)
  | "ERR_BAD_VALUE"
  // format magic or version not understood
  | "ERR_VERSION"
  // nesting deeper than the configured limit
  | "ERR_DEPTH_LIMIT"
  // a custom type named in the input that the registry does not have
  | "ERR_UNKNOWN_TYPE"
  // bytes left over after the value
  | "ERR_TRAILING_DATA"
  // a configured size/count limit was exceeded (the subclass LimitError says which)
  | "ERR_LIMIT"
  // the caller used the API wrongly (bad option, wrong argument type)
  | "ERR_INVALID_ARGUMENT"
  // a multipart body that breaks the multipart/form-data grammar
  | "ERR_MULTIPART"
  // a channel whose other end went away, or whose ring held bytes that do not decode
  | "ERR_CHANNEL_CLOSED"
  | "ERR_CHANNEL_CORRUPT";

export interface StructuraErrorOptions {
  /** Where in the value graph, e.g. `value.users[3].onClick`. */
  path?: string | undefined;
  /** Byte (binary, multipart) or character (text) offset in the input where the problem was found. */
  offset?: number | undefined;
  cause?: unknown;
}

/**
 * `instanceof` by brand, not by prototype identity: an application can load structura twice (the ESM
 * and the CommonJS build, the dual-package hazard, or two copies in node_modules), and an error thrown
 * by one copy must still be `instanceof DecodeError` for the other. Each class marks its prototype with
 * a registry symbol (`Symbol.for`, shared by every copy and realm); `instanceof` on a structura class
 * checks that mark, while a user's own subclass keeps the ordinary prototype check.
 */
const OWN_BRAND = Symbol.for("structura.error.brand");
const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

function brandHasInstance(this: unknown, value: unknown): boolean {
  if (ordinaryHasInstance.call(this, value)) return true;
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  if (typeof this !== "function" || !Object.hasOwn(this, OWN_BRAND)) return false;
  const mark = (this as unknown as Record<symbol, symbol>)[OWN_BRAND]!;
  try {
    return (value as Record<symbol, unknown>)[mark] === true;
  } catch {
    return false; // a revoked Proxy
  }
}

/**
 * Names `cls` and brands it as structura's `name` class (see OWN_BRAND); returns it. Each class is made
 * `export const X = branded(class ...)`, a call marked free of side effects, so that a bundle which never
 * names a class drops it with its branding: statements at module level (`X.prototype.name = ...`,
 * `brand(X)`) are side effects a bundler must keep, and with them the class (`clone` carried DecodeError
 * and LimitError, ~90 B gzip). The constructor's own `name` is set too, so that it stays the class's name
 * in a consumer's minified bundle.
 */
/* @__NO_SIDE_EFFECTS__ */
function branded<C extends abstract new (...args: never[]) => unknown>(cls: C, name: string): C {
  // Set on the prototype rather than per instance so that `name` is not an own enumerable property.
  (cls.prototype as { name: string }).name = name;
  Object.defineProperty(cls, "name", { value: name });
  const mark = Symbol.for(`structura.${name}`);
  Object.defineProperty(cls.prototype, mark, { value: true });
  Object.defineProperty(cls, OWN_BRAND, { value: mark });
  Object.defineProperty(cls, Symbol.hasInstance, { value: brandHasInstance, configurable: true });
  return cls;
}

class StructuraErrorClass extends Error {
  readonly code: StructuraErrorCode;
  readonly path: string | undefined;
  readonly offset: number | undefined;

  constructor(code: StructuraErrorCode, message: string, options?: StructuraErrorOptions) {
    super(
      withLocation(message, options),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.path = options?.path;
    this.offset = options?.offset;
  }
}
export const StructuraError = /* @__PURE__ */ branded(StructuraErrorClass, "StructuraError");
export type StructuraError = StructuraErrorClass;

class DecodeErrorClass extends StructuraError {}
/** Input a decoder cannot accept: truncated, malformed, forged lengths, unknown tags, bad references. */
export const DecodeError = /* @__PURE__ */ branded(DecodeErrorClass, "DecodeError");
export type DecodeError = DecodeErrorClass;

class LimitErrorClass extends StructuraError {
  readonly limit: string;
  readonly max: number;
  constructor(limit: string, max: number, message: string, options?: StructuraErrorOptions) {
    super(limit === "depth" ? "ERR_DEPTH_LIMIT" : "ERR_LIMIT", message, options);
    this.limit = limit;
    this.max = max;
  }
}
/** A configured limit (depth, size, count) was exceeded. `limit` names it, `max` is its value. */
export const LimitError = /* @__PURE__ */ branded(LimitErrorClass, "LimitError");
export type LimitError = LimitErrorClass;

class ArgumentErrorClass extends StructuraError {
  constructor(message: string, options?: StructuraErrorOptions) {
    super("ERR_INVALID_ARGUMENT", message, options);
  }
}
/** The caller passed something the API does not take. */
export const ArgumentError = /* @__PURE__ */ branded(ArgumentErrorClass, "ArgumentError");
export type ArgumentError = ArgumentErrorClass;

function withLocation(message: string, options: StructuraErrorOptions | undefined): string {
  if (options === undefined) return message;
  let where = "";
  if (options.path !== undefined) where += ` at ${options.path}`;
  if (options.offset !== undefined) where += ` (offset ${options.offset})`;
  return where === "" ? message : message + where;
}

/**
 * What native `structuredClone` throws for a value it refuses: a genuine `DOMException` named
 * "DataCloneError" (legacy code 25), whose `constructor` is `DOMException` itself, as the web platform's
 * own tests (`assert_throws_dom`) require. structura adds `path`, the place of the refused value, as an
 * own property.
 *
 * `DataCloneError` is therefore not a class: `new DataCloneError(message, path)` returns such a
 * DOMException, and `error instanceof DataCloneError` (through Symbol.hasInstance) is true for every
 * DOMException named "DataCloneError", structura's and the host's alike.
 */
export interface DataCloneError extends DOMException {
  readonly name: "DataCloneError";
  /** Where in the value graph the refused value was, e.g. `value.users[3].onClick`. */
  readonly path: string | undefined;
}

export interface DataCloneErrorConstructor {
  new (message: string, path?: string): DataCloneError;
  readonly prototype: DOMException;
  [Symbol.hasInstance](value: unknown): value is DataCloneError;
}

/** Captured at load: deleting or replacing the global later must not change what structura throws. */
const DOMExceptionIntrinsic = /* @__PURE__ */ intrinsic(() => DOMException);
const DOMExceptionName = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(DOMException.prototype, "name")?.get,
);

function createDataCloneError(message: string, path?: string): DataCloneError {
  const error = new DOMExceptionIntrinsic(
    path === undefined ? message : `${path}: ${message}`,
    "DataCloneError",
  ) as DOMException & { path: string | undefined };
  error.path = path;
  return error as DataCloneError;
}

/** Whether a value is a DOMException named "DataCloneError" (read by brand, so a plain object is not). */
function isDataCloneError(value: unknown): value is DataCloneError {
  if (typeof value !== "object" || value === null || !(value instanceof DOMExceptionIntrinsic)) return false;
  if (DOMExceptionName === undefined) return (value as DOMException).name === "DataCloneError";
  try {
    return DOMExceptionName.call(value) === "DataCloneError";
  } catch {
    // An object that merely inherits from DOMException.prototype has no name slot.
    return false;
  }
}

// Made inside a call marked pure, so that a bundle which never throws or tests DataCloneError (parse,
// deserialize) drops it (see intrinsics.ts).
export const DataCloneError: DataCloneErrorConstructor = /* @__PURE__ */ intrinsic(() => {
  const ctor = function DataCloneError(message: string, path?: string): DataCloneError {
    return createDataCloneError(message, path);
  } as unknown as DataCloneErrorConstructor;
  Object.defineProperty(ctor, "prototype", { value: DOMExceptionIntrinsic.prototype });
  Object.defineProperty(ctor, Symbol.hasInstance, { value: isDataCloneError });
  return ctor;
});

/** The name a refused value is reported under, e.g. `function onClick`, `Symbol(x)`, `#<WeakMap>`. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "function":
      return value.name ? `function ${value.name}` : "anonymous function";
    case "symbol":
      return value.toString();
    case "object": {
      if (value === null) return "null";
      // toString reads Symbol.toStringTag, which can throw (a revoked Proxy) or run user code; a getter
      // there is never run (native structuredClone does not read the tag).
      try {
        if (tagIsAccessor(value)) return "#<Object>";
        return `#<${Object.prototype.toString.call(value).slice(8, -1)}>`;
      } catch {
        return "#<Object>";
      }
    }
    default:
      return String(value);
  }
}

/** Whether @@toStringTag resolves to an accessor on `value` or its prototypes (checked without running it). */
function tagIsAccessor(value: object): boolean {
  for (let o: object | null = value; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const desc = Object.getOwnPropertyDescriptor(o, Symbol.toStringTag);
    if (desc !== undefined) return desc.get !== undefined || desc.set !== undefined;
  }
  return false;
}
