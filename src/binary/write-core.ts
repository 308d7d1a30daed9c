/**
 * The encoder's writer core: the output buffer and the scalar writers (numbers, strings, BigInts, raw
 * bytes). encode.ts drives a message; write-records.ts and write-payloads.ts write through the small
 * helpers here (`put`, `room`, `writeVarint`, ...), which esbuild hoists into one scope with them, where
 * V8 inlines them.
 *
 * - one output buffer per process, reused across calls, grown geometrically and kept up to KEEP_LIMIT;
 *   every write path checks `pos > safeEnd` once and may then write up to SLACK bytes without further
 *   bounds checks;
 * - short strings are encoded by an inline UTF-8 loop, long ones by the host's `Buffer#utf8Write` (Node,
 *   Bun) or `TextEncoder.encodeInto` straight into the output.
 */

import { intrinsic } from "../core/intrinsics.ts";
import {
  ALIGNMENT,
  BIGINT_NEG,
  BIGINT_POS,
  FIXSTR,
  FLOAT64,
  INT8,
  INT16,
  INT32,
  STR_UTF16,
  STR8,
  STR16,
  STR32,
  UINT8,
  UINT16,
  UINT32,
} from "./tags.ts";

// ---------------------------------------------------------------------------------------------------
// Buffer

/** Bytes any single scalar write may use after one `pos > safeEnd` check. */
export const SLACK = 32;
const INITIAL_SIZE = 8192;
/** A buffer grown past this (4 MiB) is not kept for the next call. A literal: the build inlines it. */
const KEEP_LIMIT = 4194304;

/** The output buffer and its bounds (`safeEnd`: a write may start at or before it and use SLACK bytes);
 * read-only outside this module, for loops that keep them in locals (they change only in `grow`). */
// The initial values are made in calls marked pure (src/core/intrinsics.ts): the writer shares its
// chunk with the decoder, and a bundle of `deserialize` alone must not keep the writer's state.
export let target = /* @__PURE__ */ new Uint8Array(0);
let view = /* @__PURE__ */ intrinsic(() => new DataView(target.buffer));
/** The write position; read-only outside this module (`tell`, `patch`, `openByte` move it). */
export let pos = 0;
export let safeEnd = -1;

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

