/**
 * The binary reader's strings (decode.ts reads their headers and moves past their bytes): short ASCII
 * strings shared through read-ascii.ts's table, longer ASCII strings sliced from Latin-1 blocks of the
 * input, the rest through the host's UTF-8 decoder or TextDecoder. The per-call state here (the block,
 * the aligned words, whether the input is shared) is reset by `resetStrings` at the start of each
 * decode, dropped by `clearStrings` at its end, and saved and restored around a re-entered decode.
 */

import { type HostSlices, hostSlices } from "../core/host.ts";
import { end, src } from "./decode.ts";
import { INTERN_MAX, intern, internedAt, internSlot, sawOnce, shortAscii } from "./read-ascii.ts";
import { abByteLength } from "./read-buffers.ts";

/** Marked pure: a bundle of `serialize` alone (the same chunk) drops it. */
const textDecoder = /* @__PURE__ */ new TextDecoder();
/** Whether `src` is over a SharedArrayBuffer: -1 until a string needs to know (see decodeUtf8). */
let sharedInput = -1;
/** Strings up to this many bytes are tried as ASCII first (see shortAscii). */
const SHORT_ASCII = 16;

/**
 * The host's byte decoders (core/host.ts `hostSlices`), looked up on the first decode: Node and Bun have
 * them, browsers use TextDecoder.
 */
let host: HostSlices | null | undefined;

/** Input bytes `start` to `start + n` (within the input) as a string. */
export function stringAt(start: number, n: number): string {
  if (n <= INTERN_MAX) return readShort(start, n);
  if (n <= SHORT_ASCII) {
    // Short ASCII strings (keys, ids, names): one fromCharCode call with explicit arguments beats a call
    // into the runtime's UTF-8 decoder and allocates only the result.
    const b = src;
    let or = 0;
    for (let i = start; i < start + n; i++) or |= b[i]!;
    if (or < 0x80) return sliceShort ? fromBlock(start, n) : shortAscii(b, start, n);
    return decodeUtf8(start, start + n);
  }
  return readLonger(start, n);
}

/**
 * A string of up to INTERN_MAX bytes: packed into three words as they are checked for ASCII (the key
 * of the shared-string table, read-ascii.ts). A string the table keeps is made by fromCharCode, always
 * flat (a slice of the block is a copy on V8 under 13 characters, but may point into the block
 * elsewhere: the table must not keep blocks alive).
 */
function readShort(start: number, n: number): string {
  const b = src;
  const e = start + n;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  // Whole words in one expression each, the last bytes by the loop (little-endian, the rest zero): a
  // loop per word tested its bounds and its shift for every byte.
  let i = start;
  if (n >= 4) {
    w0 = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    i += 4;
    if (n >= 8) {
      w1 = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
      i += 4;
      for (let shift = 0; i < e; shift += 8) w2 |= b[i++]! << shift;
    } else {
      for (let shift = 0; i < e; shift += 8) w1 |= b[i++]! << shift;
    }
  } else {
    for (let shift = 0; i < e; shift += 8) w0 |= b[i++]! << shift;
  }
  if (((w0 | w1 | w2) & 0x80808080) !== 0) return decodeUtf8(start, e);
  const slot = internSlot(n, w0, w1, w2);
  const shared = internedAt(slot, n, w0, w1, w2);
  if (shared === null) {
    sawOnce(slot, n, w0, w1, w2);
    return sliceShort ? fromBlock(start, n) : shortAscii(b, start, n);
  }
  // Seen before: "" until its second sighting shares it (the empty string itself is always shared).
  return shared.length === n ? shared : intern(slot, shortAscii(b, start, n));
}

/**
 * Longer ASCII strings on a host with Buffer: one Latin-1 slice of up to BLOCK bytes of the input
 * serves every ASCII string inside it, each taken out with `String#slice` (on V8 a string of 13 or
 * more characters sliced from another is a small object pointing into it, not a copy). One call into
 * the host per string was 50–90% of the decode time of string-heavy messages (amazon_cellphones: 3,236
 * such strings, ~90 ns a call); msgpackr's native extractor batches its strings the same way. A
 * decoded string keeps at most its BLOCK-byte Latin-1 block alive, never the input (docs/security.md).
 */
const BLOCK = 2048;
/** The Latin-1 text of input bytes blockStart to blockEnd; empty between calls. */
let blockText = "";
let blockStart = 0;
let blockEnd = 0;

/**
 * Whether short ASCII strings are sliced from the block too: in a message of SLICE_SHORT_FROM bytes or
 * more, where a block serves many strings. A slice shorter than 13 characters is a copy, made by one
 * builtin call: cheaper than fromCharCode with up to 16 arguments ([100 strings] 2.4 -> 2.1 µs), but
 * not worth the host call in a message of a few strings ([10 objects] would gain 0.2 µs on 0.8).
 */
const SLICE_SHORT_FROM = 512;
let sliceShort = false;
/** Whether longer ASCII strings are sliced from the block: on a host with Buffer, except for shape keys. */
let sliceLong = false;

