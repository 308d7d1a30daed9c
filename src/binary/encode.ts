/**
 * `serialize(value)`: one pass over the value graph writing the binary format (docs/binary-format.md).
 *
 * Why it is fast:
 * - one output buffer per process, reused across calls (write-core.ts), with one bounds check per value;
 * - short strings are encoded by an inline UTF-8 loop, long ones by `TextEncoder.encodeInto`;
 * - plain objects are written as records (write-records.ts): the key list of a shape is written once per
 *   message and each later object of that shape writes only its values, through a writer compiled for
 *   the shape once it repeats (write-shapes.ts);
 * - shared references: one Set `add` per object both finds repeats and numbers the object;
 * - typed-array payloads are copied with `set`, never byte by byte.
 *
 * This module holds the entry points and the per-call lifecycle, the value dispatch, the depth count
 * and arrays. write-core.ts holds the buffer and the scalar writers, write-records.ts objects and
 * records, write-identity.ts numbers the objects (shared references), write-shapes.ts finds record
 * shapes and compiles their writers, write-payloads.ts writes the other kinds (Map, Set, buffers, ...).
 */

import { DataCloneError, LimitError } from "../core/errors.ts";
import { proxyDetector } from "../core/host.ts";
import { formatPath } from "../core/path.ts";
import type { TypeRegistry } from "../core/registry.ts";
import { type EncodeSession, MODE_EXTEND, MODE_RESET, nextEpoch, STREAM_MAGIC } from "./session.ts";
import { typedStackError } from "./stack.ts";
import {
  ARRAY,
  ARRAY_PROPS,
  EXT,
  FALSE,
  FIXARRAY,
  HEADER_SIZE,
  HOLE,
  MAGIC,
  NO_REFS,
  NULL,
  TRUE,
  UNDEFINED,
  VERSION,
  X_SPARSE_ARRAY,
} from "./tags.ts";
import {
  abandonBuffer,
  ensure,
  finishBuffer,
  insertByteAfter,
  markHeader,
  numberAt,
  patch,
  pos,
  put,
  put2,
  restoreBuffer,
  room,
  SLACK,
  safeEnd,
  saveBuffer,
  setPos,
  startBuffer,
  target,
  writeBigInt,
  writeNumber,
  writeString,
  writeVarint,
} from "./write-core.ts";
import { resetIdentity, restoreIdentity, saveIdentity } from "./write-identity.ts";
import { resetCustom, restoreCustom, saveCustom } from "./write-payloads.ts";
import {
  beginRecords,
  endRecords,
  isDigit,
  keysOf,
  releaseRecords,
  restoreRecords,
  saveRecords,
  writeEntries,
  writeObject,
} from "./write-records.ts";
import { annotate, Refusal, refuse } from "./write-refusal.ts";
import { privateShapeTree } from "./write-shapes.ts";

// ---------------------------------------------------------------------------------------------------
// Per-call state (module-level for speed; saved and restored when serialize is re-entered from a
// custom type's encode function).

let depth = 0;
let maxDepth = 0;
/** Whether errors are written whole (docs/binary-format.md §8.1) or as structured clone keeps them. */
export let wholeErrors = true;

// ---------------------------------------------------------------------------------------------------
// Entry point

export interface EncodeConfig {
  registry: TypeRegistry;
  maxDepth: number;
  /** Errors whole (default) or as structured clone keeps them (`errors: "structuredClone"`). */
  wholeErrors?: boolean | undefined;
}

let active = false;

export function encode(value: unknown, config: EncodeConfig): Uint8Array {
  if (active) return encodeReentrant(value, config);
  active = true;
  try {
    return encodeFresh(value, config);
  } catch (error) {
    // encodeFresh converts what overflows inside it; this catches an overflow on the way in or out.
    throw typedStackError(error, stackLimit);
  } finally {
    active = false;
  }
}

/**
 * Like `encode`, but returns a view of the encoder's own buffer instead of a copy: valid only until the
 * next encode in this thread. For a caller that copies the bytes somewhere at once (the channel, into
 * its ring), it saves an allocation and a copy per message. Never hand the view (or its buffer) out.
 */