export function ensure(n: number): void {
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

/** Two bytes (the caller has room). */
export function put2(a: number, b: number): void {
  const t = target;
  t[pos] = a;
  t[pos + 1] = b;
  pos += 2;
}

export function putUint32(n: number): void {
  view.setUint32(pos, n, true);
  pos += 4;
}

export function putFloat64(n: number): void {
  view.setFloat64(pos, n, true);
  pos += 8;
}

/** For a loop that keeps the write position in a local: stores it back (before anything else writes). */
export function setPos(p: number): void {
  pos = p;
}

/** Makes room for the next SLACK bytes. */
export function room(): void {
  if (pos > safeEnd) grow(SLACK);
}

/** Overwrites the byte at `at` (before `pos`). */
export function patch(at: number, byte: number): void {
  target[at] = byte;
}

/** Moves the bytes after `at` up by one and writes `byte` at `at + 1` (the caller has room). */
export function insertByteAfter(at: number, byte: number): void {
  target.copyWithin(at + 2, at + 1, pos);
  pos++;
  target[at + 1] = byte;
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

/** Payloads at least this large may be left out of the writer's buffer (`writeLastBytes`). */
const TAIL_MIN = 16384;
/** The message's last bytes, not copied into the writer's buffer: `finishBuffer` appends them. */
let tail: Uint8Array | null = null;

/**
 * Like `writeBytes`, for the bytes that end the message: nothing is written after them and no code of
 * the caller's runs before the message is finished (a buffer that is the whole value, or the whole
 * value's view). A large payload is then copied once, into the result, instead of into the writer's
 * buffer first (growing it) and into the result again.
 */
export function writeLastBytes(bytes: Uint8Array): void {
  if (bytes.length < TAIL_MIN) {
    writeBytes(bytes);
    return;
  }
  ensure(SLACK);
  writePadding();
  tail = bytes;
}

// ---------------------------------------------------------------------------------------------------
// Buffer lifecycle (encode.ts)

/** Starts a message: the two header bytes, then values from `headerSize` on. */
export function startBuffer(magic: number, second: number, headerSize: number): void {
  if (target.length === 0) grow(INITIAL_SIZE);
  target[0] = magic;
  target[1] = second;
  pos = headerSize;
}

/** Sets bits in the header's second byte (the buffer may have grown since `startBuffer`). */
export function markHeader(bits: number): void {
  target[1] = target[1]! | bits;
}

/** Drops what a failed message wrote. */
export function abandonBuffer(): void {
  pos = 0;
  tail = null;
}

/**
 * Ends a message and returns its bytes: with `transient`, a view of the writer's own buffer, valid until
 * the next encode in this thread; otherwise a Uint8Array the caller owns over an ArrayBuffer of exactly
 * its bytes (transferable, and nothing else is in it).
 *
 * The owned result is a fresh buffer of the message's size filled by one `set`: one allocation of the
 * final size, with no bytes past the message. `TypedArray#slice` did the same job 1.3-5× slower on V8
 * 11 (a 270 KB message: 1.1 ms against 0.21 ms, each call, its allocation included), and handing the
 * writer's buffer itself over when mostly full left the next message a cold buffer to fill and gave the
 * caller up to a quarter of unused bytes after the message.
 */
export function finishBuffer(transient: boolean): Uint8Array {
  const last = tail;
  tail = null;
  // The transient view must be one piece of the writer's buffer: the tail is copied in after all.
  if (last !== null && transient) writeBytesAt(last);
  const end = pos;
  pos = 0;
  let out: Uint8Array;
  if (transient) {
    // The caller copies the bytes before the next encode: no copy here. A buffer past KEEP_LIMIT goes
    // with the view (the next call starts afresh).
    out = target.subarray(0, end);
  } else if (last === null) {
    out = new Uint8Array(end);
    out.set(end === target.length ? target : target.subarray(0, end));
  } else {
    // The message's bytes in the writer's buffer, then the tail's, each copied once.
    out = new Uint8Array(end + last.length);
    out.set(target.subarray(0, end));
    out.set(last, end);
  }
  if (target.length > KEEP_LIMIT) dropBuffer();
  // The owned result is held until the next call (see `lastResult`), transient views never.
  if (!transient) lastResult = out.length <= KEEP_LIMIT ? out : null;
  return out;
}

/**
 * The last owned result (up to KEEP_LIMIT bytes), referenced until the next message ends so that its
 * memory is not freed before then. Never written to or read: the caller owns it (it may transfer it).
 *
 * Why: a result's memory comes from the C allocator (malloc/calloc of Node's ArrayBuffer allocator) and
 * goes back when a garbage collection frees the result. A caller that drops each result before the next
 * call (serialize, send or decode, drop: a round trip) leaves every result dead when V8's sweeper frees
 * them, the one at the top of glibc's heap included, and glibc then gives the top of its heap back to
 * the system (a `brk` trim, each ~10 calls of 223 KB): the next results take a page fault per 4 KiB as
 * the copy below fills them. twitter.json round trip (Node 20, glibc, strace and
 * `process.resourceUsage`, load 11): 41-50 page faults and 330-440 µs of system time a call, CPU medians
 * 3.3-3.6 ms; with the previous result held 0.3 faults, 2.0-2.5 ms (bin12, BENCHMARKS.md). Holding it
 * keeps the most recent block in use at the top of the heap, so the freed ones below are reused
 * instead of trimmed. It costs at most one message's bytes beyond their
 * caller's use, until the next message; never any of the value's objects.
 */
let lastResult: Uint8Array | null = null;

/** Test hook: the byte length of the result held (0: none). */
export function heldBytes(): number {
  return lastResult === null ? 0 : lastResult.byteLength;
}

/** Copies bytes in at `pos` (padding already written). */
function writeBytesAt(bytes: Uint8Array): void {
  ensure(bytes.length);
  target.set(bytes, pos);
  pos += bytes.length;
}

function dropBuffer(): void {
  target = new Uint8Array(0);
  safeEnd = -1;
}

export interface SavedBuffer {
  target: Uint8Array<ArrayBuffer>;
  view: DataView<ArrayBuffer>;
  pos: number;
  safeEnd: number;
  tail: Uint8Array | null;
}

/** For a re-entrant serialize: sets the outer message's buffer aside and starts an empty one. */
export function saveBuffer(): SavedBuffer {
  const saved = { target, view, pos, safeEnd, tail };
  dropBuffer();
  pos = 0;
  tail = null;
  return saved;
}

export function restoreBuffer(saved: SavedBuffer): void {
  target = saved.target;
  view = saved.view;
  pos = saved.pos;
  safeEnd = saved.safeEnd;
  tail = saved.tail;
}

// ---------------------------------------------------------------------------------------------------
// Numbers

/** Writes a number (the caller has room: SLACK bytes). */
export function writeNumber(n: number): void {
  pos = numberAt(target, pos, n);
}

/**
 * Writes the bytes `writeNumber` writes for `n` into `t` (the writer's buffer) at `p`, where SLACK bytes
 * are free, and returns the position after them. It reads no module state but `view` (for the 4- and
 * 8-byte forms): a loop that keeps the buffer and its position in locals (encode.ts `writeArray`) calls
 * it without storing them back first. Every `t[pos++]` on the module's `pos` is a context load, a Smi
 * check, an add with overflow check and a store (V8 keeps module `let`s in a context): ~15 instructions
 * a byte, against ~3 for a local that TurboFan keeps in a register.
 */
export function numberAt(t: Uint8Array, p: number, n: number): number {
  const i = n | 0;
  // Small enough (bytecode) that TurboFan inlines it into a loop: the wide forms are a call of their own.
  if (i === n && i >= -16 && i < 0x10000 && (i !== 0 || 1 / n > 0)) {
    if (i < 0) t[p] = i & 0xff;
    else if (i < 0x80) t[p] = i;
    else if (i < 0x100) {
      t[p] = UINT8;
      t[++p] = i;
    } else {
      t[p] = UINT16;
      t[++p] = i;
      t[++p] = i >>> 8;
    }
    return p + 1;
  }
  return wideNumberAt(t, p, n);
}

/** `numberAt` for the other numbers: 32-bit integers, negatives below -16, doubles (-0 included). */
function wideNumberAt(t: Uint8Array, p: number, n: number): number {
  const i = n | 0;
  if (i === n && i !== 0) {
    if (i >= 0x10000) {
      t[p++] = UINT32;
      view.setUint32(p, i, true);
      return p + 4;
    }
    if (i >= -0x80) {
      t[p++] = INT8;
      t[p++] = i & 0xff;
      return p;
    }
    if (i >= -0x8000) {
      t[p++] = INT16;
      t[p++] = i;
      t[p++] = i >> 8;
      return p;
    }
    t[p++] = INT32;
    view.setInt32(p, i, true);
    return p + 4;
  }
  if (n >>> 0 === n && n !== 0) {
    t[p++] = UINT32;
    view.setUint32(p, n, true);
    return p + 4;
  }
  t[p++] = FLOAT64;
  view.setFloat64(p, n, true);
  return p + 8;
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
// Strings
const textEncoder = /* @__PURE__ */ new TextEncoder();

/** Writes `s` as UTF-8 into the Uint8Array it is called on, from `offset`, at most `max` bytes. */
type Utf8Write = (this: Uint8Array, s: string, offset: number, max: number) => number;

/**
 * Node's (and Bun's) `Buffer#utf8Write`, which takes any Uint8Array, else null. On Node it costs a
 * fraction of `TextEncoder#encodeInto` for the strings it is used on (64+ units): no subarray to
 * allocate and no `{ read, written }` result. It writes lone surrogates as U+FFFD: `writeString` checks
 * a string it wrote whose byte count is not its length (not all ASCII), and writes one with a lone
 * surrogate again, as UTF-16 (`encodeInto` only sees strings checked before).
 */
const hostUtf8Write: Utf8Write | null = /* @__PURE__ */ intrinsic(() => {
  const proto = (globalThis as { Buffer?: { prototype?: { utf8Write?: unknown } } }).Buffer?.prototype;
  const write = proto?.utf8Write;
  if (typeof write !== "function") return null;
  try {
    const probe = new Uint8Array(6);
    // It must accept a plain Uint8Array as `this`, honour the offset and encode as UTF-8.
    if ((write as Utf8Write).call(probe, "a\u00e9", 1, 5) === 3 && probe[1] === 0x61 && probe[2] === 0xc3) {
      return write as Utf8Write;
    }
  } catch {
    // A Buffer look-alike that rejects plain Uint8Arrays: keep encodeInto.
  }
  return null;
});
const isWellFormed = /* @__PURE__ */ intrinsic(
  () => (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed,
);
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function wellFormed(s: string): boolean {
  return isWellFormed !== undefined ? isWellFormed.call(s) : !LONE_SURROGATE.test(s);
}

/**
 * Strings shorter than this many UTF-16 units go through the inline loop, longer ones through the host
 * (`Buffer#utf8Write`) or `encodeInto`. The loop costs ~20 instructions a unit in TurboFan (charCodeAt
 * of a string of unknown representation, a checked store); the host call ~350 once (the API call, its
 * argument checks) and ~2 a unit: they meet near 20 units. Instructions per serialize (cachegrind,
 * bin10), with the bound at 64 -> 20: amazon_cellphones 9.11M -> 8.13M, twitter.json 11.87M -> 11.26M.
 */
const INLINE_STRING = 20;

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
  const max = n * 3;
  // Under 32 units the header is guessed one byte (FIXSTR), as the inline loop guesses it: the bytes are
  // those the inline loop writes (and a string of 32 bytes or more is moved up by one, as there).
  let headerSize = n < 32 ? 1 : max < 0x100 ? 2 : max < 0x10000 ? 3 : 5;
  let written: number;
  let start: number;
  if (hostUtf8Write !== null) {
    // Written first, checked after: `written === n` means every unit was ASCII (any other unit takes two
    // bytes or more), so the string is well-formed without the isWellFormed call (a builtin call per
    // string; URLs, titles and ids are mostly ASCII). Otherwise it is checked, and a string with a lone
    // surrogate (which utf8Write turned into U+FFFD) is written again over it, as UTF-16.
    ensure(max + 2 + headerSize);
    start = pos;
    written = hostUtf8Write.call(target, s, start + headerSize, max);
    if (written !== n && !wellFormed(s)) {
      writeUtf16(s);
      return;
    }
  } else {
    if (!wellFormed(s)) {
      writeUtf16(s);
      return;
    }
    ensure(max + 2 + headerSize);
    start = pos;
    written = textEncoder.encodeInto(s, target.subarray(start + headerSize)).written;
  }
  if (headerSize === 1) {
    if (written < 32) target[start] = FIXSTR | written;
    else {
      target.copyWithin(start + 2, start + 1, start + 1 + written);
      target[start] = STR8;
      target[start + 1] = written;
      headerSize = 2;
    }
  } else if (headerSize === 2) {
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
