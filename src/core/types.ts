/**
 * The table of built-in types: how each is recognised, taken apart and rebuilt. It is the single source
 * of truth for `clone`, the binary format and the text format, so the three agree on what a value is.
 *
 * Recognition follows the HTML structured clone algorithm, which goes by internal slots, not by
 * prototype: a Date whose prototype was swapped is still a Date, an object that merely inherits from
 * Date.prototype is not. JavaScript can test internal slots only through "brand checks" (calling a
 * built-in method that throws on the wrong receiver), so the common case is settled by a prototype
 * identity switch and the brand check confirms it; unusual prototypes take the slower full scan.
 */

import { hostTypes, proxyDetector } from "./host.ts";
import { intrinsic } from "./intrinsics.ts";

/** What kind of value an object is, for the purposes of structured serialization. */
export enum Kind {
  /** Ordinary object: own enumerable string-keyed properties only. */
  Object = 0,
  Array = 1,
  Date = 2,
  RegExp = 3,
  Map = 4,
  Set = 5,
  ArrayBuffer = 6,
  SharedArrayBuffer = 7,
  TypedArray = 8,
  DataView = 9,
  Error = 10,
  BooleanObject = 11,
  NumberObject = 12,
  StringObject = 13,
  BigIntObject = 14,
  Blob = 15,
  File = 16,
  DOMException = 17,
  /** A platform object structura does not take apart (MessagePort, CryptoKey, ...): `clone` hands it to
   * the host's structuredClone; the binary and text formats refuse it. */
  Host = 18,
  /** Not serializable: WeakMap, WeakSet, WeakRef, Promise, Proxy, generators, platform objects that the
   * spec does not mark serializable (URL, Headers, ...). */
  Refused = 19,
}

// ---------------------------------------------------------------------------------------------------
// Typed arrays

/** Stable ids (also used on the wire): never reorder, only append. */
export const TYPED_ARRAY_NAMES = [
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
  "Float16Array",
] as const;

export type TypedArrayName = (typeof TYPED_ARRAY_NAMES)[number];
export type AnyTypedArray = Exclude<ArrayBufferView, DataView>;
export type TypedArrayConstructor = new (
  buffer: ArrayBufferLike,
  byteOffset?: number,
  length?: number,
) => AnyTypedArray;

// Module-level lookups are wrapped in `intrinsic` and marked pure so that bundlers drop the unused ones
// (see intrinsics.ts); each still runs once, at load.
const typedArrayIds: Record<string, number> = /* @__PURE__ */ intrinsic(() => {
  const ids: Record<string, number> = Object.create(null);
  for (let i = 0; i < TYPED_ARRAY_NAMES.length; i++) ids[TYPED_ARRAY_NAMES[i]!] = i;
  return ids;
});

/** `%TypedArray%.prototype[@@toStringTag]` is a brand check: the element type's name, or undefined. */
const typedArrayTag = /* @__PURE__ */ intrinsic(
  () =>
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!.get as (
      this: unknown,
    ) => string | undefined,
);

/** The typed array constructors, captured at load: a global deleted or replaced later changes nothing. */
const typedArrayConstructors: (TypedArrayConstructor | undefined)[] = /* @__PURE__ */ intrinsic(() =>
  TYPED_ARRAY_NAMES.map((name) => {
    const ctor = (globalThis as Record<string, unknown>)[name];
    return typeof ctor === "function" ? (ctor as TypedArrayConstructor) : undefined;
  }),
);

/** The constructor for a typed array id, or undefined where the host lacks it (Float16Array). */
export function typedArrayConstructor(id: number): TypedArrayConstructor | undefined {
  return typedArrayConstructors[id];
}

/** Bytes per element for each typed array id. */
export const TYPED_ARRAY_ELEMENT_SIZE = [1, 1, 1, 2, 2, 4, 4, 4, 8, 8, 8, 2] as const;

const byteLengthOfBuffer = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!,
);
const byteLengthOfShared = /* @__PURE__ */ intrinsic(() =>
  typeof SharedArrayBuffer === "function"
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength")!.get!
    : undefined,
);
const resizableOfBuffer = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "resizable")?.get,
);
const maxByteLengthOf = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "maxByteLength")?.get,
);
const detachedOf = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached")?.get,
);

/**
 * A view is length-tracking when it was made over a resizable buffer without an explicit length, so its
 * length follows the buffer. JavaScript has no accessor for that slot, so this asks the buffer: only a
 * view ending exactly at the end of a resizable buffer can be tracking, and for those a temporary resize
 * (restored at once, contents kept) shows whether the view's length follows.
 */
