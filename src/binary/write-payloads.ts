/**
 * The encoder's payloads besides plain objects and arrays (encode.ts, write-records.ts): Dates, RegExps, boxed
 * primitives, Maps, Sets, buffers and views, errors, DOMExceptions and custom types. They write through
 * the writer core's small helpers (`put`, `room`, `writeVarint`, ...): these kinds are rarer than
 * records, strings and numbers, and esbuild hoists both modules into one scope, where V8 inlines the
 * helpers. Also here: the intrinsic buffer getters (read by slot, not through the prototype) and the
 * closed table of error names.
 */

import { StructuraError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import { mapEntrySegment, setMemberSegment } from "../core/path.ts";
import { type AnyCustomType, encodeCustom } from "../core/registry.ts";
import {
  dateTime,
  Kind,
  mapEntryList,
  readError,
  readView,
  regexpParts,
  setValueList,
  unbox,
} from "../core/types.ts";
import { readWholeError } from "../core/whole-error.ts";
import { atTop, enter, leave, stackLimit, wholeErrors, writeArray, writeValue } from "./encode.ts";
import { typedStackError } from "./stack.ts";
import {
  DATE,
  DATE_SECONDS,
  ERROR_CAUSE,
  ERROR_ERRORS,
  ERROR_MESSAGE,
  ERROR_NAME,
  ERROR_PROPS,
  ERROR_STACK,
  ERROR_SUPPRESSED,
  EXT,
  VIEW_TRACKING,
  X_ARRAY_BUFFER,
  X_BIGINT,
  X_BOOLEAN_FALSE,
  X_BOOLEAN_TRUE,
  X_CUSTOM,
  X_DATA_VIEW,
  X_DOM_EXCEPTION,
  X_ERROR,
  X_GROWABLE_SHARED_BUFFER,
  X_MAP,
  X_NUMBER,
  X_REGEXP,
  X_RESIZABLE_BUFFER,
  X_SET,
  X_SHARED_BUFFER,
  X_STRING,
  X_TYPED_ARRAY,
} from "./tags.ts";
import {
  put,
  putFloat64,
  putUint32,
  room,
  writeBigInt,
  writeBytes,
  writeLastBytes,
  writeString,
  writeVarint,
} from "./write-core.ts";
import { refCount, remember, unclaim } from "./write-identity.ts";
import { keysOf, writeEntries, writeObject, writeRecord } from "./write-records.ts";
import { annotate, Refusal, refuse } from "./write-refusal.ts";

// Buffers are read through the intrinsic getters (by slot): a buffer whose prototype was swapped or
// that has own properties shadowing these must still serialize as what it is. Looked up in calls marked
// pure (src/core/intrinsics.ts), so a bundle of `deserialize` alone (the same chunk) drops them.
type Getter = (this: unknown) => unknown;
function getterOf(proto: object | undefined, key: string): Getter | undefined {
  return proto === undefined
    ? undefined
    : (Object.getOwnPropertyDescriptor(proto, key)?.get as Getter | undefined);
}
const SharedProto = /* @__PURE__ */ intrinsic(() =>
  typeof SharedArrayBuffer === "function" ? SharedArrayBuffer.prototype : undefined,
);
export const abByteLength = /* @__PURE__ */ intrinsic(() => getterOf(ArrayBuffer.prototype, "byteLength")!);
export const abDetached = /* @__PURE__ */ intrinsic(() => getterOf(ArrayBuffer.prototype, "detached"));
export const abResizable = /* @__PURE__ */ intrinsic(() => getterOf(ArrayBuffer.prototype, "resizable"));
export const abMaxByteLength = /* @__PURE__ */ intrinsic(() =>
  getterOf(ArrayBuffer.prototype, "maxByteLength"),
);
export const sabByteLength = /* @__PURE__ */ intrinsic(() => getterOf(SharedProto, "byteLength"));
export const sabGrowable = /* @__PURE__ */ intrinsic(() => getterOf(SharedProto, "growable"));
export const sabMaxByteLength = /* @__PURE__ */ intrinsic(() => getterOf(SharedProto, "maxByteLength"));

export function isDetached(buffer: ArrayBuffer): boolean {
  if (abDetached !== undefined) return abDetached.call(buffer) === true;
  if (abByteLength.call(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

export const ERROR_NAME_IDS: Record<string, number> = {
  Error: 0,
  EvalError: 1,
  RangeError: 2,
  ReferenceError: 3,
  SyntaxError: 4,
  TypeError: 5,
  URIError: 6,
};

// ---------------------------------------------------------------------------------------------------
// Payloads

export function writeByKind(value: object, kind: Kind): void {
  switch (kind) {
    case Kind.Object:
      writeRecord(value, keysOf(value));
      return;
    case Kind.Array:
      writeArray(value as unknown[]);
      return;
    case Kind.Date: {
      const time = dateTime(value);
      const seconds = time / 1000;
      if (seconds >>> 0 === seconds && (time !== 0 || 1 / time > 0)) {
        put(DATE_SECONDS);
        putUint32(seconds);
      } else {
        put(DATE);
        putFloat64(time);
      }
      return;
    }
    case Kind.RegExp: {
      const { source, flags } = regexpParts(value as RegExp);
      put(EXT);
      put(X_REGEXP);
      writeString(source);
      room();
      writeString(flags);
      return;
    }
    case Kind.BooleanObject:
      put(EXT);
      put(unbox(kind, value) ? X_BOOLEAN_TRUE : X_BOOLEAN_FALSE);
      return;
    case Kind.NumberObject:
      put(EXT);
      put(X_NUMBER);
      putFloat64(unbox(kind, value) as number);
      return;
    case Kind.StringObject:
      put(EXT);
      put(X_STRING);
      writeString(unbox(kind, value) as string);
      return;
    case Kind.BigIntObject:
      put(EXT);
      put(X_BIGINT);
      writeBigInt(unbox(kind, value) as bigint);
      return;
    case Kind.Map:
      writeMap(value as Map<unknown, unknown>);
      return;
    case Kind.Set:
      writeSet(value as Set<unknown>);
      return;
    case Kind.ArrayBuffer:
      writeArrayBuffer(value as ArrayBuffer);
      return;
    case Kind.SharedArrayBuffer:
      writeSharedBuffer(value as SharedArrayBuffer);
      return;
    case Kind.TypedArray:
    case Kind.DataView:
      writeView(value as ArrayBufferView, kind);
      return;
    case Kind.Error:
      writeError(value);
      return;
    case Kind.DOMException: {
      const ex = value as DOMException;
      put(EXT);
      put(X_DOM_EXCEPTION);
      writeString(ex.name);
      room();
      writeString(ex.message);
      return;
    }
    case Kind.Blob:
    case Kind.File:
      throw refuse(
        value,
        "cannot be serialized: its bytes can only be read asynchronously. Register a custom type that converts it (e.g. to an ArrayBuffer read beforehand).",
      );
    case Kind.Host:
      throw refuse(value, "is a host object the binary format cannot hold.");
    default:
      throw refuse(value);
  }
}

function writeMap(map: Map<unknown, unknown>): void {
  enter();
  // The spec snapshots the entries before serializing any of them.
  const entries = mapEntryList(map);
  const n = entries.length;
  put(EXT);
  put(X_MAP);
  writeVarint(n);
  for (let i = 0; i < n; i++) {
    const entry = entries[i]!;
    try {
      writeValue(entry[0]);
    } catch (error) {
      throw annotate(error, mapEntrySegment(i, "key"));
    }
    try {
      writeValue(entry[1]);
    } catch (error) {
      throw annotate(error, mapEntrySegment(i, "value"));
    }
  }
  leave();
}

function writeSet(set: Set<unknown>): void {
  enter();
  const values = setValueList(set);
  const n = values.length;
  put(EXT);
  put(X_SET);
  writeVarint(n);
  for (let i = 0; i < n; i++) {
    try {
      writeValue(values[i]);
    } catch (error) {
      throw annotate(error, setMemberSegment(i));
    }
  }
  leave();
}

function writeArrayBuffer(buffer: ArrayBuffer): void {
  const byteLength = abByteLength.call(buffer) as number;
  if (byteLength === 0 && isDetached(buffer)) {
    throw new Refusal("An ArrayBuffer is detached and could not be serialized.");
  }
  put(EXT);
  if (abResizable !== undefined && abResizable.call(buffer) === true) {
    put(X_RESIZABLE_BUFFER);
    writeVarint(abMaxByteLength!.call(buffer) as number);
  } else {
    put(X_ARRAY_BUFFER);
  }
  writeVarint(byteLength);
  const bytes = new Uint8Array(buffer, 0, byteLength);
  // The message's value (or its view's buffer): nothing is read or written after these bytes.
  if (atTop()) writeLastBytes(bytes);
  else writeBytes(bytes);
}

function writeSharedBuffer(buffer: SharedArrayBuffer): void {
  // Memory cannot be shared through a byte stream: the bytes are copied and decode as a new
  // SharedArrayBuffer (growable with the same maximum, if it was growable).
  const byteLength = sabByteLength!.call(buffer) as number;
  put(EXT);
  if (sabGrowable !== undefined && sabGrowable.call(buffer) === true) {
    put(X_GROWABLE_SHARED_BUFFER);
    writeVarint(sabMaxByteLength!.call(buffer) as number);
  } else put(X_SHARED_BUFFER);
  writeVarint(byteLength);
  writeBytes(new Uint8Array(buffer, 0, byteLength));
}

function writeView(view: ArrayBufferView, kind: Kind): void {
  const parts = readView(view, kind === Kind.DataView);
  if (parts === null) throw refuse(view, "is detached or out of bounds and could not be serialized.");
  const { buffer, byteOffset, length, type, tracking } = parts;
  // The buffer comes inside the view's payload, as a value of its own or a reference; it is numbered
  // before the view, so the view gives back the number writeObject claimed for it and takes the next.
  unclaim(view);
  put(EXT);
  put(type >= 0 ? X_TYPED_ARRAY : X_DATA_VIEW);
  if (type >= 0) put(type);
  put(tracking ? VIEW_TRACKING : 0);
  writeVarint(byteOffset);
  if (!tracking) writeVarint(length);
  room();
  writeObject(buffer);
  remember(view);
}

function writeError(error: object): void {
  enter();
  if (wholeErrors) {
    writeWholeError(error);
    leave();
    return;
  }
  const parts = readError(error);
  let flags = 0;
  if (parts.hasMessage) flags |= ERROR_MESSAGE;
  if (parts.stack !== undefined) flags |= ERROR_STACK;
  if (parts.hasCause) flags |= ERROR_CAUSE;
  put(EXT);
  put(X_ERROR);
  put(ERROR_NAME_IDS[parts.name]!);
  put(flags);
  if (parts.hasMessage) writeString(parts.message!);
  if (parts.stack !== undefined) {
    room();
    writeString(parts.stack);
  }
  if (parts.hasCause) {
    try {
      writeValue(parts.cause);
    } catch (error) {
      throw annotate(error, "cause");
    }
  }
  leave();
}

/** An error whole (docs/binary-format.md §8.1); the structured-clone form when nothing more is kept. */
function writeWholeError(error: object): void {
  const parts = readWholeError(error);
  let flags = 0;
  if (parts.hasMessage) flags |= ERROR_MESSAGE;
  if (parts.stack !== undefined) flags |= ERROR_STACK;
  if (parts.name !== undefined) flags |= ERROR_NAME;
  if (parts.hasCause) flags |= ERROR_CAUSE;
  if (parts.hasErrors) flags |= ERROR_ERRORS;
  if (parts.hasSuppressed) flags |= ERROR_SUPPRESSED;
  if (parts.keys.length !== 0) flags |= ERROR_PROPS;
  put(EXT);
  put(X_ERROR);
  put(parts.cls);
  put(flags);
  if (parts.hasMessage) writeString(parts.message!);
  if (parts.stack !== undefined) {
    room();
    writeString(parts.stack);
  }
  if (parts.name !== undefined) {
    room();
    writeString(parts.name);
  }
  let at = "cause";
  try {
    if (parts.hasCause) writeValue(parts.cause);
    at = "errors";
    if (parts.hasErrors) writeValue(parts.errors);
    at = "error";
    if (parts.hasSuppressed) {
      writeValue(parts.error);
      at = "suppressed";
      writeValue(parts.suppressed);
    }
  } catch (error) {
    throw annotate(error, at);
  }
  if (parts.keys.length !== 0) {
    room();
    writeVarint(parts.keys.length);
    writeEntries(error, parts.keys, parts.keys.length);
  }
}

// ---------------------------------------------------------------------------------------------------
// Custom types

/** Reference indices of the custom objects whose data is being written (their data may not refer back
 * to them). Per-call state: saved and emptied by `saveCustom` when serialize is re-entered. */
let pendingCustom: Set<number> | null = null;

/** Whether the object numbered `index` is a custom object whose data is being written. */
export function isPendingCustom(index: number): boolean {
  return pendingCustom?.has(index) === true;
}

export function resetCustom(): void {
  pendingCustom = null;
}

/** For a re-entrant serialize: the inner message numbers its objects afresh, so it starts empty. */
export function saveCustom(): Set<number> | null {
  const saved = pendingCustom;
  pendingCustom = null;
  return saved;
}

export function restoreCustom(saved: Set<number> | null): void {
  pendingCustom = saved;
}

export function writeCustom(value: object, type: AnyCustomType): void {
  // writeObject numbered the object just before calling here.
  const index = refCount() - 1;
  enter();
  let data: unknown;
  try {
    data = encodeCustom(type, value);
  } catch (error) {
    if (error instanceof Refusal || error instanceof StructuraError || error instanceof DOMException)
      throw error;
    const typed = typedStackError(error, stackLimit);
    if (typed !== error) throw typed;
    throw new Refusal(`The custom type "${type.name}" failed to encode: ${String(error)}`);
  }
  room();
  put(EXT);
  put(X_CUSTOM);
  writeString(type.name);
  if (pendingCustom === null) pendingCustom = new Set();
  pendingCustom.add(index);
  try {
    writeValue(data);
  } finally {
    pendingCustom.delete(index);
  }
  leave();
}
