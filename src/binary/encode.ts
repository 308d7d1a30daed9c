/**
 * `serialize(value)`: one pass over the value graph writing the binary format (docs/binary-format.md).
 *
 * Why it is fast:
 * - one output buffer per process, reused across calls and grown geometrically; every write path checks
 *   `pos > safeEnd` once and may then write up to SLACK bytes without further bounds checks;
 * - short strings are encoded by an inline UTF-8 loop, long ones by `TextEncoder.encodeInto` straight
 *   into the output;
 * - plain objects are written as records: the key list of a shape is written once per message and each
 *   later object of that shape writes only its values. Shapes are found through a process-wide
 *   transition tree (key by key), with the last two shapes checked first. Once a shape repeats, its
 *   values are written by a writer compiled for it (constant-name reads instead of keyed ones);
 * - shared references: one Set `add` per object both finds repeats and numbers the object;
 * - typed-array payloads are copied with `set`, never byte by byte.
 *
 * This module holds the writer core (buffer, scalars, strings, records, arrays) and the per-call
 * state; write-identity.ts numbers the objects (shared references), write-shapes.ts finds record shapes
 * and compiles their writers, write-payloads.ts writes the other kinds (Map, Set, buffers, errors, ...).
 */

import { DataCloneError, LimitError } from "../core/errors.ts";
import { proxyDetector } from "../core/host.ts";
import { formatPath } from "../core/path.ts";
import type { TypeRegistry } from "../core/registry.ts";
import { classifyUnproxied, Kind } from "../core/types.ts";
import {
  type EncodeSession,
  MODE_EXTEND,
  MODE_RESET,
  nextEpoch,
  STREAM_MAGIC,
  shapeCost,
} from "./session.ts";
import { typedStackError } from "./stack.ts";
import {
  ALIGNMENT,
  ARRAY,
  ARRAY_PROPS,
  BIGINT_NEG,
  BIGINT_POS,
  EXT,
  FALSE,
  FIXARRAY,
  FIXREC,
  FIXSTR,
  FLOAT64,
  HEADER_SIZE,
  HOLE,
  INT8,
  INT16,
  INT32,
  MAGIC,
  NO_REFS,
  NULL,
  OBJECT,
  RECORD,
  REF,
  SHAPE_DEF,
  STR_UTF16,
  STR8,
  STR16,
  STR32,
  TRUE,
  UINT8,
  UINT16,
  UINT32,
  UNDEFINED,
  VERSION,
  X_SPARSE_ARRAY,
} from "./tags.ts";
import { claim, resetIdentity, restoreIdentity, saveIdentity } from "./write-identity.ts";
import {
  isPendingCustom,
  resetCustom,
  restoreCustom,
  saveCustom,
  writeByKind,
  writeCustom,
} from "./write-payloads.ts";
import { annotate, Refusal, refuse } from "./write-refusal.ts";
import {
  COMPILE_AFTER,
  compileWriter,
  lookupShape,
  MAX_COMPILED_KEYS,
  MAX_SHAPE_KEYS,
  ownKeysAre,
  privateShapeTree,
  type ShapeNode,
  sameKeys,
  writeFieldsGeneric,
} from "./write-shapes.ts";

// ---------------------------------------------------------------------------------------------------
// Writer

/** Bytes any single scalar write may use after one `pos > safeEnd` check. */
const SLACK = 32;
const INITIAL_SIZE = 8192;
/** A buffer grown past this is not kept for the next call. */
const KEEP_LIMIT = 4 * 1024 * 1024;
/**
 * Size of the next fresh buffer. A message that filled its buffer takes it along, and the next one,
 * likely of a similar size, starts at that size instead of growing from INITIAL_SIZE and copying its
 * bytes at every doubling.
 */
let freshSize = INITIAL_SIZE;

let target = new Uint8Array(0);
let view = new DataView(target.buffer);
let pos = 0;
let safeEnd = -1;

function grow(need: number): void {
  const wanted = pos + need + SLACK;
  let size = target.length * 2;
  if (size < wanted) size = wanted;
  if (size < INITIAL_SIZE) size = INITIAL_SIZE;
  size = Math.ceil(size / 4096) * 4096;
  const next = new Uint8Array(size);
  if (pos > 0) next.set(target.subarray(0, pos));
  target = next;
  view = new DataView(next.buffer);
  safeEnd = size - SLACK;
}

function ensure(n: number): void {
  if (pos + n > safeEnd) grow(n);
}