function trackingByProbe(
  view: ArrayBufferView,
  byteOffset: number,
  byteLength: number,
  isDataView: boolean,
): boolean {
  const buffer = (isDataView ? dvBuffer.call(view) : taBuffer.call(view)) as ArrayBuffer & {
    growable?: boolean;
  };
  const measure = isDataView ? dvByteLength : taByteLength;
  if (byteLengthOfShared !== undefined && brand(byteLengthOfShared, buffer)) {
    // Growing a SharedArrayBuffer cannot be undone; a view over a growable one that ends at its end is
    // taken as tracking, which is what `new T(buffer, offset)` makes.
    return buffer.growable === true && byteOffset + byteLength === bufferByteLength(buffer);
  }
  if (resizableOfBuffer === undefined || !resizableOfBuffer.call(buffer)) return false;
  const size = byteLengthOfBuffer.call(buffer) as number;
  if (byteOffset + byteLength !== size) return false;
  const max = maxByteLengthOf!.call(buffer) as number;
  // Grow by a whole element: a tracking view of wider elements only lengthens by whole elements.
  const element = isDataView ? 1 : TYPED_ARRAY_ELEMENT_SIZE[typedArrayIds[typedArrayTag.call(view)!]!]!;
  if (size + element <= max) {
    buffer.resize(size + element);
    const tracking = measure.call(view) !== byteLength;
    buffer.resize(size);
    return tracking;
  }
  // The buffer is (nearly) at its maximum: shrink by one element instead. A fixed-length view then goes
  // out of bounds (length 0, or a TypeError from a DataView's getter); a tracking one loses an element.
  // A one-element view at offset 0 reads 0 either way and is taken as tracking, the way such views are
  // usually made.
  if (byteLength < element) return true;
  const saved = new Uint8Array(buffer, size - element, element).slice();
  buffer.resize(size - element);
  let tracking: boolean;
  try {
    tracking = measure.call(view) !== 0 || byteLength === element;
  } catch {
    tracking = false;
  }
  buffer.resize(size);
  new Uint8Array(buffer, size - element, element).set(saved);
  return tracking;
}

/** Whether a typed array or DataView is length-tracking (see `readView`, which also reports it). */
export function isLengthTracking(view: ArrayBufferView): boolean {
  const isDataView = typedArrayTag.call(view) === undefined;
  const parts = readView(view, isDataView);
  return parts?.tracking === true;
}

/** Intrinsic accessors: an own `byteLength` getter on a view or buffer must never run (the spec reads
 * internal slots, not properties). */
/* @__NO_SIDE_EFFECTS__ */
function intrinsicGetter(proto: () => object, key: string): (this: unknown) => unknown {
  return Object.getOwnPropertyDescriptor(proto(), key)!.get as (this: unknown) => unknown;
}
const typedArrayProto = (): object => Object.getPrototypeOf(Uint8Array.prototype) as object;
const dataViewProto = (): object => DataView.prototype;
const taBuffer = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "buffer");
const taByteOffset = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "byteOffset");
const taByteLength = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "byteLength");
const taLength = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "length");
const taAt = /* @__PURE__ */ intrinsic(
  () => (typedArrayProto() as { at: (this: unknown, index: number) => unknown }).at,
);
const dvBuffer = /* @__PURE__ */ intrinsicGetter(dataViewProto, "buffer");
const dvByteOffset = /* @__PURE__ */ intrinsicGetter(dataViewProto, "byteOffset");
const dvByteLength = /* @__PURE__ */ intrinsicGetter(dataViewProto, "byteLength");
const bufferSlice = /* @__PURE__ */ intrinsic(() => ArrayBuffer.prototype.slice);

/** Byte length of an ArrayBuffer or SharedArrayBuffer, by slot. */
export function bufferByteLength(buffer: ArrayBufferLike): number {
  const shared = byteLengthOfShared !== undefined && brand(byteLengthOfShared, buffer);
  return (shared ? byteLengthOfShared!.call(buffer) : byteLengthOfBuffer.call(buffer)) as number;
}

/** Whether a value is an ArrayBuffer (not a SharedArrayBuffer), by slot. */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return typeof value === "object" && value !== null && brand(byteLengthOfBuffer, value);
}

