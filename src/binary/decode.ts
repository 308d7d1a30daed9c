/**
 * `deserialize(bytes)`: reads the binary format (docs/binary-format.md). The input is untrusted:
 * - every read is bounds-checked, and every declared count or length is checked against the bytes that
 *   remain before anything is allocated for it (each element takes at least one byte);
 * - references must point at objects already decoded; records at shapes already defined;
 * - nesting is bounded by `maxDepth` (and a stack overflow, should the caller's stack already be deep,
 *   is reported as the same LimitError), so hostile input cannot crash the process;
 * - keys are assigned as own data properties: a `__proto__` key never sets a prototype;
 * - errors are rebuilt from a closed list of constructors, custom types only from the registry given.
 * Everything the input can get wrong is reported as a DecodeError (or LimitError) with a byte offset.
 *
 * Records of a shape are read by a per-shape reader compiled once the shape has repeated (lazy, CSP
 * safe: see core/host.ts `compile`), which builds each object as one literal with its final hidden class.
 *
 * This module holds the reader core (bounds, scalars, string headers, arrays, objects, records) and the
 * per-call state; read-strings.ts makes the strings from their bytes, read-shapes.ts caches shapes and
 * compiles their readers, read-payloads.ts reads the extensions (Map, Set, buffers and views, errors,
 * custom types, ...).
 */

import { DecodeError, LimitError, type StructuraErrorCode } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import type { TypeRegistry } from "../core/registry.ts";
import type { DecodeSession } from "./decode-session.ts";
import { fromCharCode } from "./read-ascii.ts";
import { readExtension } from "./read-payloads.ts";
import {
  COMPILE_AFTER,
  earnCompileCredit,
  internShape,
  readerFor,
  readGeneric,
  type Shape,
} from "./read-shapes.ts";
import { frameStrings, resetStrings, resumeStrings, setSlicing, slicing, stringAt } from "./read-strings.ts";
import { MODE_EXTEND, MODE_RESET, STREAM_MAGIC, shapeCost } from "./session.ts";
import { typedStackError } from "./stack.ts";
import {
  ARRAY,
  ARRAY_PROPS,
  BIGINT_NEG,
  BIGINT_POS,
  DATE,
  DATE_SECONDS,
  EXT,
  FALSE,
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
  OLDEST_VERSION,
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
} from "./tags.ts";

export interface DecodeConfig {
  registry: TypeRegistry;
  maxDepth: number;
  copy: boolean;
}

/** Marks an array slot or record field that is absent. Never escapes the decoder. */
export const ABSENT: unique symbol = Symbol("absent");
/** A reference slot whose object is still being built (a custom type whose data is being read). */
export const PENDING: unique symbol = Symbol("pending");
/**
 * A reference slot whose record (a compiled reader's) is reading its fields: a reference to it makes
 * the record's object there and then (`readRef`), which the reader then fills (`finishRecord`).
 */
const PENDING_RECORD: unique symbol = Symbol("pending record");

// ---------------------------------------------------------------------------------------------------
// Per-call state (module-level for speed; saved and restored when deserialize is re-entered).

// Load-time values here are made in calls marked pure (src/core/intrinsics.ts): the binary chunk holds
// both directions, and a bundle of `serialize` alone must not keep the decoder's state.
export let src: Uint8Array = /* @__PURE__ */ new Uint8Array(0);
/** The input as a DataView, made on first use (see dv()); null until then. */
let view: DataView | null = null;
export let pos = 0;
export let end = 0;
/**
 * Where the message starts in `src`: 0 for `deserialize`; a stream frame is read in place in its chunk
 * (from its first byte to `end`), without a view made per frame. Positions are `src`'s; the offsets
 * errors report are the message's (`at - base`).
 */
export let base = 0;
export let refs: unknown[] = [];
/**
 * Whether objects are numbered (pushed on `refs`). A message whose header says it holds no REF
 * (docs/binary-format.md §2) is read without: an array holding every object of a large message while it
 * is built is most of its decode time on V8 (it keeps young objects alive through scavenges, ~4x the
 * cost of building the objects alone).
 */