export function writeVarint(n: number): void {
  // Callers have ensured SLACK bytes; a varint of a number below 2^53 takes at most 8.
  const t = target;
  while (n >= 0x80) {
    t[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  t[pos++] = n;
}

/** One byte (the caller has room: `room()` or the check at the start of `writeValue`). */
export function put(byte: number): void {
  target[pos++] = byte;
}

export function putUint32(n: number): void {
  view.setUint32(pos, n, true);
  pos += 4;
}

export function putFloat64(n: number): void {
  view.setFloat64(pos, n, true);
  pos += 8;
}

/** Makes room for the next SLACK bytes. */
export function room(): void {
  if (pos > safeEnd) grow(SLACK);
}

/** Zero padding so the payload that follows starts at a multiple of ALIGNMENT. */
function writePadding(): void {
  const pad = (ALIGNMENT - ((pos + 1) % ALIGNMENT)) % ALIGNMENT;
  target[pos++] = pad;
  for (let i = 0; i < pad; i++) target[pos++] = 0;
}

export function writeBytes(bytes: Uint8Array): void {
  ensure(bytes.length + SLACK);
  writePadding();
  target.set(bytes, pos);
  pos += bytes.length;
}

// ---------------------------------------------------------------------------------------------------
// Per-call state (module-level for speed; saved and restored when serialize is re-entered from a
// custom type's encode function).

/** The current message's shape epoch: a shape node whose `epoch` equals it is defined in this message
 * (or, for a stream message, in its stream's table) under `node.id`. */
let epoch = 0;
/** For a stream message: its session, and the stream table's bytes as this message grows it. */
let session: EncodeSession | null = null;
let tableBytes = 0;
/** A shape did not fit the stream table in this message: the next message resets the table. */
let tableFull = false;
let nextShape = 0;
let depth = 0;
/** Whether the message holds a REF; if not, its header says so (docs/binary-format.md §2) and the
 * decoder skips numbering its objects. */
let refsWritten = false;
let maxDepth = 0;
let registry: TypeRegistry | null = null;
/** Whether errors are written whole (docs/binary-format.md §8.1) or as structured clone keeps them. */
export let wholeErrors = true;
let isProxy: ((value: object) => boolean) | null = null;
let lastShape: ShapeNode | null = null;
let prevShape: ShapeNode | null = null;

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
  if (target.length === 0) grow(freshSize);
  registry = config.registry.size === 0 ? null : config.registry;
  // A nested call (from a custom type) is bounded by its caller's limit too.
  maxDepth = Math.min(config.maxDepth, outerMaxDepth);
  wholeErrors = config.wholeErrors !== false;
  isProxy = proxyDetector();
  depth = startDepth;
  lastShape = prevShape = null;
  pos = 0;
  const t = target;
  session = stream;
  tableFull = false;
  if (stream === null) {
    epoch = nextEpoch();
    nextShape = 0;
    t[0] = MAGIC;
    t[1] = VERSION;
  } else {
    // A stream message: shapes whose node carries the session's epoch are in the reader's table.
    t[0] = STREAM_MAGIC;
    if (stream.reset) {
      stream.epoch = nextEpoch();
      stream.shapes = 0;
      stream.bytes = 0;
      t[1] = MODE_RESET;
    } else t[1] = MODE_EXTEND;
    epoch = stream.epoch;
    nextShape = stream.shapes;
    tableBytes = stream.bytes;
  }
  pos = HEADER_SIZE;
  refsWritten = false;
  try {
    writeValue(value);
    // `target`, not `t`: the buffer may have grown.
    if (!refsWritten) target[1] = target[1]! | NO_REFS;
    if (stream !== null) {
      stream.shapes = nextShape;
      stream.bytes = tableBytes;
      stream.reset = tableFull;
    }
  } catch (error) {
    pos = 0;
    // The message is not sent, but shape nodes may carry the session's epoch with ids the reader never
    // saw: the session moves to a fresh epoch (it defines its shapes again, with new ids, from the
    // table size the reader has).
    if (stream !== null) stream.epoch = nextEpoch();
    throw convertError(error);
  } finally {
    resetIdentity();
    resetCustom();
    registry = null;
    session = null;
    depth = 0;
  }
  const end = pos;
  pos = 0;
  let out: Uint8Array;
  if (transient) {
    // The caller copies the bytes before the next encode: no copy here. A buffer past KEEP_LIMIT goes
    // with the view (the next call starts afresh), as below.
    out = target.subarray(0, end);
    if (target.length > KEEP_LIMIT) {
      target = new Uint8Array(0);
      safeEnd = -1;
    }
  } else if (end > (target.length >> 1) + (target.length >> 2)) {
    // Mostly full: hand the buffer itself over instead of copying it, and start afresh next time.
    out = target.subarray(0, end);
    target = new Uint8Array(0);
    safeEnd = -1;
    freshSize = Math.min(end + (end >> 3), KEEP_LIMIT);
  } else {
    out = target.slice(0, end);
    if (target.length > KEEP_LIMIT) {
      target = new Uint8Array(0);
      safeEnd = -1;
    }
  }
  return out;
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
  const saved = {
    session,
    tableBytes,
    tableFull,
    target,
    view,
    pos,
    safeEnd,
    freshSize,
    epoch,
    nextShape,
    depth,
    refsWritten,
    maxDepth,
    registry,
    isProxy,
    lastShape,
    prevShape,
    wholeErrors,
  };
  target = new Uint8Array(0);
  safeEnd = -1;
  pos = 0;
  freshSize = INITIAL_SIZE;
  depth = 0;
  // Shapes defined in the outer message keep their ids: give the inner message its own epoch, and the
  // outer one a fresh epoch afterwards would lose its definitions, so inner shapes use a private tree.
  const restoreShapes = privateShapeTree();
  const identity = saveIdentity();
  const custom = saveCustom();
  try {
    return encodeFresh(value, config, saved.depth, saved.maxDepth, false, stream);
  } finally {
    restoreShapes();
    restoreIdentity(identity);
    restoreCustom(custom);
    session = saved.session;
    tableBytes = saved.tableBytes;
    tableFull = saved.tableFull;
    target = saved.target;
    view = saved.view;
    pos = saved.pos;
    safeEnd = saved.safeEnd;
    freshSize = saved.freshSize;
    epoch = saved.epoch;
    nextShape = saved.nextShape;
    depth = saved.depth;
    refsWritten = saved.refsWritten;
    maxDepth = saved.maxDepth;
    registry = saved.registry;
    wholeErrors = saved.wholeErrors;
    isProxy = saved.isProxy;
    lastShape = saved.lastShape;
    prevShape = saved.prevShape;
  }
}

// ---------------------------------------------------------------------------------------------------
// Values

export function writeValue(value: unknown): void {
  if (pos > safeEnd) grow(SLACK);
  switch (typeof value) {
    case "string":
      writeString(value);
      return;
    case "number":
      writeNumber(value);
      return;
    case "object":
      if (value === null) target[pos++] = NULL;
      else writeObject(value);
      return;
    case "boolean":
      target[pos++] = value ? TRUE : FALSE;
      return;
    case "undefined":
      target[pos++] = UNDEFINED;
      return;
    case "bigint":
      writeBigInt(value);
      return;
    default:
      throw refuse(value);
  }
}

function writeNumber(n: number): void {
  const t = target;
  const i = n | 0;
  if (i === n && (i !== 0 || 1 / n > 0)) {
    if (i >= 0) {
      if (i < 0x80) t[pos++] = i;
      else if (i < 0x100) {
        t[pos++] = UINT8;
        t[pos++] = i;
      } else if (i < 0x10000) {
        t[pos++] = UINT16;
        t[pos++] = i;
        t[pos++] = i >>> 8;
      } else {
        t[pos++] = UINT32;
        view.setUint32(pos, i, true);
        pos += 4;
      }
    } else if (i >= -16) t[pos++] = i & 0xff;
    else if (i >= -0x80) {
      t[pos++] = INT8;
      t[pos++] = i & 0xff;
    } else if (i >= -0x8000) {
      t[pos++] = INT16;
      t[pos++] = i;
      t[pos++] = i >> 8;
    } else {
      t[pos++] = INT32;
      view.setInt32(pos, i, true);
      pos += 4;
    }
  } else if (n >>> 0 === n && n !== 0) {
    t[pos++] = UINT32;
    view.setUint32(pos, n, true);
    pos += 4;
  } else {
    t[pos++] = FLOAT64;
    view.setFloat64(pos, n, true);
    pos += 8;
  }
}

const textEncoder = new TextEncoder();
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function wellFormed(s: string): boolean {
  return isWellFormed !== undefined ? isWellFormed.call(s) : !LONE_SURROGATE.test(s);
}

/** Strings up to this many UTF-16 units go through the inline loop. */
const INLINE_STRING = 64;

export function writeString(s: string): void {
  const n = s.length;
  if (n < INLINE_STRING) {
    ensure(n * 3 + 8);
    const t = target;
    const start = pos;
    const headerSize = n < 32 ? 1 : 2;
    let p = start + headerSize;
    // ASCII first (keys, ids, names): one compare per character, and the header is known.
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      t[p++] = c;
    }
    if (i === n) {
      if (n < 32) t[start] = FIXSTR | n;
      else {
        t[start] = STR8;
        t[start + 1] = n;
      }
      pos = p;
      return;
    }
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) t[p++] = c;
      else if (c < 0x800) {
        t[p++] = 0xc0 | (c >> 6);
        t[p++] = 0x80 | (c & 0x3f);
      } else if ((c & 0xf800) !== 0xd800) {
        t[p++] = 0xe0 | (c >> 12);
        t[p++] = 0x80 | ((c >> 6) & 0x3f);
        t[p++] = 0x80 | (c & 0x3f);
      } else {
        const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (c > 0xdbff || (d & 0xfc00) !== 0xdc00) {
          // A lone surrogate has no UTF-8 form: this string goes as UTF-16.
          writeUtf16(s);
          return;
        }
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        t[p++] = 0xf0 | (cp >> 18);
        t[p++] = 0x80 | ((cp >> 12) & 0x3f);
        t[p++] = 0x80 | ((cp >> 6) & 0x3f);
        t[p++] = 0x80 | (cp & 0x3f);
      }
    }
    const length = p - start - headerSize;
    if (length < 32) {
      t[start] = FIXSTR | length;
    } else {
      if (headerSize === 1) {
        // The header guess (by UTF-16 length) was one byte short: move the bytes up by one.
        t.copyWithin(start + 2, start + 1, p);
        p++;
      }
      t[start] = STR8;
      t[start + 1] = length;
    }
    pos = p;
    return;
  }
  if (!wellFormed(s)) {
    writeUtf16(s);
    return;
  }
  const max = n * 3;
  const headerSize = max < 0x100 ? 2 : max < 0x10000 ? 3 : 5;
  ensure(max + headerSize);
  const start = pos;
  const written = textEncoder.encodeInto(s, target.subarray(start + headerSize)).written;
  if (headerSize === 2) {
    target[start] = STR8;
    target[start + 1] = written;
  } else if (headerSize === 3) {
    target[start] = STR16;
    view.setUint16(start + 1, written, true);
  } else {
    target[start] = STR32;
    view.setUint32(start + 1, written, true);
  }
  pos = start + headerSize + written;
}