/** Whether an ArrayBuffer is detached (no `detached` getter before ES2024, so probe by making a view). */
export function isDetached(buffer: ArrayBuffer): boolean {
  if (detachedOf !== undefined) return detachedOf.call(buffer) as boolean;
  if ((byteLengthOfBuffer.call(buffer) as number) !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/** A copy of an ArrayBuffer's bytes through the intrinsic `slice` (an own `slice` must never run). */
export function copyBufferBytes(buffer: ArrayBuffer): ArrayBuffer {
  return bufferSlice.call(buffer, 0) as ArrayBuffer;
}

export interface ViewParts {
  buffer: ArrayBufferLike;
  byteOffset: number;
  /** Bytes for a DataView, elements for a typed array. */
  length: number;
  /** Typed array id, or -1 for a DataView. */
  type: number;
  /** Length follows a resizable buffer. */
  tracking: boolean;
}

/**
 * Takes a typed array or DataView apart by slot. Returns null when the view cannot be serialized: its
 * buffer is detached, or it is out of bounds of a shrunk resizable buffer (the spec throws
 * DataCloneError for both).
 */
export function readView(view: ArrayBufferView, isDataView: boolean): ViewParts | null {
  if (isDataView) {
    const buffer = dvBuffer.call(view) as ArrayBufferLike;
    let byteOffset: number;
    let byteLength: number;
    try {
      // Both throw for a detached buffer or an out-of-bounds view.
      byteOffset = dvByteOffset.call(view) as number;
      byteLength = dvByteLength.call(view) as number;
    } catch {
      return null;
    }
    return {
      buffer,
      byteOffset,
      length: byteLength,
      type: -1,
      tracking: trackingByProbe(view, byteOffset, byteLength, true),
    };
  }
  const buffer = taBuffer.call(view) as ArrayBufferLike;
  const byteLength = taByteLength.call(view) as number;
  const byteOffset = taByteOffset.call(view) as number;
  if (byteLength === 0) {
    // Out of bounds and detached views report zero lengths; `at` validates the view and throws for them.
    try {
      taAt.call(view, 0);
    } catch {
      return null;
    }
  }
  return {
    buffer,
    byteOffset,
    length: taLength.call(view) as number,
    type: typedArrayIds[typedArrayTag.call(view)!]!,
    tracking: trackingByProbe(view, byteOffset, byteLength, false),
  };
}

// ---------------------------------------------------------------------------------------------------
// Errors

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

const hasOwn = Object.prototype.hasOwnProperty;

const getOwnPropertyDescriptor = /* @__PURE__ */ intrinsic(() => Object.getOwnPropertyDescriptor);
const defineProperty = /* @__PURE__ */ intrinsic(() => Object.defineProperty);

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

// ---------------------------------------------------------------------------------------------------
// Other parts

const regexpSource = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(RegExp.prototype, "source")!.get as (this: unknown) => string,
);

/** The flag getters, in the canonical order of `flags`. Each reads the [[OriginalFlags]] slot of its
 * receiver; `RegExp.prototype.flags` itself would look them up through the (possibly swapped)
 * prototype. Flags the host does not know (`v` before ES2024) are skipped. */
const REGEXP_FLAGS: [string, (this: unknown) => boolean][] = /* @__PURE__ */ intrinsic(() => {
  const found: [string, (this: unknown) => boolean][] = [];
  for (const [flag, name] of [
    ["d", "hasIndices"],
    ["g", "global"],
    ["i", "ignoreCase"],
    ["m", "multiline"],
    ["s", "dotAll"],
    ["u", "unicode"],
    ["v", "unicodeSets"],
    ["y", "sticky"],
  ] as const) {
    const getter = Object.getOwnPropertyDescriptor(RegExp.prototype, name)?.get;
    if (getter !== undefined) found.push([flag, getter as (this: unknown) => boolean]);
  }
  return found;
});

/** Source and flags of a RegExp, read by slot (an own `source`, or a swapped prototype, cannot lie). */
export function regexpParts(re: RegExp): { source: string; flags: string } {
  let flags = "";
  for (let i = 0; i < REGEXP_FLAGS.length; i++) {
    const [flag, getter] = REGEXP_FLAGS[i]!;
    if (getter.call(re)) flags += flag;
  }
  return { source: regexpSource.call(re), flags };
}

/** maxByteLength of a resizable ArrayBuffer (by slot), or undefined for a fixed-length one. */
export function resizableMax(buffer: ArrayBuffer): number | undefined {
  return resizableOfBuffer?.call(buffer) ? (maxByteLengthOf!.call(buffer) as number) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Classification

const ObjectProto = /* @__PURE__ */ intrinsic(() => Object.prototype);
const ArrayProto = /* @__PURE__ */ intrinsic(() => Array.prototype);
const DateProto = /* @__PURE__ */ intrinsic(() => Date.prototype);
const MapProto = /* @__PURE__ */ intrinsic(() => Map.prototype);
const SetProto = /* @__PURE__ */ intrinsic(() => Set.prototype);
const RegExpProto = /* @__PURE__ */ intrinsic(() => RegExp.prototype);
const ErrorProto = /* @__PURE__ */ intrinsic(() => Error.prototype);
const ArrayBufferProto = /* @__PURE__ */ intrinsic(() => ArrayBuffer.prototype);
const toTag = /* @__PURE__ */ intrinsic(() => Object.prototype.toString);

const dateValue = /* @__PURE__ */ intrinsic(() => Date.prototype.getTime);
const mapSize = /* @__PURE__ */ intrinsic(() => Object.getOwnPropertyDescriptor(Map.prototype, "size")!.get!);
const setSize = /* @__PURE__ */ intrinsic(() => Object.getOwnPropertyDescriptor(Set.prototype, "size")!.get!);
const numberValue = /* @__PURE__ */ intrinsic(() => Number.prototype.valueOf);
const stringValue = /* @__PURE__ */ intrinsic(() => String.prototype.valueOf);
const booleanValue = /* @__PURE__ */ intrinsic(() => Boolean.prototype.valueOf);
const bigintValue = /* @__PURE__ */ intrinsic(() => BigInt.prototype.valueOf);
const symbolValue = /* @__PURE__ */ intrinsic(() => Symbol.prototype.valueOf);

function brand(check: (this: unknown) => unknown, value: object): boolean {
  try {
    check.call(value);
    return true;
  } catch {
    return false;
  }
}

function isRegExpValue(value: object): boolean {
  // RegExp.prototype itself answers "(?:)" to `source` without being a RegExp.
  return value !== RegExpProto && brand(regexpSource, value);
}

/**
 * Tags of objects with internal slots the algorithm does not know: refused (the spec throws for any
 * object with an unknown internal slot). Matched on `Object.prototype.toString`, which for these comes
 * from their intrinsic prototypes.
 */
const REFUSED_TAGS = /* @__PURE__ */ new Set([
  "WeakMap",
  "WeakSet",
  "WeakRef",
  "FinalizationRegistry",
  "Promise",
  "Generator",
  "AsyncGenerator",
  "AsyncFunction",
  "Arguments",
  "Module",
  "Array Iterator",
  "Map Iterator",
  "Set Iterator",
  "String Iterator",
  "RegExp String Iterator",
  "Iterator Helper",
  "Segmenter String Iterator",
  "Symbol",
]);

/**
 * Platform classes that the specs do not mark serializable. Node 20 deviates for the ones implemented in
 * JavaScript (URL, URLSearchParams, Headers, Request, Response, FormData, AbortSignal, ...): it clones
 * them into `{}`, as if they were class instances. Per spec they are platform objects without
 * [[Serializable]], so StructuredSerializeInternal throws DataCloneError; structura follows the spec.
 */
const NON_SERIALIZABLE_PLATFORM = [
  "URL",
  "URLSearchParams",
  "Headers",
  "Request",
  "Response",
  "FormData",
  "AbortController",
  "AbortSignal",
  "EventTarget",
  "Event",
  "TextEncoder",
  "TextDecoder",
  "TextEncoderStream",
  "TextDecoderStream",
  "CompressionStream",
  "DecompressionStream",
  "BroadcastChannel",
  "MessageChannel",
  "WebSocket",
  "Worker",
  "Performance",
  "PerformanceEntry",
  "Crypto",
  "SubtleCrypto",
];

/** Platform classes that are serializable or transferable but that structura does not take apart. */
const HOST_CLONEABLE = [
  "MessagePort",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "CryptoKey",
  "ImageData",
  "ImageBitmap",
  "OffscreenCanvas",
  "DOMPoint",
  "DOMPointReadOnly",
  "DOMRect",
  "DOMRectReadOnly",
  "DOMQuad",
  "DOMMatrix",
  "DOMMatrixReadOnly",
  "FileList",
  "AudioData",
  "VideoFrame",
  "EncodedAudioChunk",
  "EncodedVideoChunk",
  "RTCCertificate",
  "RTCDataChannel",
];

type Ctor = abstract new (...args: never[]) => unknown;
let platformTables: { refused: Ctor[]; host: Ctor[] } | undefined;

function platformCtors(names: readonly string[]): Ctor[] {
  const found: Ctor[] = [];
  const g = globalThis as Record<string, unknown>;
  for (const name of names) {
    const c = g[name];
    if (typeof c === "function" && typeof (c as { prototype?: unknown }).prototype === "object")
      found.push(c as Ctor);
  }
  return found;
}

function instanceOfAny(value: object, ctors: Ctor[]): boolean {
  for (let i = 0; i < ctors.length; i++) if (value instanceof ctors[i]!) return true;
  return false;
}

/** Platform constructors, captured at load (as the other intrinsics here): `clone` must still rebuild a
 * Blob after `delete globalThis.Blob`, as native does. */
export const BlobCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { Blob?: typeof Blob }).Blob);
export const FileCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { File?: typeof File }).File);
export const DOMExceptionCtor = /* @__PURE__ */ intrinsic(
  () => (globalThis as { DOMException?: typeof DOMException }).DOMException,
);

