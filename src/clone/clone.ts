/**
 * `clone(value, { transfer })`: the HTML structured clone algorithm (StructuredSerializeInternal followed
 * by StructuredDeserialize) done in one pass, value to value, without an intermediate byte stream.
 *
 * Why it is fast: strings and other primitives are immutable and returned as they are (a 3 MB string
 * costs what a short one does); plain objects are copied through per-shape copiers (see ./shapes.ts);
 * the memory map that preserves shared references and cycles is a single Map per call.
 */

import { DataCloneError, describeValue } from "../core/errors.ts";
import { nativeStructuredClone, proxyDetector } from "../core/host.ts";
import { formatPath, mapEntrySegment, type PathSegment, setMemberSegment } from "../core/path.ts";
import {
  buildError,
  classify,
  dateTime,
  isLengthTracking,
  Kind,
  mapEntryList,
  readError,
  regexpParts,
  resizableMax,
  setErrorCause,
  setValueList,
  typedArrayConstructor,
  typedArrayId,
  unbox,
} from "../core/types.ts";
import { copyWithShape, type Shape, shapeFor } from "./shapes.ts";
import { detach, isDetached, prepareTransfer, type TransferPlan } from "./transfer.ts";

export interface CloneOptions {
  /**
   * Objects to transfer rather than copy: ArrayBuffers end up owned by the clone and are detached in the
   * source; host transferables (MessagePort, streams, ...) are handed to the host's structuredClone.
   */
  transfer?: Iterable<unknown> | undefined;
}

/**
 * A refusal on its way out: not an Error (no stack capture while it unwinds); containers add their key
 * to `segments`, and `clone` turns it into a DataCloneError with the rendered path.
 */
export class Refusal {
  readonly segments: PathSegment[] = [];
  constructor(readonly message: string) {}
}

/** Per-call state; one object so the recursive functions take two arguments and stay monomorphic. */
export class CloneState {
  readonly memo = new Map<object, object>();
  /** The shape used last, checked first: arrays of records hit it every time. */
  shape: Shape | null = null;
  readonly isProxy: ((value: object) => boolean) | null = proxyDetector();
  constructor(readonly plan: TransferPlan | null) {}
}

const hasOwn = Object.prototype.hasOwnProperty;
const ObjectCtor = Object;
const keysOf = Object.keys;

export function clone<T>(value: T, options?: CloneOptions): T {
  const transfer = options?.transfer;
  // Strings, numbers and the other primitives are immutable: the clone is the value itself.
  if ((typeof value !== "object" || value === null) && transfer === undefined) {
    if (typeof value === "function" || typeof value === "symbol") {
      throw new DataCloneError(`${describeValue(value)} could not be cloned.`);
    }
    return value;
  }
  const plan = transfer === undefined ? null : prepareTransfer(transfer);
  const state = new CloneState(plan);
  let result: unknown;
  try {
    result = cloneValue(value, state);
  } catch (error) {
    if (error instanceof Refusal) {
      throw new DataCloneError(error.message, formatPath(error.segments.reverse()));
    }
    throw error;
  }
  if (plan !== null) detach(plan);
  return result as T;
}

/** Clones any value; objects go through the memory map. */
export function cloneValue(value: unknown, state: CloneState): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function" || typeof value === "symbol") throw refuse(value);
    return value;
  }
  return cloneObject(value, state);
}

export function refuse(value: unknown): Refusal {
  return new Refusal(`${describeValue(value)} could not be cloned.`);
}

/** Adds a key to a refusal unwinding through a container; other errors pass untouched. */
export function annotate(error: unknown, segment: PathSegment): unknown {
  if (error instanceof Refusal) error.segments.push(segment);
  return error;
}

