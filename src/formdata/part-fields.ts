/**
 * What the multipart scanner (scanner.ts) reads out of a part's header lines: the Content-Disposition
 * (name, filename, filename*) and the Content-Type. The scanner assembles the lines, bounds them
 * (maxHeaderSize) and keeps them raw; this reads their meaning, one line at a time. One instance per
 * scanner, reset for every part.
 */

import { DecodeError } from "../core/errors.ts";
import { decodeExtValue, matchLower, TCHAR, unescapeName } from "./headers.ts";
import type { ResolvedOptions } from "./limits.ts";
import { canonicalType } from "./mime.ts";
import { decodeLatin1, decodeUtf8 } from "./utf8.ts";

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HT = 0x09;

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
/** What browsers, undici, curl and form-data all write (see fastDisposition). */
export const CD_PREFIX = ascii('Content-Disposition: form-data; name="');
export const FILENAME_MID = ascii('; filename="');
/** CD_PREFIX as little-endian 32-bit words (its last length%4 bytes are compared one by one). */
const CD_WORDS = new Uint32Array(CD_PREFIX.length >> 2);
for (let k = 0; k < CD_WORDS.length; k++) CD_WORDS[k] = new DataView(CD_PREFIX.buffer).getUint32(4 * k, true);

/** A malformed body, at absolute offset `offset`. */
export function malformed(detail: string, offset: number): DecodeError {
  return new DecodeError("ERR_MULTIPART", `malformed multipart/form-data body: ${detail}`, { offset });
}

export class PartFields {
  readonly #opts: ResolvedOptions;
  /** The `name` parameter ("" until read). */
  name = "";
  /** The `filename` parameter (or filename*, with that option), null when absent. */
  filename: string | null = null;
  #filenameStar: string | null = null;
  #hasName = false;
  #hasDisposition = false;
  #contentTypeRaw: string | null = null;

  constructor(options: ResolvedOptions) {
    this.#opts = options;
  }

  /** A new part begins. */
  reset(): void {
    this.name = "";
    this.filename = null;
    this.#filenameStar = null;
    this.#hasName = false;
    this.#hasDisposition = false;
    this.#contentTypeRaw = null;
  }

  /** `File.type` of the part: its Content-Type as Fetch extracts it, text/plain when absent. */
  partType(): string {
    return this.#contentTypeRaw === null ? "text/plain" : canonicalType(this.#contentTypeRaw);
  }

  /**
   * One non-empty header line arr[s, e) without its CRLF; `at` is the body offset errors report
   * (the line's CR).
   */
  header(arr: Uint8Array, s: number, e: number, at: number): void {
    let p = s;
    // Leading whitespace before the name is tolerated (WPT "whitespace before a header name").
    while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
    const ns = p;
    while (p < e && TCHAR[arr[p]!] === 1) p++;
    const ne = p;
    while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
    if (ne === ns) throw malformed("a header line without a valid name", at);
    if (p === e || arr[p] !== 0x3a) throw malformed("a header line without a colon after its name", at);
    p++;
    while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
    let ve = e;
    while (ve > p && (arr[ve - 1] === SP || arr[ve - 1] === HT)) ve--;
    const len = ne - ns;
    if (len === 19 && matchLower(arr, ns, "content-disposition")) {
      this.#disposition(arr, p, ve, at);
    } else if (len === 12 && matchLower(arr, ns, "content-type")) {
      // Several Content-Type lines combine as a header list does ("a, b"); the last valid wins.
      const value = decodeLatin1(arr, p, ve);
      this.#contentTypeRaw = this.#contentTypeRaw === null ? value : `${this.#contentTypeRaw}, ${value}`;
    }
  }