/**
 * Classifies an object. `typeof value` must already be "object" (functions and symbols are refused by
 * the callers before this). Proxies are refused where the host can detect them.
 */
export function classify(value: object): Kind {
  const isProxy = proxyDetector();
  if (isProxy?.(value)) return Kind.Refused;
  return classifyUnproxied(value);
}

/** `classify` for a caller that has already ruled out a Proxy. */
export function classifyUnproxied(value: object): Kind {
  const proto = Object.getPrototypeOf(value);
  switch (proto) {
    case ObjectProto: {
      // `arguments` objects (refused by V8 and, when mapped, by the spec as exotic) always have an own
      // `callee`. Other objects with Object.prototype and an internal slot are built-ins whose prototype
      // was swapped; for those with a builtin tag (Date, Array, Error, boxed primitives, RegExp)
      // Object.prototype.toString still names the slot, and the full scan recognises them.
      if (!tagIsData(value)) break;
      const tag = toTag.call(value);
      // Under Bun the global object inherits straight from Object.prototype; the spec refuses it.
      if (tag === "[object Object]") return value === globalThis ? Kind.Refused : Kind.Object;
      if (tag === "[object Arguments]" && hasOwn.call(value, "callee")) return Kind.Refused;
      break;
    }
    case ArrayProto:
      if (Array.isArray(value)) return Kind.Array;
      break;
    case DateProto:
      if (brand(dateValue, value)) return Kind.Date;
      break;
    case MapProto:
      if (brand(mapSize, value)) return Kind.Map;
      break;
    case SetProto:
      if (brand(setSize, value)) return Kind.Set;
      break;
    case RegExpProto:
      if (isRegExpValue(value)) return Kind.RegExp;
      break;
    case ArrayBufferProto:
      if (brand(byteLengthOfBuffer, value)) return Kind.ArrayBuffer;
      break;
    case ErrorProto:
      if (tagIsData(value) && toTag.call(value) === "[object Error]") return Kind.Error;
      break;
  }
  return classifyBySlots(value);
}