export function encodeTransient(
  value: unknown,
  config: EncodeConfig,
  stream: EncodeSession | null = null,
): Uint8Array {
  // From inside a custom type's encode: a fresh, owned result (valid for longer, which is fine).
  if (active) return encodeReentrant(value, config, stream);
  active = true;
  try {
    return encodeFresh(value, config, 0, Number.POSITIVE_INFINITY, true, stream);
  } catch (error) {
    // encodeFresh converts what overflows inside it; this catches an overflow on the way in or out.
    throw typedStackError(error, stackLimit);
  } finally {
    active = false;
  }
}

/** `startDepth`: a serialize called from a custom type's encode continues its caller's depth count,
 * bounded by its caller's maxDepth too. */
function encodeFresh(
  value: unknown,
  config: EncodeConfig,
  startDepth = 0,
  outerMaxDepth = Number.POSITIVE_INFINITY,
  transient = false,
  stream: EncodeSession | null = null,
): Uint8Array {
  // A nested call (from a custom type) is bounded by its caller's limit too.
  maxDepth = Math.min(config.maxDepth, outerMaxDepth);
  wholeErrors = config.wholeErrors !== false;
  depth = startDepth;
  const registry = config.registry.size === 0 ? null : config.registry;
  if (stream === null) {
    startBuffer(MAGIC, VERSION, HEADER_SIZE);
    beginRecords(nextEpoch(), 0, null, registry, proxyDetector());
  } else {
    // A stream message: shapes whose node carries the session's epoch are in the reader's table.
    let mode = MODE_EXTEND;
    if (stream.reset) {
      stream.epoch = nextEpoch();
      stream.shapes = 0;
      stream.bytes = 0;
      mode = MODE_RESET;
    }
    startBuffer(STREAM_MAGIC, mode, HEADER_SIZE);
    beginRecords(stream.epoch, stream.shapes, stream, registry, proxyDetector());
  }
  try {
    writeValue(value);
    if (!endRecords()) markHeader(NO_REFS);
  } catch (error) {
    abandonBuffer();
    // The message is not sent, but shape nodes may carry the session's epoch with ids the reader never
    // saw: the session moves to a fresh epoch (it defines its shapes again, with new ids, from the
    // table size the reader has).
    if (stream !== null) stream.epoch = nextEpoch();
    throw convertError(error);
  } finally {
    resetIdentity();
    resetCustom();
    releaseRecords();
    depth = 0;
  }
  return finishBuffer(transient);
}

export function stackLimit(): LimitError {
  return new LimitError("depth", maxDepth, "The value is nested too deeply for the call stack.");
}

function convertError(error: unknown): unknown {
  if (error instanceof Refusal) {
    return new DataCloneError(error.message, formatPath(error.segments.reverse()));
  }
  return typedStackError(error, stackLimit);
}

/** serialize() called from inside a custom type's encode: run on a fresh writer, then restore. */
function encodeReentrant(
  value: unknown,
  config: EncodeConfig,
  stream: EncodeSession | null = null,
): Uint8Array {
  const savedDepth = depth;
  const savedMaxDepth = maxDepth;
  const savedWholeErrors = wholeErrors;
  const records = saveRecords();
  const buffer = saveBuffer();
  depth = 0;
  // Shapes defined in the outer message keep their ids: give the inner message its own epoch, and the
  // outer one a fresh epoch afterwards would lose its definitions, so inner shapes use a private tree.
  const restoreShapes = privateShapeTree();
  const identity = saveIdentity();
  const custom = saveCustom();
  try {
    return encodeFresh(value, config, savedDepth, savedMaxDepth, false, stream);
  } finally {
    restoreShapes();
    restoreIdentity(identity);
    restoreCustom(custom);
    restoreBuffer(buffer);
    restoreRecords(records);
    depth = savedDepth;
    maxDepth = savedMaxDepth;
    wholeErrors = savedWholeErrors;
  }
}

// ---------------------------------------------------------------------------------------------------
// Values