export let track = true;
/**
 * The message's shape table: its session's for a stream message; for a plain message NO_SHAPES until
 * its first definition (readShapeDefinition gives it an array of its own then).
 */
const NO_SHAPES: Shape[] = [];
let shapes: Shape[] = NO_SHAPES;
/** For a stream message: its session (whose table `shapes` is), and that table's bytes. */
let session: DecodeSession | null = null;
let tableBytes = 0;
let depth = 0;
let maxDepth = 0;
export let registry: TypeRegistry | null = null;
export let copy = true;
/** The message's format version (1 or 2): what its error records may hold. */
export let version = VERSION;
/** For `copy: false`: buffers aliased from the input, by ref index. */
export interface Alias {
  /** Absolute offset of the payload in the input's ArrayBuffer, and its length. */
  offset: number;
  length: number;
  /** A copy, made if the buffer is referenced as a value of its own. */
  copy: ArrayBuffer | null;
}
export let aliases: Map<number, Alias> | null = null;
let active = false;

export function fail(code: StructuraErrorCode, message: string, at = pos): never {
  throw new DecodeError(code, message, { offset: at - base });
}

function truncated(): never {
  fail("ERR_TRUNCATED", "The input ended in the middle of a value.", end);
}

export function need(n: number): void {
  if (n > end - pos) truncated();
}

export function readVarint(): number {
  if (pos >= end) truncated();
  let b = src[pos++]!;
  if (b < 0x80) return b;
  const start = pos - 1;
  let result = b & 0x7f;
  let scale = 128;
  for (let i = 1; i < 8; i++) {
    if (pos >= end) truncated();
    b = src[pos++]!;
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      if (result > Number.MAX_SAFE_INTEGER) break;
      return result;
    }
    scale *= 128;
  }
  fail("ERR_BAD_LENGTH", "A varint is longer than 53 bits.", start);
}

/** A count of items that each take at least `each` bytes: checked against what remains. */
export function readCount(each: number): number {
  const at = pos;
  const n = readVarint();
  if (n * each > end - pos) fail("ERR_BAD_LENGTH", `A count of ${n} exceeds the bytes that remain.`, at);
  return n;
}

function depthExceeded(): never {
  throw new LimitError("depth", maxDepth, `The input is nested deeper than maxDepth (${maxDepth}).`, {
    offset: pos - base,
  });
}

/** The next byte (the caller has checked that it is there). */
export function takeByte(): number {
  return src[pos++]!;
}

/** Moves past `n` bytes (the caller has checked that they are there). */
export function skip(n: number): void {
  pos += n;
}

/** Goes back to `at`, a position already read (a lookahead that did not match). */
export function seek(at: number): void {
  pos = at;
}

/** A container starts: one level deeper, within maxDepth. */
export function enter(): void {
  if (++depth > maxDepth) depthExceeded();
}

export function leave(): void {
  depth--;
}

/** For `copy: false`: the buffer numbered `index` aliases the input's bytes. */
export function addAlias(index: number, alias: Alias): void {
  if (aliases === null) aliases = new Map();
  aliases.set(index, alias);
}

/** Reserves the next reference index for an object built after its contents are read. */
export function reserve(): number {
  if (!track) return -1;
  refs.push(PENDING);
  return refs.length - 1;
}

// ---------------------------------------------------------------------------------------------------
// Entry point

/** `bytes[start, stop)` is the message (all of `bytes` by default); nothing outside it is read. */
export function decode(
  bytes: Uint8Array,
  config: DecodeConfig,
  stream: DecodeSession | null = null,
  start = 0,
  stop: number = bytes.length,
): unknown {
  if (active) return decodeReentrant(bytes.subarray(start, stop), config, stream);
  active = true;
  try {
    return decodeFresh(bytes, config, 0, Number.POSITIVE_INFINITY, stream, start, stop);
  } catch (error) {
    // decodeFresh converts what overflows inside it; this catches an overflow on the way in or out.
    throw typedStackError(error, stackLimit);
  } finally {
    active = false;
  }
}