const TO_STRING_TAG = /* @__PURE__ */ intrinsic(() => Symbol.toStringTag);
const getPrototypeOf = /* @__PURE__ */ intrinsic(() => Object.getPrototypeOf);

/**
 * Whether @@toStringTag resolves to a data property (or to nothing), so that Object.prototype.toString
 * runs no user code. An accessor there is a getter someone wrote (the one intrinsic accessor, on
 * %TypedArray%.prototype, is never met: views are recognised first): native structuredClone never reads
 * @@toStringTag, so structura must not run it either. Only own-property checks are made, which run no
 * code (a Proxy has already been refused).
 */
function tagIsData(value: object): boolean {
  let o: object | null = value;
  while (o !== null) {
    if (hasOwn.call(o, TO_STRING_TAG)) {
      const desc = getOwnPropertyDescriptor(o, TO_STRING_TAG)!;
      return desc.get === undefined && desc.set === undefined;
    }
    o = getPrototypeOf(o) as object | null;
  }
  return true;
}

/**
 * The full scan, for objects whose prototype did not settle the question: class instances, null-
 * prototype objects, subclasses of built-ins, built-ins whose prototype was swapped.
 *
 * Object.prototype.toString names the slot of arrays, errors, boxed Boolean/Number/String, dates,
 * regexps and `arguments` objects whatever their prototype, and the @@toStringTag of the rest (Map,
 * ArrayBuffer, ...) comes from their prototypes; a non-throwing check confirms each. What remains is an
 * object tagged "Object", which is ordinary unless it is a slot type whose prototype was swapped: the
 * host's `util.types` finds those without throwing. Throwing brand checks are kept for objects with a
 * custom @@toStringTag, which are rare, because each failed one costs microseconds. On hosts without
 * `util.types` (browsers), a Map, Set, ArrayBuffer or BigInt wrapper whose prototype was replaced by an
 * unrelated one is taken for an ordinary object.
 */