/**
 * Longer strings read so far in this message. The first is decoded on its own: a block pays off only
 * when it serves several strings, and a message with one longer string (a stream of records with an
 * email each) made a block for it, kept it alive from a slice (66 bytes more per kept record, 100,000
 * records) and made the aligned words for one ASCII check. From the second on, the block.
 */
let longer = 0;

function readLonger(start: number, n: number): string {
  if (sliceLong && n <= BLOCK && longer++ !== 0 && isAscii(start, start + n)) return fromBlock(start, n);
  return decodeUtf8(start, start + n);
}

/** ASCII input bytes `start` to `start + n` (at most BLOCK) as a slice of the block holding them. */
function fromBlock(start: number, n: number): string {
  if (start < blockStart || start + n > blockEnd) {
    blockStart = start;
    blockEnd = end - start > BLOCK ? start + BLOCK : end;
    blockText = host!.latin1.call(src, blockStart, blockEnd);
  }
  return blockText.slice(start - blockStart, start - blockStart + n);
}

/**
 * The input's 4-byte-aligned interior as an Int32Array (made on the first longer string of a message),
 * so the ASCII check ORs four bytes at a time: checking byte by byte cost more than the decoding it
 * guards (0.6 ns a byte). `wordBase` is the index in `src` of the first aligned byte.
 */
let words: Int32Array | null = null;
let wordBase = 0;

function makeWords(): Int32Array {
  const offset = src.byteOffset;
  const aligned = (offset + 3) & ~3;
  const count = (offset + src.length - aligned) >> 2;
  wordBase = aligned - offset;
  words = count > 0 ? new Int32Array(src.buffer, aligned, count) : new Int32Array(0);
  return words;
}

/** Whether input bytes `from` to `to` are all below 0x80. */
function isAscii(from: number, to: number): boolean {
  const b = src;
  const w = words ?? makeWords();
  let or = 0;
  let i = from;
  // Bytes up to the first aligned word, four words at a time, then words, then the last bytes. A
  // word lies inside `from`..`to` and so inside the input: `w` covers every aligned word of `src`.
  while (i < to && ((i - wordBase) & 3) !== 0) or |= b[i++]!;
  let k = (i - wordBase) >> 2;
  for (; i + 16 <= to; i += 16, k += 4) or |= w[k]! | w[k + 1]! | w[k + 2]! | w[k + 3]!;
  for (; i + 4 <= to; i += 4) or |= w[k++]!;
  while (i < to) or |= b[i++]!;
  return (or & 0x80808080) === 0;
}

function decodeUtf8(from: number, to: number): string {
  // Invalid UTF-8 decodes with U+FFFD replacements (the encoder never writes any).
  if (host !== null) return host!.utf8.call(src, from, to);
  // Browsers' TextDecoder rejects views over a SharedArrayBuffer (the channel's ring): decode a
  // non-shared copy of just this string's bytes. Whether the input is shared is found once per call.
  if (sharedInput === -1) sharedInput = isShared(src.buffer) ? 1 : 0;
  return textDecoder.decode(sharedInput === 1 ? src.slice(from, to) : src.subarray(from, to));
}

export function isShared(buffer: ArrayBufferLike): boolean {
  try {
    abByteLength.call(buffer);
    return false;
  } catch {
    return true;
  }
}

/** Starts a decode of `length` input bytes. */
export function resetStrings(length: number): void {
  if (host === undefined) host = hostSlices();
  resumeStrings(host === null ? 0 : length >= SLICE_SHORT_FROM ? 3 : 2);
}

/**
 * Starts a stream frame of `length` bytes inside a chunk whose decode has begun (decode.ts
 * beginFrames): the frame's own counts and flags only. The block, the aligned words and whether the
 * input is shared are the chunk's: a block ends at its frame's end, so a later frame's string never
 * lies inside an earlier frame's block (fromBlock makes its own).
 */
export function frameStrings(length: number): void {
  longer = 0;
  setSlicing(host === null ? 0 : length >= SLICE_SHORT_FROM ? 3 : 2);
}

/**
 * Drops the block, the words and what is known of the input, and sets the slicing flags (`slicing`):
 * at the start and end of a decode, and when a re-entered decode returns to its caller's input (whose
 * block is made again on its next string).
 */
export function resumeStrings(flags: number): void {
  sharedInput = -1;
  longer = 0;
  blockStart = blockEnd = 0;
  blockText = "";
  words = null;
  setSlicing(flags);
}

/** Whether short (1) and longer (2) ASCII strings are sliced from the block now. */
export function slicing(): number {
  return (sliceShort ? 1 : 0) | (sliceLong ? 2 : 0);
}

/**
 * Shape keys go into the process-wide shape cache (and a stream's table), which must hold strings of
 * their own: a slice would keep its whole Latin-1 block alive there. They are read with the flags at 0.
 */
export function setSlicing(flags: number): void {
  sliceShort = (flags & 1) !== 0;
  sliceLong = (flags & 2) !== 0;
}