export function stackLimit(): LimitError {
  return new LimitError("depth", maxDepth, "The input is nested too deeply for the call stack.", {
    offset: pos - base,
  });
}

/** `startDepth`: a deserialize called from a custom type's decode continues its caller's depth count,
 * bounded by its caller's maxDepth too. */
function decodeFresh(
  bytes: Uint8Array,
  config: DecodeConfig,
  startDepth = 0,
  outerMaxDepth = Number.POSITIVE_INFINITY,
  stream: DecodeSession | null = null,
  start = 0,
  stop: number = bytes.length,
): unknown {
  src = bytes;
  view = null;
  base = start;
  pos = start;
  end = stop;
  const length = stop - start;
  depth = startDepth;
  // A nested call (from a custom type) is bounded by its caller's limit too.
  maxDepth = Math.min(config.maxDepth, outerMaxDepth);
  registry = config.registry;
  copy = config.copy;
  aliases = null;
  resetStrings(length);
  readHeader(bytes, start, length, stream);
  pos = start + HEADER_SIZE;
  earnCompileCredit(length);
  try {
    const value = readValue();
    if (pos !== end) fail("ERR_TRAILING_DATA", `${end - pos} bytes follow the value.`);
    if (session !== null) session.bytes = tableBytes;
    return value;
  } catch (error) {
    throw typedStackError(error, stackLimit);
  } finally {
    // Fresh tables only when this message used them: a stream of small messages without references
    // or plain shape definitions (a stream message's shapes are its session's) allocates none.
    if (refs.length !== 0) refs = [];
    track = true;
    shapes = NO_SHAPES;
    session = null;
    src = EMPTY;
    view = null;
    base = 0;
    resumeStrings(0);
    registry = null;
    aliases = null;
  }
}

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/**
 * The message's two header bytes: a stream message (with `stream`) takes its session's shape table
 * and mode; a plain message its format version. Sets `session`, `shapes`, `tableBytes`, `track` and
 * `version`, or fails.
 */
function readHeader(bytes: Uint8Array, start: number, length: number, stream: DecodeSession | null): void {
  session = null;
  const magic = length > 0 ? bytes[start]! : -1;
  const second = length > 1 ? bytes[start + 1]! : -1;
  if (stream !== null && magic === STREAM_MAGIC) {
    // A stream message (docs/stream-format.md §1.1): version 2 values, over the stream's shape table.
    if (length < HEADER_SIZE) truncated();
    const mode = second & ~NO_REFS;
    track = (second & NO_REFS) === 0;
    if (mode === MODE_RESET) {
      stream.shapes = [];
      stream.bytes = 0;
    } else if (mode !== MODE_EXTEND) {
      // Made by the session: a bundle of deserialize alone leaves the message out (decode-session.ts).
      throw stream.modeError(mode);
    }
    session = stream;
    shapes = stream.shapes;
    tableBytes = stream.bytes;
    version = VERSION;
  } else {
    if (length > 0 && magic !== MAGIC) {
      fail(
        "ERR_VERSION",
        magic === STREAM_MAGIC
          ? "The input is a stream message: only a stream decoder reads it (with its stream's shapes)."
          : "The input is not structura binary data (wrong magic byte).",
        start,
      );
    }
    if (length < HEADER_SIZE) truncated();
    // Version 2 and later: the high bit says the message holds no reference (§2).
    const v = second >= NO_REFS + 2 ? second - NO_REFS : second;
    track = v === second;
    if (v < OLDEST_VERSION || v > VERSION) {
      fail(
        "ERR_VERSION",
        `Format version ${v} is not supported (this decoder reads ${OLDEST_VERSION} to ${VERSION}).`,
        start + 1,
      );
    }
    version = v;
  }
}

// ---------------------------------------------------------------------------------------------------
// Stream frames: the frames of one chunk read one after another