function classifyBySlots(value: object): Kind {
  if (value === globalThis) return Kind.Refused;
  if (ArrayBuffer.isView(value))
    return typedArrayTag.call(value) === undefined ? Kind.DataView : Kind.TypedArray;
  if (!tagIsData(value)) return classifyWithAccessorTag(value);
  const tag = toTag.call(value) as string;
  switch (tag) {
    case "[object Object]":
      return classifyUntagged(value);
    case "[object Array]":
      if (Array.isArray(value)) return Kind.Array;
      break;
    case "[object Date]":
      if (brand(dateValue, value)) return Kind.Date;
      break;
    case "[object RegExp]":
      if (isRegExpValue(value)) return Kind.RegExp;
      break;
    case "[object Error]":
      return Kind.Error;
    case "[object Arguments]":
      return Kind.Refused;
    case "[object Boolean]":
      if (brand(booleanValue, value)) return Kind.BooleanObject;
      break;
    case "[object Number]":
      if (brand(numberValue, value)) return Kind.NumberObject;
      break;
    case "[object String]":
      if (brand(stringValue, value)) return Kind.StringObject;
      break;
    case "[object Map]":
      if (brand(mapSize, value)) return Kind.Map;
      break;
    case "[object Set]":
      if (brand(setSize, value)) return Kind.Set;
      break;
    case "[object ArrayBuffer]":
      if (brand(byteLengthOfBuffer, value)) return Kind.ArrayBuffer;
      break;
    case "[object SharedArrayBuffer]":
      if (byteLengthOfShared !== undefined && brand(byteLengthOfShared, value)) return Kind.SharedArrayBuffer;
      break;
    case "[object BigInt]":
      if (brand(bigintValue, value)) return Kind.BigIntObject;
      break;
    case "[object Symbol]":
      if (brand(symbolValue, value)) return Kind.Refused;
      break;
  }
  const name = tag.slice(8, -1);
  if (REFUSED_TAGS.has(name)) return Kind.Refused;
  const known = platformOrBrand(value);
  if (known !== Kind.Object) return known;
  // An object whose class names itself through @@toStringTag and whose prototype chain holds native
  // code is a platform object of this host that no list knows (Bun's BlockList, a browser's newer
  // interfaces, Node's KeyObject): `clone` asks the host. A class written in JavaScript that sets a tag
  // is an ordinary object, as native structuredClone treats it.
  return platformChain(value) ? Kind.Host : Kind.Object;
}

/** The platform lists, then every brand check: for objects whose @@toStringTag named nothing known. */
function platformOrBrand(value: object): Kind {
  if (FileCtor !== undefined && value instanceof FileCtor) return Kind.File;
  if (BlobCtor !== undefined && value instanceof BlobCtor) return Kind.Blob;
  if (DOMExceptionCtor !== undefined && value instanceof DOMExceptionCtor) return Kind.DOMException;
  const platform = platformKind(value);
  if (platform !== Kind.Object) return platform;
  // A custom @@toStringTag (a class's own, or a disguised built-in): only brand checks can tell.
  return classifyByBrand(value);
}

/**
 * An object whose @@toStringTag is a getter: the getter is never run (native never reads the tag), so
 * the slots are found by brand checks alone. (An Error or `arguments` object wearing such a getter has
 * no non-throwing brand check and is taken for an ordinary object.)
 */
function classifyWithAccessorTag(value: object): Kind {
  const known = platformOrBrand(value);
  if (known !== Kind.Object) return known;
  const t = hostTypes();
  // Without the host's slot checks (browsers), what the prototype chain holds decides: a WeakMap,
  // Promise, generator or iterator wearing such a getter goes to the host's structuredClone, which
  // refuses it; a class instance is an ordinary object, copied here, so that its getters run once and a
  // refusal inside it keeps its path. (One of those whose prototype was swapped for an unrelated one is
  // taken for an ordinary object, as for untagged objects on such hosts.)
  if (t === null) return refusedChain(value) ? Kind.Host : classifyUntagged(value);
  if (t.isWeakMap(value) || t.isWeakSet(value) || t.isPromise(value) || t.isGeneratorObject(value)) {
    return Kind.Refused;
  }
  if (t.isMapIterator(value) || t.isSetIterator(value) || t.isModuleNamespaceObject(value)) {
    return Kind.Refused;
  }
  if (platformChain(value)) return Kind.Host;
  return classifyUntagged(value);
}