/** A string with lone surrogates: its UTF-16 code units, little-endian. */
function writeUtf16(s: string): void {
  const n = s.length;
  ensure(n * 2 + 16);
  const t = target;
  t[pos++] = STR_UTF16;
  writeVarint(n);
  let p = pos;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    t[p++] = c;
    t[p++] = c >> 8;
  }
  pos = p;
}

const BIG_64 = 0xffffffffffffffffn;

export function writeBigInt(value: bigint): void {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  target[pos++] = negative ? BIGINT_NEG : BIGINT_POS;
  if (magnitude <= BIG_64) {
    target[pos++] = 8;
    view.setBigUint64(pos, magnitude, true);
    pos += 8;
    return;
  }
  const hex = magnitude.toString(16);
  const count = (hex.length + 1) >> 1;
  ensure(count + 16);
  writeVarint(count);
  // Little-endian: the last two hex digits are the first byte.
  const t = target;
  let end = hex.length;
  for (let i = 0; i < count; i++) {
    const startDigit = Math.max(end - 2, 0);
    t[pos++] = Number.parseInt(hex.slice(startDigit, end), 16);
    end = startDigit;
  }
}

// ---------------------------------------------------------------------------------------------------
// Objects

const getPrototypeOf = Object.getPrototypeOf;
export const keysOf = Object.keys;
const hasOwn = Object.prototype.hasOwnProperty;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const isArray = Array.isArray;

