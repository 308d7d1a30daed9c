/**
 * The delimiter search of the multipart scanner (scanner.ts): Horspool over the chunk the scanner is
 * reading, with the match verified four bytes at a time. One instance per scanner; `chunk()` is told
 * of every new input chunk, and every search runs over that chunk.
 */

import type { Delimiter } from "./boundary.ts";

const CR = 0x0d;
const LF = 0x0a;
const EMPTY = new Uint8Array(0);
const EMPTY_WORDS = new Int32Array(0);

/** find checks the windows starting in its first SHORT bytes one by one, without the shift table. */
const SHORT = 64;
/**
 * The runtime's native byte search, where it has one: `Buffer.prototype.indexOf` (Node, Bun) runs
 * memchr, which skips text without CR (LF-only files, most text uploaded from Unix and macOS) at
 * memory speed, twice as fast as any JS loop. Taken once, at load; null elsewhere (Deno, browsers),
 * where the JS search does all the work and gives the same results.
 */
const nativeIndexOf: ((this: Uint8Array, value: number, byteOffset: number) => number) | null = (() => {
  const B = (globalThis as { Buffer?: { prototype?: { indexOf?: unknown } } }).Buffer;
  const indexOf = B?.prototype?.indexOf;
  if (typeof indexOf !== "function") return null;
  try {
    // It must accept a plain Uint8Array as `this` and find a byte by value.
    const probe = new Uint8Array([1, CR, 2]);
    return (indexOf as (this: Uint8Array, v: number, o: number) => number).call(probe, CR, 0) === 1
      ? (indexOf as (this: Uint8Array, v: number, o: number) => number)
      : null;
  } catch {
    return null;
  }
})();
/** The native CR search is used for ranges of at least this many bytes (a call costs ~0.1 µs). */
const NATIVE_MIN = 4096;
/**
 * A CR closer than this to where the native search started means CRs are frequent here (CRLF
 * text, binary data: one in 256 bytes): stopping at each would cost a call per CR, so the rest of
 * the range goes to Horspool, which skips over them.
 */
const CR_DENSE = 2048;
/** Chunks shorter than this are compared byte by byte, without a DataView (see wordView). */
const WORDS_MIN = 1024;
/** From this many bytes, the delimiter search runs four cursors at once (see find). */
const MULTI_CURSOR = 4096;
/** Longest range one four-cursor pass covers (see find); a 64 KiB network chunk is one block. */
const FIND_BLOCK = 64 * 1024;
/** find looks this far with one cursor before it starts four. */
const PROBE = 1024;

export class DelimiterSearch {
  readonly #delimiter: Delimiter;
  readonly #pat: Uint8Array;
  readonly #m: number;
  /** The delimiter's Horspool table, fetched on the first search that gets past SHORT bytes. */
  #shift: Uint8Array;
  /** The delimiter's words, fetched with the DataView (wordView). */
  #words: Int32Array;
  #buf: Uint8Array = EMPTY;
  /**
   * The same bytes as #buf, for comparing 4 bytes per load (unaligned little-endian reads). Made on
   * first use (view()): a chunk of file bytes seldom needs it, and a DataView per 64 KiB chunk
   * was a measurable share of a large upload's per-chunk cost.
   */
  #view: DataView | null = null;

  constructor(delimiter: Delimiter) {
    this.#delimiter = delimiter;
    this.#pat = delimiter.bytes;
    this.#m = delimiter.bytes.length;
    this.#shift = EMPTY;
    this.#words = EMPTY_WORDS;
  }

  /** The scanner moved on to `buf`: later searches (and view()) read it. */
  chunk(buf: Uint8Array): void {
    this.#buf = buf;
    this.#view = null;
  }

  /**
   * The current chunk as a DataView, made on first use (see #view); null for a chunk shorter than
   * WORDS_MIN, where comparing byte by byte costs less than making the DataView (~70 ns on Node 20,
   * a tenth of a small form's parse).
   */
  wordView(): DataView | null {
    let view = this.#view;
    if (view === null) {
      const buf = this.#buf;
      if (buf.length < WORDS_MIN) return null;
      view = this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      if (this.#words === EMPTY_WORDS) this.#words = this.#delimiter.words();
    }
    return view;
  }

  /** Whether the delimiter starts at buf[start] (its last byte already matched): words, then bytes. */
  #matchesAt(buf: Uint8Array, start: number): boolean {
    // Every delimiter starts with CRLF: two byte loads reject nearly every candidate in file bytes
    // without touching the DataView.
    if (buf[start] !== CR || buf[start + 1] !== LF) return false;
    const pat = this.#pat;
    // The last byte matched already.
    const last = this.#m - 1;
    const view = this.wordView();
    if (view === null) {
      for (let j = 2; j < last; j++) if (buf[start + j] !== pat[j]) return false;
      return true;
    }
    const words = this.#words;
    for (let w = 0; w < words.length; w++) if (view.getInt32(start + 4 * w, true) !== words[w]) return false;
    // The words may already cover the last byte (length divisible by 4), which matched anyway.
    for (let j = words.length * 4; j < last; j++) if (buf[start + j] !== pat[j]) return false;
    return true;
  }

  /** Windows starting in [from, limit - m + 1), checked one by one from their first byte; index or -1. */
  #findShort(buf: Uint8Array, from: number, limit: number): number {
    const last = this.#m - 1;
    const lastByte = this.#pat[last]!;
    const stop = limit - last;
    for (let s = from; s < stop; s++) {
      if (buf[s] === CR && buf[s + last] === lastByte && this.#matchesAt(buf, s)) return s;
    }
    return -1;
  }