/**
 * A stream reads many short messages out of one chunk (100,000 records are 100,000 frames of about 64
 * bytes). What decodeFresh sets and clears per message is per chunk here: `beginFrames` sets the input,
 * the limits and the registry once, `readFrame` sets only a frame's bounds and header, and `endFrames`
 * lets the chunk go (src, the string block) when the chunk is done or a frame failed. Between frames
 * no other code runs but the stream's frame loop, so the state stays valid; `active` stays set, so a
 * `deserialize` re-entered from a custom type inside a frame saves and restores it (decodeReentrant).
 * The frame's string state is reset per frame (`frameStrings`): a Latin-1 block never spans frames,
 * since it ends at its frame's end, and the aligned words and the shared flag are the chunk's.
 */
export function beginFrames(bytes: Uint8Array, config: DecodeConfig): boolean {
  // Already decoding (a custom type's decode feeding a stream decoder): frame by frame, as before.
  if (active) return false;
  active = true;
  src = bytes;
  view = null;
  maxDepth = config.maxDepth;
  registry = config.registry;
  copy = config.copy;
  resetStrings(0);
  return true;
}

/** The value of the frame whose message is `src[start, stop)`, inside beginFrames/endFrames. */
export function readFrame(start: number, stop: number, stream: DecodeSession): unknown {
  base = start;
  pos = start;
  end = stop;
  depth = 0;
  const length = stop - start;
  frameStrings(length);
  readHeader(src, start, length, stream);
  pos = start + HEADER_SIZE;
  earnCompileCredit(length);
  try {
    const value = readValue();
    if (pos !== end) fail("ERR_TRAILING_DATA", `${end - pos} bytes follow the value.`);
    if (session !== null) session.bytes = tableBytes;
    return value;
  } catch (error) {
    throw typedStackError(error, stackLimit);
  } finally {
    // As decodeFresh's end, but the chunk and the limits stay for the next frame.
    if (refs.length !== 0) refs = [];
    track = true;
    shapes = NO_SHAPES;
    session = null;
    aliases = null;
  }
}

/** The chunk's frames are done (or one failed): what decodeFresh clears at the end of a message. */
export function endFrames(): void {
  if (refs.length !== 0) refs = [];
  track = true;
  shapes = NO_SHAPES;
  session = null;
  src = EMPTY;
  view = null;
  base = 0;
  pos = 0;
  end = 0;
  resumeStrings(0);
  registry = null;
  aliases = null;
  active = false;
}

/**
 * The input as a DataView, for multi-byte numbers. Made on first use: a DataView costs more to create
 * than a short message costs to decode, and most short messages (small ints, short strings, records of
 * them) never read one.
 */
export function dv(): DataView {
  return view ?? (view = new DataView(src.buffer, src.byteOffset, src.byteLength));
}

/**
 * Multi-byte numbers read from the input's bytes (the caller has checked that they are there), not
 * through a DataView: a stream decodes many short messages, each a view of its own, and a DataView
 * made per message (a record with a Date or a float, 100,000 records) cost more than its reads.
 */
function uint16At(at: number): number {
  const b = src;
  return b[at]! | (b[at + 1]! << 8);
}

function int32At(at: number): number {
  const b = src;
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
}

/** Eight bytes seen as one float64: the input's bytes are copied in and read as one. */
const f64 = /* @__PURE__ */ new Float64Array(1);
const f64Bytes = /* @__PURE__ */ intrinsic(() => new Uint8Array(f64.buffer));
/** Where the host's float64 is little-endian, as the format's: 0; big-endian: 7 (its bytes reversed). */
const flip = /* @__PURE__ */ intrinsic(() => (new Uint8Array(new Uint16Array([1]).buffer)[0] ? 0 : 7));

export function float64At(at: number): number {
  for (let i = 0; i < 8; i++) f64Bytes[i ^ flip] = src[at + i]!;
  return f64[0]!;
}