function writeRef(index: number): void {
  if (isPendingCustom(index)) {
    throw new Refusal(
      "A custom type's data refers back to the custom object itself; such cycles cannot be serialized.",
    );
  }
  refsWritten = true;
  target[pos++] = REF;
  writeVarint(index);
}

/** A container starts: one level deeper, within maxDepth. */
export function enter(): void {
  if (++depth > maxDepth) depthExceeded();
}

export function leave(): void {
  depth--;
}

function depthExceeded(): never {
  throw new LimitError("depth", maxDepth, `The value is nested deeper than maxDepth (${maxDepth}).`);
}

export function writeObject(value: object): void {
  const ref = claim(value);
  if (ref !== -1) {
    writeRef(ref);
    return;
  }
  if (registry !== null) {
    const type = registry.find(value);
    if (type !== undefined) {
      writeCustom(value, type);
      return;
    }
  }
  // Proxies are refused (as structured clone does) before anything, even a prototype lookup, could
  // run one of their traps.
  if (isProxy?.(value)) throw refuse(value);
  const proto = getPrototypeOf(value);
  if (proto === ObjectProto) {
    // Most records repeat the shape just written (a list of them) or the one before (a record and its
    // nested record, in turn): compare the own keys with those in place, without allocating a key list.
    const last = lastShape;
    if (last?.named && ownKeysAre(value, last.keys!)) {
      writeShaped(value, last);
      return;
    }
    const prev = prevShape;
    if (prev?.named && ownKeysAre(value, prev.keys!)) {
      prevShape = last;
      lastShape = prev;
      writeShaped(value, prev);
      return;
    }
    const keys = keysOf(value);
    if (keys.length === 0 || isDigit(keys[0]!.charCodeAt(0))) {
      // Objects with internal slots but an ordinary prototype (a Date or an array whose prototype was
      // swapped, `arguments`) usually have no own keys or index keys: only those take the full check.
      const kind = classifyUnproxied(value);
      if (kind !== Kind.Object) {
        writeByKind(value, kind);
        return;
      }
    }
    writeRecord(value, keys);
    return;
  }
  if (proto === ArrayProto && isArray(value)) {
    writeArray(value as unknown[]);
    return;
  }
  writeByKind(value, classifyUnproxied(value));
}