  /** Horspool search over windows starting in [from, limit - m + 1), one cursor; index or -1. */
  #find1(buf: Uint8Array, from: number, limit: number): number {
    const shift = this.#shift;
    const last = this.#m - 1;
    const lastByte = this.#pat[last]!;
    let i = from + last;
    while (i < limit) {
      const c = buf[i]!;
      if (c === lastByte && this.#matchesAt(buf, i - last)) return i - last;
      i += shift[c]!;
    }
    return -1;
  }

  /**
   * Horspool search for the delimiter in buf[from, end); index or -1.
   *
   * Each Horspool step loads the byte that decides the next step, so one cursor is a chain of
   * dependent loads and, on data that is not in cache (a large upload), waits on memory at every
   * step. Four cursors over the four quarters of the range advance in the same loop: four
   * independent chains, whose loads the CPU overlaps. On 100 MB of random bytes this is 2.3× faster
   * than one cursor (9.6 vs 22 ms), which brings a JS search to what native memmem reaches. The
   * earliest match still wins: a later quarter's match is kept until the earlier quarters are done.
   */
  find(buf: Uint8Array, from: number, end: number): number {
    // Most searches end within a few bytes (a form field's value): those look for the CR that starts
    // every delimiter, byte by byte, and never need the shift table, which a body of small fields
    // then does not pay for.
    const shortEnd = from + SHORT + this.#m - 1;
    if (shortEnd >= end) return this.#findShort(buf, from, end);
    const j = this.#findShort(buf, from, shortEnd);
    if (j !== -1) return j;
    from += SHORT;
    if (nativeIndexOf !== null && end - from >= NATIVE_MIN) {
      // Where CRs are rare, jump from one to the next natively: a delimiter can only start at one.
      const last = this.#m - 1;
      const lastByte = this.#pat[last]!;
      for (;;) {
        const i = nativeIndexOf.call(buf, CR, from);
        // No CR, or none with room for a whole delimiter before `end`: no match in range.
        if (i === -1 || i + last >= end) return -1;
        if (buf[i + last] === lastByte && this.#matchesAt(buf, i)) return i;
        const dense = i - from < CR_DENSE;
        from = i + 1;
        if (dense) break;
      }
    }
    if (this.#shift === EMPTY) this.#shift = this.#delimiter.shift();
    if (end - from < MULTI_CURSOR) return this.#find1(buf, from, end);
    // Ranges overlap by m - 1 bytes so that every window start is covered once.
    const overlap = this.#m - 1;
    // The parts of a form are mostly small: one cursor over the first bytes finds their end without
    // setting up four cursors whose other three scan far-away bytes (~4% of a small field's cost).
    const probeEnd = from + PROBE + overlap;
    const i = this.#find1(buf, from, Math.min(probeEnd, end));
    if (i !== -1 || probeEnd >= end) return i;
    // Then blocks: a body handed over whole (a Uint8Array, a Blob window) would otherwise be split
    // in quarters that each stream through megabytes, and a match in a later quarter would leave
    // the rest of the earlier ones to a single cursor.
    for (let from2 = from + PROBE; from2 < end; from2 += FIND_BLOCK) {
      const end2 = Math.min(end, from2 + FIND_BLOCK + overlap);
      const i = end2 - from2 < MULTI_CURSOR ? this.#find1(buf, from2, end2) : this.#find4(buf, from2, end2);
      if (i !== -1) return i;
      if (end2 === end) break;
    }
    return -1;
  }

  /** #find over one block of at least MULTI_CURSOR bytes, with four cursors. */
  #find4(buf: Uint8Array, from: number, end: number): number {
    const shift = this.#shift;
    const last = this.#m - 1;
    const lastByte = this.#pat[last]!;
    const q = (end - from) >> 2;
    // Cursor k covers the windows starting in [sk, sk+1); the last one those up to end - m.
    const s1 = from + q;
    const s2 = s1 + q;
    const s3 = s2 + q;
    let a = from + last;
    let b = s1 + last;
    let c = s2 + last;
    let d = s3 + last;
    const la = s1 + last;
    const lb = s2 + last;
    const lc = s3 + last;
    let found = -1;
    let quarter = 0;
    while (a < la && b < lb && c < lc && d < end) {
      const ca = buf[a]!;
      const cb = buf[b]!;
      const cc = buf[c]!;
      const cd = buf[d]!;
      if (ca === lastByte && this.#matchesAt(buf, a - last)) return a - last;
      if (cb === lastByte && this.#matchesAt(buf, b - last)) {
        found = b - last;
        quarter = 1;
        break;
      }
      if (cc === lastByte && this.#matchesAt(buf, c - last)) {
        found = c - last;
        quarter = 2;
        break;
      }
      if (cd === lastByte && this.#matchesAt(buf, d - last)) {
        found = d - last;
        quarter = 3;
        break;
      }
      a += shift[ca]!;
      b += shift[cb]!;
      c += shift[cc]!;
      d += shift[cd]!;
    }
    // Finish the quarters in order from where their cursors stopped, up to the one that matched.
    let r = this.#find1(buf, a - last, la);
    if (r !== -1) return r;
    if (quarter === 1) return found;
    r = this.#find1(buf, b - last, lb);
    if (r !== -1) return r;
    if (quarter === 2) return found;
    r = this.#find1(buf, c - last, lc);
    if (r !== -1) return r;
    if (quarter === 3) return found;
    return this.#find1(buf, d - last, end);
  }
}