function decodeReentrant(bytes: Uint8Array, config: DecodeConfig, stream: DecodeSession | null): unknown {
  const strings = slicing();
  const saved = {
    session,
    tableBytes,
    src,
    view,
    base,
    pos,
    end,
    refs,
    track,
    shapes,
    depth,
    maxDepth,
    registry,
    copy,
    aliases,
    version,
  };
  // The inner message numbers its own objects and defines its own shapes: its references and record
  // ids must not see (or shift) the caller's tables.
  refs = [];
  shapes = NO_SHAPES;
  try {
    return decodeFresh(bytes, config, saved.depth, saved.maxDepth, stream);
  } finally {
    session = saved.session;
    tableBytes = saved.tableBytes;
    src = saved.src;
    view = saved.view;
    base = saved.base;
    pos = saved.pos;
    end = saved.end;
    refs = saved.refs;
    track = saved.track;
    shapes = saved.shapes;
    depth = saved.depth;
    maxDepth = saved.maxDepth;
    registry = saved.registry;
    copy = saved.copy;
    aliases = saved.aliases;
    version = saved.version;
    resumeStrings(strings);
  }
}

// ---------------------------------------------------------------------------------------------------
// Values

/** A value that must be present (not an absent array slot or record field). */
export function readValue(): unknown {
  const value = readSlot();
  if (value === ABSENT)
    fail("ERR_BAD_VALUE", "An absent-value marker appears outside an array or record.", pos - 1);
  return value;
}

/** A value, or ABSENT for a hole. */
export function readSlot(): unknown {
  if (pos >= end) truncated();
  const b = src[pos++]!;
  if (b < 0x80) return b;
  if (b < 0xa0) return readUtf8(b & 0x1f);
  if (b < 0xc0) return readRecord(b & 0x1f);
  if (b >= 0xe0) return b >= 0xf0 ? b - 256 : readElements(b & 0x0f);
  switch (b) {
    case UNDEFINED:
      return undefined;
    case NULL:
      return null;
    case FALSE:
      return false;
    case TRUE:
      return true;
    case UINT8:
      need(1);
      return src[pos++];
    case UINT16:
      need(2);
      pos += 2;
      return uint16At(pos - 2);
    case UINT32:
      need(4);
      pos += 4;
      return int32At(pos - 4) >>> 0;
    case INT8:
      need(1);
      pos += 1;
      return (src[pos - 1]! << 24) >> 24;
    case INT16:
      need(2);
      pos += 2;
      return (uint16At(pos - 2) << 16) >> 16;
    case INT32:
      need(4);
      pos += 4;
      return int32At(pos - 4);
    case FLOAT64:
      need(8);
      pos += 8;
      return float64At(pos - 8);
    case STR8:
      need(1);
      return readUtf8(src[pos++]!);
    case STR16:
      need(2);
      pos += 2;
      return readUtf8(uint16At(pos - 2));
    case STR32:
      need(4);
      pos += 4;
      return readUtf8(int32At(pos - 4) >>> 0);
    case STR_UTF16:
      return readUtf16();
    case BIGINT_POS:
      return readBigInt(false);
    case BIGINT_NEG:
      return readBigInt(true);
    case ARRAY:
      return readArray(false);
    case ARRAY_PROPS:
      return readArray(true);
    case OBJECT:
      return readObject();
    case SHAPE_DEF:
      return readShapeDefinition();
    case RECORD:
      return readRecord(readVarint());
    case REF:
      return readRef();
    case HOLE:
      return ABSENT;
    case DATE_SECONDS: {
      need(4);
      // Whole seconds (the records of a log or RPC stream): read from the bytes, as every scalar of a
      // stream message is, not through a DataView made for this message.
      const date = new Date((int32At(pos) >>> 0) * 1000);
      pos += 4;
      if (track) refs.push(date);
      return date;
    }
    case DATE: {
      need(8);
      const date = new Date(float64At(pos));
      pos += 8;
      if (track) refs.push(date);
      return date;
    }
    case EXT:
      return readExtension();
    default:
      fail("ERR_UNKNOWN_TAG", `Unknown tag 0x${b.toString(16)}.`, pos - 1);
  }
}