export function writeRecord(value: object, keys: string[]): void {
  const n = keys.length;
  if (n === 0) {
    target[pos++] = OBJECT;
    target[pos++] = 0;
    return;
  }
  if (++depth > maxDepth) depthExceeded();
  if (n > MAX_SHAPE_KEYS) {
    target[pos++] = OBJECT;
    writeVarint(n);
    writeEntries(value, keys, n);
    depth--;
    return;
  }
  let shape = lastShape;
  if (shape === null || !sameKeys(shape.keys!, keys)) {
    shape = prevShape;
    if (shape === null || !sameKeys(shape.keys!, keys)) shape = lookupShape(keys);
    prevShape = lastShape;
    lastShape = shape;
  }
  depth--;
  writeShaped(value, shape);
}

/** A record of a known shape (one with keys, at most MAX_SHAPE_KEYS of them). */
function writeShaped(value: object, shape: ShapeNode): void {
  if (++depth > maxDepth) depthExceeded();
  const keys = shape.keys!;
  const n = keys.length;
  if (shape.epoch !== epoch) {
    if (session !== null && !tableHas(shape)) {
      // The stream's table is full: this record goes as a plain object (the next message resets).
      target[pos++] = OBJECT;
      writeVarint(n);
      writeEntries(value, keys, n);
      depth--;
      return;
    }
    shape.epoch = epoch;
    shape.id = nextShape++;
    target[pos++] = SHAPE_DEF;
    writeVarint(n);
    for (let i = 0; i < n; i++) {
      if (pos > safeEnd) grow(SLACK);
      writeString(keys[i]!);
    }
  } else {
    const id = shape.id;
    if (id < 32) target[pos++] = FIXREC | id;
    else {
      target[pos++] = RECORD;
      writeVarint(id);
    }
  }
  let write = shape.write;
  if (write === null && ++shape.uses > COMPILE_AFTER) {
    write =
      (n <= MAX_COMPILED_KEYS
        ? compileWriter(
            shape.keys!,
            writeValue,
            writeHole,
            annotate as (error: unknown, key: string) => unknown,
            hasOwn,
          )
        : null) ?? writeFieldsGeneric;
    shape.write = write;
  }
  if (write !== null && write !== writeFieldsGeneric) write(value);
  else writeFields(value, keys, n);
  depth--;
}