const functionSource = /* @__PURE__ */ intrinsic(() => Function.prototype.toString);

/** The prototypes of the language's objects that structured clone refuses by their slots. */
let refusedPrototypes: Set<unknown> | undefined;

function refusedChain(value: object): boolean {
  if (refusedPrototypes === undefined) {
    const g = globalThis as unknown as Record<string, { prototype?: unknown } | undefined>;
    refusedPrototypes = new Set<unknown>(
      [
        g.WeakMap?.prototype,
        g.WeakSet?.prototype,
        g.WeakRef?.prototype,
        g.FinalizationRegistry?.prototype,
        Promise.prototype,
        getPrototypeOf(function* () {}).prototype,
        getPrototypeOf(async function* () {}).prototype,
        getPrototypeOf(new Map().entries()),
        getPrototypeOf(new Set().values()),
        getPrototypeOf([].values()),
        getPrototypeOf(""[Symbol.iterator]()),
      ].filter((p) => p !== undefined),
    );
  }
  for (let o = getPrototypeOf(value) as object | null; o !== null; o = getPrototypeOf(o)) {
    if (refusedPrototypes.has(o)) return true;
  }
  return false;
}

/**
 * Whether an object is a platform object that no list names, by what its prototype chain (below
 * Object.prototype) holds, cached per prototype:
 * - a constructor that is native code: a browser's or Bun's newer interfaces, and Node's classes built
 *   over a C++ base (crypto.KeyObject over NativeKeyObject);
 * - a method keyed by one of Node's per-isolate messaging symbols, which Node's serializer calls to clone
 *   or transfer the object: the platform objects Node writes in JavaScript without a @@toStringTag
 *   (net.BlockList, net.SocketAddress, perf_hooks histograms). User code cannot make these symbols.
 * Such an object is not an ordinary object: `clone` hands it to the host, the formats refuse it. (A
 * built-in prototype met here belongs to an object that failed every brand check, e.g.
 * `Object.create(Map.prototype)`; the host then clones it as the ordinary object it is.)
 */
const platformByChain = /* @__PURE__ */ new WeakMap<object, boolean>();

/** ECMAScript's own constructors: native code, but not platform objects. An object that inherits from
 * their prototypes without their slots (`Object.create(Date.prototype)`) is ordinary. */
const LANGUAGE_CONSTRUCTORS = /* @__PURE__ */ intrinsic(() => {
  const found = new Set<unknown>(
    [
      "Function",
      "Array",
      "Number",
      "Boolean",
      "String",
      "Symbol",
      "BigInt",
      "Date",
      "RegExp",
      "Error",
      "EvalError",
      "RangeError",
      "ReferenceError",
      "SyntaxError",
      "TypeError",
      "URIError",
      "AggregateError",
      "Map",
      "Set",
      "WeakMap",
      "WeakSet",
      "WeakRef",
      "FinalizationRegistry",
      "Promise",
      "ArrayBuffer",
      "SharedArrayBuffer",
      "DataView",
      ...TYPED_ARRAY_NAMES,
    ].map((name) => (globalThis as Record<string, unknown>)[name]),
  );
  found.add(getPrototypeOf(Uint8Array));
  return found;
});
const MESSAGING_SYMBOLS = /* @__PURE__ */ new Set(["messaging_clone_symbol", "messaging_transfer_symbol"]);

function platformChain(value: object): boolean {
  const proto = getPrototypeOf(value) as object | null;
  if (proto === null || proto === ObjectProto) return false;
  const cached = platformByChain.get(proto);
  if (cached !== undefined) return cached;
  let found = false;
  for (let o: object | null = proto; o !== null && o !== ObjectProto && !found; o = getPrototypeOf(o)) {
    const desc = getOwnPropertyDescriptor(o, "constructor");
    const ctor = desc !== undefined && "value" in desc ? desc.value : undefined;
    if (typeof ctor === "function" && !LANGUAGE_CONSTRUCTORS.has(ctor)) {
      try {
        found = functionSource.call(ctor).endsWith("{ [native code] }");
      } catch {
        found = false;
      }
    }
    const symbols = Object.getOwnPropertySymbols(o);
    for (let i = 0; i < symbols.length && !found; i++) {
      found = MESSAGING_SYMBOLS.has(symbols[i]!.description as string);
    }
  }
  platformByChain.set(proto, found);
  return found;
}