function readRef(): unknown {
  const at = pos - 1;
  const index = readVarint();
  if (!track) fail("ERR_BAD_REFERENCE", "A reference in a message whose header says it has none.", at);
  if (index >= refs.length)
    fail("ERR_BAD_REFERENCE", `Reference to object #${index}, which does not exist.`, at);
  const value = refs[index];
  if (value === PENDING_RECORD) {
    // A field of a record refers back to the record: it exists from now on, and its reader fills it.
    const record = {};
    refs[index] = record;
    return record;
  }
  if (value === PENDING) {
    fail("ERR_BAD_REFERENCE", `Reference to object #${index}, which is still being decoded.`, at);
  }
  if (aliases !== null) {
    const alias = aliases.get(index);
    // An aliased input buffer used as a value of its own: give a copy of its bytes, not the input.
    if (alias !== undefined) return (alias.copy ??= copyAliased(alias));
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Strings

function readUtf8(n: number): string {
  if (n > end - pos) truncated();
  const start = pos;
  pos += n;
  return stringAt(start, n);
}

const UTF16_CHUNK = 4096;

function readUtf16(): string {
  const at = pos - 1;
  const n = readVarint();
  if (n * 2 > end - pos) fail("ERR_BAD_LENGTH", `A string of ${n} UTF-16 units exceeds the input.`, at);
  let out = "";
  const units: number[] = [];
  for (let i = 0; i < n; i++) {
    units.push(src[pos]! | (src[pos + 1]! << 8));
    pos += 2;
    if (units.length === UTF16_CHUNK) {
      out += fromCharCode.apply(null, units);
      units.length = 0;
    }
  }
  return out + fromCharCode.apply(null, units);
}

export function readKey(): string {
  const at = pos;
  const value = readSlot();
  if (typeof value !== "string") fail("ERR_BAD_VALUE", "A property key is not a string.", at);
  return value;
}

export function readString(): string {
  return readKey();
}

// ---------------------------------------------------------------------------------------------------
// BigInt

export function readBigInt(negative: boolean): bigint {
  const at = pos - 1;
  const n = readVarint();
  if (n > end - pos) fail("ERR_BAD_LENGTH", `A BigInt of ${n} bytes exceeds the input.`, at);
  let magnitude: bigint;
  if (n === 8) {
    magnitude = dv().getBigUint64(pos, true);
    pos += 8;
  } else if (n === 0) {
    magnitude = 0n;
  } else {
    let hex = "";
    for (let i = pos + n - 1; i >= pos; i--) {
      const b = src[i]!;
      hex += (b < 16 ? "0" : "") + b.toString(16);
    }
    pos += n;
    try {
      magnitude = BigInt(`0x${hex}`);
    } catch {
      // Larger than the host's maximum BigInt size.
      fail("ERR_BAD_LENGTH", `A BigInt of ${n} bytes is too large for this host.`, at);
    }
  }
  return negative ? -magnitude : magnitude;
}

// ---------------------------------------------------------------------------------------------------
// Arrays and objects

const defineProperty = Object.defineProperty;

function defineData(target: object, key: string, value: unknown): void {
  defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function setProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") defineData(target, key, value);
  else target[key] = value;
}

function readArray(withProps: boolean): unknown[] {
  const n = readCount(1);
  if (!withProps) return readElements(n);
  const array = readElements(n);
  depth++;
  readArrayProps(array);
  depth--;
  return array;
}

function readElements(n: number): unknown[] {
  const array: unknown[] = new Array(n);
  if (track) refs.push(array);
  if (++depth > maxDepth) depthExceeded();
  const b = src;
  for (let i = 0; i < n; i++) {
    // Small integers, short strings and records by shape id (the bulk of arrays of scalars and of
    // records) without a call into readSlot: [100 objects] decodes in 20% less time.
    if (pos < end) {
      const tag = b[pos]!;
      if (tag < 0xc0) {
        pos++;
        array[i] = tag < 0x80 ? tag : tag < 0xa0 ? readUtf8(tag & 0x1f) : readRecord(tag & 0x1f);
        continue;
      }
      if (tag === UINT16 && end - pos > 2) {
        array[i] = b[pos + 1]! | (b[pos + 2]! << 8);
        pos += 3;
        continue;
      }
    }
    const item = readSlot();
    if (item !== ABSENT) array[i] = item;
  }
  depth--;
  return array;
}

function readArrayProps(array: unknown[]): void {
  const count = readCount(2);
  for (let i = 0; i < count; i++) {
    const at = pos;
    const key = readKey();
    const item = readSlot();
    if (item === ABSENT) continue;
    if (key === "length") fail("ERR_BAD_VALUE", 'An array cannot have a "length" entry.', at);
    setProperty(array as unknown as Record<string, unknown>, key, item);
  }
}

export function readSparse(): unknown[] {
  const at = pos;
  const length = readVarint();
  if (length > 0xffffffff) fail("ERR_BAD_LENGTH", `Array length ${length} is out of range.`, at);
  const array: unknown[] = [];
  if (track) refs.push(array);
  if (++depth > maxDepth) depthExceeded();
  array.length = length;
  readArrayProps(array);
  depth--;
  return array;
}

function readObject(): object {
  const n = readCount(2);
  const object: Record<string, unknown> = {};
  if (track) refs.push(object);
  if (++depth > maxDepth) depthExceeded();
  for (let i = 0; i < n; i++) {
    const key = readKey();
    const item = readSlot();
    if (item !== ABSENT) setProperty(object, key, item);
  }
  depth--;
  return object;
}

// ---------------------------------------------------------------------------------------------------
// Records (shapes and their compiled readers: read-shapes.ts)

function readShapeDefinition(): object {
  const at = pos - 1;
  const n = readCount(2);
  if (n === 0) fail("ERR_BAD_VALUE", "A shape needs at least one key.", at);
  const keys: string[] = new Array(n);
  // The keys go into the process-wide shape cache (and a stream's table), which must hold strings of
  // their own: a slice would keep its whole Latin-1 block alive there (read-strings.ts).
  const flags = slicing();
  setSlicing(0);
  for (let i = 0; i < n; i++) keys[i] = readKey();
  setSlicing(flags);
  if (session !== null) addToTable(keys, at);
  const shape = internShape(keys);
  if (shapes === NO_SHAPES) shapes = [];
  shapes.push(shape);
  return readWithShape(shape);
}

/** A stream message's definition joins its stream's table, within the table's byte bound. */
function addToTable(keys: readonly string[], at: number): void {
  const cost = shapeCost(keys);
  const max = session!.max;
  if (tableBytes + cost > max) {
    throw session!.tableError(at - base);
  }
  tableBytes += cost;
}

function readRecord(id: number): object {
  const shape = shapes[id];
  if (shape === undefined)
    fail("ERR_BAD_REFERENCE", `Record of shape #${id}, which is not defined.`, pos - 1);
  return readWithShape(shape);
}

function readWithShape(shape: Shape): object {
  if (++depth > maxDepth) depthExceeded();
  let read = shape.read;
  if (read === null && shape.compilable && ++shape.uses > COMPILE_AFTER) {
    read = readerFor(shape, readSlot, ABSENT, PENDING_RECORD, finishRecord);
    shape.read = read;
  }
  const object = read === null || read === readGeneric ? readFields(shape.keys) : read(track ? refs : null);
  depth--;
  return object;
}

/** A compiled reader's uncommon record (see read-shapes.ts `RecordFinisher`). */
function finishRecord(index: number, keys: readonly string[], values: unknown[]): object {
  const slot = index < 0 ? PENDING_RECORD : refs[index];
  const object = (slot === PENDING_RECORD ? {} : slot) as Record<string, unknown>;
  if (index >= 0) refs[index] = object;
  for (let i = 0; i < keys.length; i++) {
    const item = values[i];
    if (item !== ABSENT) setProperty(object, keys[i]!, item);
  }
  return object;
}

function readFields(keys: readonly string[]): object {
  const object: Record<string, unknown> = {};
  if (track) refs.push(object);
  for (let i = 0; i < keys.length; i++) {
    const item = readSlot();
    if (item !== ABSENT) setProperty(object, keys[i]!, item);
  }
  return object;
}

export function copyAliased(alias: Alias): ArrayBuffer {
  const start = alias.offset - src.byteOffset;
  return src.slice(start, start + alias.length).buffer;
}