/** For a stream message: adds the shape's cost to the stream table if it fits (false if not). */
function tableHas(shape: ShapeNode): boolean {
  let cost = shape.cost;
  if (cost < 0) cost = shape.cost = shapeCost(shape.keys!);
  if (tableBytes + cost > session!.max) {
    tableFull = true;
    return false;
  }
  tableBytes += cost;
  return true;
}

/** The values of a record, in key order, read by computed key (before a shape's writer is compiled). */
function writeFields(value: object, keys: readonly string[], n: number): void {
  const source = value as Record<string, unknown>;
  let i = 0;
  try {
    for (; i < n; i++) {
      const key = keys[i]!;
      const item = source[key];
      if (item === undefined && !hasOwn.call(source, key)) {
        // A getter earlier in the walk deleted this key: the record marks it absent.
        writeHole();
      } else writeValue(item);
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
}

function writeHole(): void {
  if (pos > safeEnd) grow(SLACK);
  target[pos++] = HOLE;
}

/** key/value pairs, for OBJECT and the property lists of arrays. Keys present in `keys` but deleted
 * during the walk are written with a HOLE value. */
export function writeEntries(value: object, keys: readonly string[], n: number): void {
  const source = value as Record<string, unknown>;
  let i = 0;
  try {
    for (; i < n; i++) {
      const key = keys[i]!;
      if (pos > safeEnd) grow(SLACK);
      writeString(key);
      const item = source[key];
      if (item === undefined && !hasOwn.call(source, key)) {
        if (pos > safeEnd) grow(SLACK);
        target[pos++] = HOLE;
      } else writeValue(item);
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isIndexKey(key: string, length: number): boolean {
  if (!isDigit(key.charCodeAt(0))) return false;
  const index = Number(key);
  return Number.isInteger(index) && index < length && String(index) === key;
}

export function writeArray(array: unknown[]): void {
  if (++depth > maxDepth) depthExceeded();
  const n = array.length;
  // Object.keys lists the present indices, then any other own enumerable properties: it tells holes
  // and extra properties apart from a plain dense array.
  const keys = keysOf(array);
  if (n > 16 && keys.length < n / 2) {
    writeSparse(array, keys, n);
    depth--;
    return;
  }
  const tagAt = pos;
  if (n < 16) target[pos++] = FIXARRAY | n;
  else {
    target[pos++] = ARRAY;
    writeVarint(n);
  }
  let present = 0;
  let i = 0;
  try {
    for (; i < n; i++) {
      const item = array[i];
      if (typeof item === "number" && (item & 0xffff) === item && (item !== 0 || 1 / item > 0)) {
        // An integer in 0..65535 (not -0), the bulk of numeric arrays: written here, as writeNumber
        // would, without the call (V8 does not inline writeNumber into this loop).
        if (pos > safeEnd) grow(SLACK);
        const t = target;
        if (item < 0x80) t[pos++] = item;
        else if (item < 0x100) {
          t[pos] = UINT8;
          t[pos + 1] = item;
          pos += 2;
        } else {
          t[pos] = UINT16;
          t[pos + 1] = item;
          t[pos + 2] = item >>> 8;
          pos += 3;
        }
        present++;
      } else if (item === undefined && !(i in array)) {
        if (pos > safeEnd) grow(SLACK);
        target[pos++] = HOLE;
      } else {
        present++;
        writeValue(item);
      }
    }
  } catch (error) {
    throw annotate(error, i);
  }
  if (keys.length !== present) {
    // Extra own properties: keys past the indices (a getter may have changed things; recount).
    const extra: string[] = [];
    for (let k = 0; k < keys.length; k++) if (!isIndexKey(keys[k]!, n)) extra.push(keys[k]!);
    if (extra.length > 0) {
      if (n < 16) {
        // The short form has no room for properties: widen the header (ARRAY_PROPS, varint length).
        if (pos > safeEnd) grow(SLACK);
        target.copyWithin(tagAt + 2, tagAt + 1, pos);
        pos++;
        target[tagAt + 1] = n;
      }
      target[tagAt] = ARRAY_PROPS;
      if (pos > safeEnd) grow(SLACK);
      writeVarint(extra.length);
      writeEntries(array, extra, extra.length);
    }
  }
  depth--;
}

function writeSparse(array: unknown[], keys: readonly string[], n: number): void {
  ensure(SLACK);
  target[pos++] = EXT;
  target[pos++] = X_SPARSE_ARRAY;
  writeVarint(n);
  writeVarint(keys.length);
  writeEntries(array, keys, keys.length);
}