export function writeValue(value: unknown): void {
  room();
  // `typeof x === "..."` tests, not a switch on `typeof x`: V8 turns each test into a check of the
  // value's type, where a switch materializes the typeof string (a builtin call per value).
  if (typeof value === "string") writeString(value);
  else if (typeof value === "number") writeNumber(value);
  else if (typeof value === "object") {
    if (value === null) put(NULL);
    else writeObject(value);
  } else if (typeof value === "boolean") put(value ? TRUE : FALSE);
  else if (value === undefined) put(UNDEFINED);
  else if (typeof value === "bigint") writeBigInt(value);
  else throw refuse(value);
}

/** A container starts: one level deeper, within maxDepth. */
export function enter(): void {
  if (++depth > maxDepth) depthExceeded();
}

export function leave(): void {
  depth--;
}

/**
 * Whether the value being written is the message's value itself, not inside any container: a buffer
 * written here (the value, or the value's view's buffer) is the last thing the message writes.
 */
export function atTop(): boolean {
  return depth === 0;
}

function depthExceeded(): never {
  throw new LimitError("depth", maxDepth, `The value is nested deeper than maxDepth (${maxDepth}).`);
}

// ---------------------------------------------------------------------------------------------------
// Arrays

function isIndexKey(key: string, length: number): boolean {
  if (!isDigit(key.charCodeAt(0))) return false;
  const index = Number(key);
  return Number.isInteger(index) && index < length && String(index) === key;
}

export function writeArray(array: unknown[]): void {
  enter();
  const n = array.length;
  // Object.keys lists the present indices, then any other own enumerable properties: it tells holes
  // and extra properties apart from a plain dense array.
  const keys = keysOf(array);
  if (n > 16 && keys.length < n / 2) {
    writeSparse(array, keys, n);
    leave();
    return;
  }
  const tagAt = pos;
  if (n < 16) put(FIXARRAY | n);
  else {
    put(ARRAY);
    writeVarint(n);
  }
  let present = 0;
  let i = 0;
  // The buffer, its bound and the write position live in locals through the loop, and numbers are
  // written here (`numberAt`) without touching the module's `pos`: module `let`s are context slots in
  // V8, so each `pos++` there is a load, a Smi check, an add and a store (for [1000 numbers] ~96
  // instructions a number with them, ~80 without; V8 11.3 checks the buffer's map and bounds at every
  // store either way). The position is stored back before anything else writes and the three are
  // reloaded after it (a write may grow the buffer). Each element is read once: a getter runs once.
  let t = target;
  let p = pos;
  let end = safeEnd;
  try {
    for (; i < n; i++) {
      const item = array[i];
      if (p > end) {
        setPos(p);
        room();
        t = target;
        p = pos;
        end = safeEnd;
      }
      if (typeof item === "number") {
        // As writeNumber would; TurboFan inlines numberAt here (its wide forms are a call).
        p = numberAt(t, p, item);
        present++;
        continue;
      }
      setPos(p);
      if (typeof item === "string") {
        // Strings make sure of their own room (the other common element kind): no writeValue call.
        writeString(item);
        present++;
      } else if (item === undefined && !(i in array)) put(HOLE);
      else {
        present++;
        writeValue(item);
      }
      t = target;
      p = pos;
      end = safeEnd;
    }
  } catch (error) {
    throw annotate(error, i);
  }
  setPos(p);
  if (keys.length !== present) {
    // Extra own properties: keys past the indices (a getter may have changed things; recount).
    const extra: string[] = [];
    for (let k = 0; k < keys.length; k++) if (!isIndexKey(keys[k]!, n)) extra.push(keys[k]!);
    if (extra.length > 0) {
      if (n < 16) {
        // The short form has no room for properties: widen the header (ARRAY_PROPS, varint length).
        room();
        insertByteAfter(tagAt, n);
      }
      patch(tagAt, ARRAY_PROPS);
      room();
      writeVarint(extra.length);
      writeEntries(array, extra, extra.length);
    }
  }
  leave();
}

function writeSparse(array: unknown[], keys: readonly string[], n: number): void {
  ensure(SLACK);
  put2(EXT, X_SPARSE_ARRAY);
  writeVarint(n);
  writeVarint(keys.length);
  writeEntries(array, keys, keys.length);
}