export function cloneObject(value: object, state: CloneState): object {
  const memo = state.memo;
  const seen = memo.get(value);
  if (seen !== undefined) return seen;
  // Plain records are the bulk of real data: `constructor === Object` is a cheap first cut (it comes
  // from the prototype unless the object has its own, which the shape check below then sees), the
  // shape copier confirms the exact own keys.
  if ((value as { constructor?: unknown }).constructor === ObjectCtor) {
    const isProxy = state.isProxy;
    if (isProxy === null || !isProxy(value)) {
      const keys = keysOf(value);
      let shape = state.shape;
      if (shape === null || !sameKeys(shape.keys, keys)) {
        shape = shapeFor(keys);
        state.shape = shape;
      }
      if (shape !== null && !hasOwn.call(value, "callee")) return copyWithShape(shape, value, state);
      return clonePlain(value, keys, state);
    }
  }
  return cloneByKind(value, classify(value), state);
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * An ordinary object: own enumerable string keys in order, each re-checked with HasOwnProperty before
 * its [[Get]] (a getter may delete a later key, which the spec then skips).
 */
export function clonePlain(value: object, keys: readonly string[], state: CloneState): object {
  const out: Record<string, unknown> = {};
  state.memo.set(value, out);
  const source = value as Record<string, unknown>;
  let i = 0;
  const n = keys.length;
  try {
    for (; i < n; i++) {
      const key = keys[i]!;
      const item = source[key];
      if (item === undefined && !hasOwn.call(source, key)) continue;
      const copy =
        typeof item === "object" && item !== null ? cloneObject(item, state) : cloneValue(item, state);
      // Assignment to "__proto__" would set the prototype; the clone must get an own data property.
      if (key === "__proto__") defineData(out, key, copy);
      else out[key] = copy;
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
  return out;
}

export function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function cloneArray(source: unknown[], state: CloneState): unknown[] {
  const n = source.length;
  const out = new Array<unknown>(n);
  state.memo.set(source, out);
  let present = 0;
  let i = 0;
  try {
    for (; i < n; i++) {
      const item = source[i];
      if (item === undefined && !hasOwn.call(source, i)) continue;
      present++;
      out[i] = typeof item === "object" && item !== null ? cloneObject(item, state) : cloneValue(item, state);
    }
  } catch (error) {
    throw annotate(error, i);
  }
  // Non-index own properties (`arr.extra = 1`) come after the indices in key order. Only look when the
  // array could have any: Object.keys on a plain array lists exactly its present indices.
  const keys = keysOf(source);
  if (keys.length !== present) copyExtraArrayKeys(source, out, keys, n, state);
  return out;
}

function copyExtraArrayKeys(
  source: unknown[],
  out: unknown[],
  keys: string[],
  n: number,
  state: CloneState,
): void {
  const src = source as unknown as Record<string, unknown>;
  const dst = out as unknown as Record<string, unknown>;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const index = Number(key);
    if (String(index) === key && index >= 0 && index < n && Number.isInteger(index)) continue;
    const item = src[key];
    if (item === undefined && !hasOwn.call(src, key)) continue;
    try {
      const copy = cloneValue(item, state);
      if (key === "__proto__") defineData(dst, key, copy);
      else dst[key] = copy;
    } catch (error) {
      throw annotate(error, key);
    }
  }
}

function cloneByKind(value: object, kind: Kind, state: CloneState): object {
  const memo = state.memo;
  switch (kind) {
    case Kind.Object:
      return clonePlain(value, keysOf(value), state);
    case Kind.Array:
      return cloneArray(value as unknown[], state);
    case Kind.Date: {
      const out = new Date(dateTime(value));
      memo.set(value, out);
      return out;
    }
    case Kind.RegExp: {
      const { source, flags } = regexpParts(value as RegExp);
      const out = new RegExp(source, flags);
      memo.set(value, out);
      return out;
    }
    case Kind.BooleanObject:
    case Kind.NumberObject:
    case Kind.StringObject:
    case Kind.BigIntObject: {
      const out = Object(unbox(kind, value)) as object;
      memo.set(value, out);
      return out;
    }
    case Kind.Map:
      return cloneMap(value as Map<unknown, unknown>, state);
    case Kind.Set:
      return cloneSet(value as Set<unknown>, state);
    case Kind.ArrayBuffer:
      return cloneArrayBuffer(value as ArrayBuffer, state);
    case Kind.SharedArrayBuffer:
      return cloneShared(value as SharedArrayBuffer, state);
    case Kind.TypedArray:
    case Kind.DataView:
      return cloneView(value as ArrayBufferView, kind, state);
    case Kind.Error:
      return cloneError(value, state);
    case Kind.Blob: {
      const blob = value as Blob;
      const out = new Blob([blob], { type: blob.type });
      memo.set(value, out);
      return out;
    }
    case Kind.File: {
      // Node 20 deviation: its structuredClone turns a File into a plain Blob (nodejs/node#47612).
      // File is serializable per the File API with its name and lastModified; structura keeps it a File.
      const file = value as File;
      const out = new File([file], file.name, { type: file.type, lastModified: file.lastModified });
      memo.set(value, out);
      return out;
    }
    case Kind.DOMException: {
      // Node 20 deviation: clones a DOMException into `{}`. WebIDL marks DOMException serializable
      // (name and message); structura follows that.
      const ex = value as DOMException;
      const out = new DOMException(ex.message, ex.name);
      memo.set(value, out);
      return out;
    }
    case Kind.Host:
      return cloneHost(value, state);
    default:
      throw refuse(value);
  }
}

function cloneMap(source: Map<unknown, unknown>, state: CloneState): Map<unknown, unknown> {
  const out = new Map<unknown, unknown>();
  state.memo.set(source, out);
  // The spec snapshots the entries before serializing any of them.
  const entries = mapEntryList(source);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    let key: unknown;
    try {
      key = cloneValue(entry[0], state);
    } catch (error) {
      throw annotate(error, mapEntrySegment(i, "key"));
    }
    try {
      out.set(key, cloneValue(entry[1], state));
    } catch (error) {
      throw annotate(error, mapEntrySegment(i, "value"));
    }
  }
  return out;
}

function cloneSet(source: Set<unknown>, state: CloneState): Set<unknown> {
  const out = new Set<unknown>();
  state.memo.set(source, out);
  const values = setValueList(source);
  for (let i = 0; i < values.length; i++) {
    try {
      out.add(cloneValue(values[i], state));
    } catch (error) {
      throw annotate(error, setMemberSegment(i));
    }
  }
  return out;
}

function cloneArrayBuffer(source: ArrayBuffer, state: CloneState): ArrayBuffer {
  if (source.byteLength === 0 && isDetached(source)) {
    throw new Refusal("An ArrayBuffer is detached and could not be cloned.");
  }
  const max = resizableMax(source);
  let out: ArrayBuffer;
  if (max === undefined) out = source.slice(0);
  else {
    out = new ArrayBuffer(source.byteLength, { maxByteLength: max });
    new Uint8Array(out).set(new Uint8Array(source));
  }
  // A buffer in the transfer list is copied here and detached in the source once the whole value is
  // done: views met later still need the source's offsets and lengths, which detaching would zero.
  state.memo.set(source, out);
  return out;
}

function cloneShared(source: SharedArrayBuffer, state: CloneState): SharedArrayBuffer {
  // A SharedArrayBuffer is shared, not copied: the clone is a new object over the same memory. Only the
  // host can make such an object, so ask it; without a host clone, the buffer itself is the best match.
  const native = nativeStructuredClone();
  const out = native !== null ? (native(source) as SharedArrayBuffer) : source;
  state.memo.set(source, out);
  return out;
}

function cloneView(view: ArrayBufferView, kind: Kind, state: CloneState): object {
  const buffer = view.buffer;
  // Detached or out of bounds: the spec throws DataCloneError before touching the buffer.
  if (view.byteLength === 0 && view.byteOffset === 0 && isViewOutOfBounds(view)) {
    throw new Refusal(`${describeValue(view)} is out of bounds and could not be cloned.`);
  }
  const tracking = isLengthTracking(view);
  const offset = view.byteOffset;
  const byteLength = view.byteLength;
  const id = kind === Kind.TypedArray ? typedArrayId(view) : -1;
  const bufferCopy = cloneObject(buffer, state) as ArrayBuffer;
  let out: object;
  if (kind === Kind.DataView) {
    out = tracking ? new DataView(bufferCopy, offset) : new DataView(bufferCopy, offset, byteLength);
  } else {
    const Ctor = typedArrayConstructor(id)!;
    out = tracking
      ? new Ctor(bufferCopy, offset)
      : new Ctor(
          bufferCopy,
          offset,
          byteLength / (view as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT,
        );
  }
  state.memo.set(view, out);
  return out;
}

function isViewOutOfBounds(view: ArrayBufferView): boolean {
  const buffer = view.buffer;
  if (buffer.byteLength === 0 && isDetached(buffer as ArrayBuffer)) return true;
  // A fixed-length view over a shrunk resizable buffer reports length 0 and offset 0; re-creating it
  // from the buffer tells whether its real range still fits.
  try {
    if (view instanceof DataView) new DataView(buffer, view.byteOffset);
    return false;
  } catch {
    return true;
  }
}

function cloneError(source: object, state: CloneState): Error {
  const parts = readError(source);
  const out = buildError(parts.name, parts.message, parts.stack);
  state.memo.set(source, out);
  if (parts.hasCause) {
    // Node deviation: V8 fails with "Unable to deserialize cloned data" when `cause` leads back to the
    // error; the memory map makes such a cycle an ordinary back-reference.
    try {
      setErrorCause(out, cloneValue(parts.cause, state));
    } catch (error) {
      throw annotate(error, "cause");
    }
  }
  return out;
}

/**
 * A platform object structura does not take apart: the host's structuredClone does it, with the host
 * transferables of the transfer list. If the host turns it into an ordinary object (a class instance
 * that merely has a toStringTag), structura clones it as one itself, so references inside stay shared.
 */
function cloneHost(value: object, state: CloneState): object {
  const native = nativeStructuredClone();
  if (native === null) throw refuse(value);
  const transfer = state.plan?.host.includes(value) ? [value] : undefined;
  const out = native(value, transfer === undefined ? undefined : { transfer }) as object;
  if (Object.getPrototypeOf(out) === Object.prototype && transfer === undefined) {
    return clonePlain(value, keysOf(value), state);
  }
  state.memo.set(value, out);
  return out;
}