/** An object Object.prototype.toString calls "Object": ordinary, unless a swapped-prototype slot type. */
function classifyUntagged(value: object): Kind {
  if (ArrayBuffer.isView(value)) {
    return typedArrayTag.call(value) === undefined ? Kind.DataView : Kind.TypedArray;
  }
  // Class instances and null-prototype objects come here by the thousand, so only the slot types the
  // algorithm can rebuild are looked for (four host calls, ~15 ns each). A WeakMap, Promise or
  // generator whose prototype was swapped for an unrelated one is taken for an ordinary object.
  const t = hostTypes();
  if (t !== null) {
    if (t.isMap(value)) return Kind.Map;
    if (t.isSet(value)) return Kind.Set;
    if (t.isAnyArrayBuffer(value)) {
      return t.isSharedArrayBuffer(value) ? Kind.SharedArrayBuffer : Kind.ArrayBuffer;
    }
    if (t.isBoxedPrimitive(value)) return t.isBigIntObject(value) ? Kind.BigIntObject : Kind.Refused;
  }
  // Platform classes name themselves through @@toStringTag (WebIDL requires it), except the ones Node
  // writes in JavaScript and marks with its messaging symbols instead (see platformChain).
  if (platformChain(value)) return Kind.Host;
  return Kind.Object;
}

/** Platform classification by prototype chain, cached per prototype: `instanceof` against two dozen
 * constructors costs ~30 ns each. */
const platformByPrototype = /* @__PURE__ */ new WeakMap<object, Kind>();

function platformKind(value: object): Kind {
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null) {
    const cached = platformByPrototype.get(proto);
    if (cached !== undefined) return cached;
  }
  if (platformTables === undefined) {
    platformTables = {
      refused: platformCtors(NON_SERIALIZABLE_PLATFORM),
      host: platformCtors(HOST_CLONEABLE),
    };
  }
  let kind = Kind.Object;
  if (instanceOfAny(value, platformTables.host)) kind = Kind.Host;
  else if (instanceOfAny(value, platformTables.refused)) kind = Kind.Refused;
  if (proto !== null) platformByPrototype.set(proto, kind);
  return kind;
}

/** Every brand check in turn: only for objects whose @@toStringTag hides what they are. */
function classifyByBrand(value: object): Kind {
  if (Array.isArray(value)) return Kind.Array;
  if (brand(byteLengthOfBuffer, value)) return Kind.ArrayBuffer;
  if (byteLengthOfShared !== undefined && brand(byteLengthOfShared, value)) return Kind.SharedArrayBuffer;
  if (brand(dateValue, value)) return Kind.Date;
  if (brand(mapSize, value)) return Kind.Map;
  if (brand(setSize, value)) return Kind.Set;
  if (isRegExpValue(value)) return Kind.RegExp;
  if (brand(numberValue, value)) return Kind.NumberObject;
  if (brand(stringValue, value)) return Kind.StringObject;
  if (brand(booleanValue, value)) return Kind.BooleanObject;
  if (brand(bigintValue, value)) return Kind.BigIntObject;
  if (brand(symbolValue, value)) return Kind.Refused;
  return Kind.Object;
}

/** Unboxes a Number/String/Boolean/BigInt wrapper (by slot, not by prototype). */
export function unbox(kind: Kind, value: object): number | string | boolean | bigint {
  switch (kind) {
    case Kind.NumberObject:
      return numberValue.call(value);
    case Kind.StringObject:
      return stringValue.call(value);
    case Kind.BooleanObject:
      return booleanValue.call(value);
    default:
      return bigintValue.call(value);
  }
}

/** Reads a Date's time value by slot. */
export function dateTime(value: object): number {
  return dateValue.call(value);
}

/** Entries/values of a Map or Set by slot (a subclass may override the iterators; the spec does not use them). */
const mapEntries = /* @__PURE__ */ intrinsic(() => Map.prototype.entries);
const setValues = /* @__PURE__ */ intrinsic(() => Set.prototype.values);
export function mapEntryList(map: object): [unknown, unknown][] {
  return Array.from(mapEntries.call(map as Map<unknown, unknown>));
}
export function setValueList(set: object): unknown[] {
  return Array.from(setValues.call(set as Set<unknown>));
}