  /**
   * The line nearly every client sends, byte for byte: `Content-Disposition: form-data; name="N"`,
   * optionally followed by `; filename="F"`, then CRLF, all inside this chunk. Matched directly
   * instead of through the general header and parameter parsers (a third of the per-part cost for
   * small fields). Returns the position of the line's CR, or -1 when anything differs or the line
   * is longer than `budget` bytes with its CRLF, and the line is then parsed the general way, which
   * also reports any error. `view` is buf as a DataView, or null to compare byte by byte.
   */
  fastDisposition(buf: Uint8Array, pos: number, end: number, view: DataView | null, budget: number): number {
    if (this.#hasDisposition) return -1;
    const prefix = CD_PREFIX;
    let p = pos + prefix.length;
    if (p >= end) return -1;
    if (view === null) {
      for (let k = 0; k < prefix.length; k++) if (buf[pos + k] !== prefix[k]) return -1;
    } else {
      // 4 bytes per comparison: a quarter of the loads and bounds checks of a byte loop.
      const words = CD_WORDS;
      for (let k = 0; k < words.length; k++) if (view.getUint32(pos + 4 * k, true) !== words[k]) return -1;
      for (let k = words.length * 4; k < prefix.length; k++) if (buf[pos + k] !== prefix[k]) return -1;
    }
    const ns = p;
    for (; p < end; p++) {
      const c = buf[p]!;
      if (c === 0x22) break;
      if (c <= CR && (c === CR || c === LF || c === 0)) return -1;
    }
    if (p === end) return -1;
    const ne = p++;
    let fs = -1;
    let fe = -1;
    if (p < end && buf[p] === 0x3b) {
      const mid = FILENAME_MID;
      if (p + mid.length >= end) return -1;
      for (let k = 0; k < mid.length; k++) if (buf[p + k] !== mid[k]) return -1;
      p += mid.length;
      fs = p;
      for (; p < end; p++) {
        const c = buf[p]!;
        if (c === 0x22) break;
        if (c <= CR && (c === CR || c === LF || c === 0)) return -1;
      }
      if (p === end) return -1;
      fe = p++;
    }
    if (p + 1 >= end || buf[p] !== CR || buf[p + 1] !== LF) return -1;
    if (p - pos + 2 > budget) return -1;
    this.#hasDisposition = true;
    this.#hasName = true;
    const decode = this.#opts.decodeEscapes;
    const name = decodeUtf8(buf, ns, ne);
    this.name = decode ? unescapeName(name) : name;
    if (fs !== -1) {
      const filename = decodeUtf8(buf, fs, fe);
      this.filename = decode ? unescapeName(filename) : filename;
    }
    return p;
  }

  /**
   * `form-data; name="..."; filename="..."`. Quoted values run to the next `"`: the serializer
   * escapes `"` as %22 and never uses backslashes, so a backslash is an ordinary character.
   */
  #disposition(arr: Uint8Array, s: number, e: number, at: number): void {
    if (this.#hasDisposition) throw malformed("a part with two Content-Disposition headers", at);
    this.#hasDisposition = true;
    let p = s;
    while (p < e && TCHAR[arr[p]!] === 1) p++;
    if (!(p - s === 9 && matchLower(arr, s, "form-data"))) {
      throw malformed("a Content-Disposition that is not form-data", at);
    }
    for (;;) {
      while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
      if (p === e) return;
      if (arr[p] !== 0x3b) throw malformed("a Content-Disposition with junk where ';' belongs", at);
      p++;
      while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
      if (p === e) return;
      const ps = p;
      while (p < e && TCHAR[arr[p]!] === 1) p++;
      const pe = p;
      while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
      if (pe === ps || p === e || arr[p] !== 0x3d) {
        throw malformed("a Content-Disposition parameter without '=' and a value", at);
      }
      p++;
      while (p < e && (arr[p] === SP || arr[p] === HT)) p++;
      let vs: number;
      let ve: number;
      if (p < e && arr[p] === 0x22) {
        vs = p + 1;
        let q = vs;
        while (q < e && arr[q] !== 0x22) q++;
        if (q === e) throw malformed("an unterminated quoted string in Content-Disposition", at);
        ve = q;
        p = q + 1;
      } else {
        vs = p;
        while (p < e && arr[p] !== 0x3b) p++;
        ve = p;
        while (ve > vs && (arr[ve - 1] === SP || arr[ve - 1] === HT)) ve--;
      }
      const plen = pe - ps;
      if (plen === 4 && matchLower(arr, ps, "name")) {
        if (this.#hasName) throw malformed("a Content-Disposition with two name parameters", at);
        this.#hasName = true;
        const name = decodeUtf8(arr, vs, ve);
        this.name = this.#opts.decodeEscapes ? unescapeName(name) : name;
      } else if (plen === 8 && matchLower(arr, ps, "filename")) {
        if (this.filename !== null) throw malformed("a Content-Disposition with two filename parameters", at);
        const filename = decodeUtf8(arr, vs, ve);
        this.filename = this.#opts.decodeEscapes ? unescapeName(filename) : filename;
      } else if (plen === 9 && this.#opts.filenameStar && matchLower(arr, ps, "filename*")) {
        this.#filenameStar = decodeExtValue(decodeLatin1(arr, vs, ve));
      }
    }
  }

  /** The header block ended (at body offset `at`): a part must have a Content-Disposition with a name. */
  finish(at: number): void {
    if (!this.#hasDisposition) throw malformed("a part without a Content-Disposition header", at);
    if (!this.#hasName) throw malformed("a Content-Disposition without a name parameter", at);
    if (this.#filenameStar !== null) this.filename = this.#filenameStar;
  }
}
