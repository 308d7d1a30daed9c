/**
 * Boundaries: generating one for the encoder, checking a caller's, and reading the one a parser must
 * look for out of a Content-Type header.
 */

import { ArgumentError, DecodeError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import { extractMimeType } from "./mime.ts";
import { encodeUtf8 } from "./utf8.ts";

// ---------------------------------------------------------------------------------------------------
// generating
//
// The generator's tables are made in calls marked pure (src/core/intrinsics.ts): this module is also
// the parser's (its boundary checks), and a bundle of `parseFormData` alone must not keep (nor allocate)
// the encoder's 64 KiB pool.

const PREFIX = "----structura";
const HEX_DIGITS = "0123456789abcdef";
/** Character codes of the 32 hex digits of the boundary being built (see generateBoundaryInto). */
const HEX_CODES: number[] = /* @__PURE__ */ intrinsic(() => new Array<number>(32).fill(0x30));

// crypto.getRandomValues costs ~4 µs per call on Node 20 whatever the size (its WebCrypto
// wrapper), more than encoding a small form. So a pool is filled at once, as large as one call may
// fill (65,536 bytes), and handed out 16 bytes at a time: each boundary still gets fresh CSPRNG
// bytes, used once (uuid's v4 pools the same way), and each slice is wiped as it is taken. (A 4 KiB
// pool cost ~20 ns per boundary in refills, a tenth of making one.)
const POOL_BYTES = 65536;
const pool = /* @__PURE__ */ new Uint8Array(POOL_BYTES);
let poolPos = POOL_BYTES;

/**
 * A fresh boundary: a fixed prefix and 32 hex digits carrying 128 bits from `crypto.getRandomValues`.
 * 45 characters from [0-9a-z-], inside the 27-70 range and alphabet the WPT serializer test checks.
 */
export function generateBoundary(): string {
  return generateBoundaryInto(null, 0);
}

/** Length of every generated boundary. */
export const GENERATED_LENGTH = 45; // PREFIX.length + 32, a literal: the build inlines it

/** "--" and the fixed prefix of every generated boundary, as bytes: see generateBoundaryInto. */
export const DASH_PREFIX_BYTES: Uint8Array = /* @__PURE__ */ intrinsic(() =>
  Uint8Array.from(`--${PREFIX}`, (c) => c.charCodeAt(0)),
);
const HEX_BYTES = /* @__PURE__ */ intrinsic(() => Uint8Array.from(HEX_DIGITS, (c) => c.charCodeAt(0)));

/**
 * generateBoundary, also writing the 32 random hex digits to `target` at `at` (when given): the
 * encoder keeps "--" and the prefix (DASH_PREFIX_BYTES) in place in front of `at`, so a boundary
 * line costs it 32 byte stores, in the same loop that makes the string's codes (a second loop
 * copying them out of the array, and rewriting the constant prefix every call, were a third of
 * this function).
 */
export function generateBoundaryInto(target: Uint8Array | null, at: number): string {
  if (poolPos === POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolPos = 0;
  }
  const h = HEX_CODES;
  let c = 0;
  const stop = poolPos + 16;
  if (target === null) {
    for (let i = poolPos; i < stop; i++) {
      const b = pool[i]!;
      // Wiped as it is taken, so that the pool never holds a boundary that is in use (a `fill` call
      // for the 16 bytes is a call into C++ on Node 20: a tenth of a small form's encode).
      pool[i] = 0;
      h[c++] = HEX_BYTES[b >> 4]!;
      h[c++] = HEX_BYTES[b & 15]!;
    }
  } else {
    let t = at;
    for (let i = poolPos; i < stop; i++) {
      const b = pool[i]!;
      pool[i] = 0;
      const hi = HEX_BYTES[b >> 4]!;
      const lo = HEX_BYTES[b & 15]!;
      h[c++] = hi;
      h[c++] = lo;
      target[t++] = hi;
      target[t++] = lo;
    }
  }
  poolPos = stop;
  // PREFIX's codes, then the digits, as arguments written out: one flat string, made without the
  // array spread of `fromCharCode.apply` (~20% of this function); a `PREFIX + digits` concatenation
  // would be a rope that every later charCodeAt has to flatten first.
  // biome-ignore format: 45 arguments, one line per group
  return String.fromCharCode(
    45, 45, 45, 45, 115, 116, 114, 117, 99, 116, 117, 114, 97, // "----structura"
    h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!,
    h[8]!, h[9]!, h[10]!, h[11]!, h[12]!, h[13]!, h[14]!, h[15]!,
    h[16]!, h[17]!, h[18]!, h[19]!, h[20]!, h[21]!, h[22]!, h[23]!,
    h[24]!, h[25]!, h[26]!, h[27]!, h[28]!, h[29]!, h[30]!, h[31]!,
  );
}

// RFC 2046 bchars: DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
// and space (not as the last character).
const BCHARS = "'()+_,-./:=? ";

function isBchar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    BCHARS.includes(String.fromCharCode(c))
  );
}

function isTokenBoundary(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Of the bchars, only these are also HTTP token code points (safe unquoted in a header).
    if (
      !(
        (c >= 0x30 && c <= 0x39) ||
        (c >= 0x41 && c <= 0x5a) ||
        (c >= 0x61 && c <= 0x7a) ||
        "'+_-.".includes(s[i]!)
      )
    ) {
      return false;
    }
  }
  return true;
}

/** Refuse a caller-given boundary that RFC 2046 does not allow (1-70 bchars, no trailing space). */
export function validateBoundary(boundary: unknown): string {
  if (typeof boundary !== "string") throw new ArgumentError("options.boundary must be a string");
  if (boundary.length < 1 || boundary.length > 70) {
    throw new ArgumentError(`options.boundary must be 1 to 70 characters long, got ${boundary.length}`);
  }
  for (let i = 0; i < boundary.length; i++) {
    if (!isBchar(boundary.charCodeAt(i))) {
      throw new ArgumentError(
        `options.boundary contains ${JSON.stringify(boundary[i])}, which RFC 2046 does not allow`,
      );
    }
  }
  if (boundary.charCodeAt(boundary.length - 1) === 0x20) {
    throw new ArgumentError("options.boundary must not end with a space");
  }
  return boundary;
}

/** `multipart/form-data; boundary=...`, quoting the boundary when it is not an HTTP token. */
export function contentTypeFor(boundary: string, generated: boolean): string {
  return generated || isTokenBoundary(boundary)
    ? `multipart/form-data; boundary=${boundary}`
    : `multipart/form-data; boundary="${boundary}"`;
}

// ---------------------------------------------------------------------------------------------------
// parsing
//
// Every request carries a boundary of its own, so what is set up per body has to be cheap for a
// boundary never seen before: the common Content-Type shape is read without the general MIME parser,
// the pattern is a small typed array (V8 keeps typed arrays up to 64 bytes on the JS heap, with no
// backing store to allocate), and its 32-bit words and the Horspool table (256 entries, an off-heap
// allocation) are built only when a search first runs over a chunk large enough to use them.

/** Longest boundary accepted when parsing; RFC 2046 says 70, real clients stay far below 256. */
export const MAX_PARSE_BOUNDARY = 256;

/** The byte pattern the scanner looks for: CRLF "--" boundary. */
export class Delimiter {
  /** CRLF "--" boundary, UTF-8 encoded. */
  readonly bytes: Uint8Array;
  #words: Int32Array | null = null;
  #shift: Uint8Array | null = null;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /**
   * `bytes` as little-endian 32-bit words (the last bytes%4 bytes left out), to verify a match 4
   * bytes at a time. Int32 so that a word compares with DataView.getInt32 as a small integer. Built
   * on first use, like the shift table: a body of small fields compares bytes and never needs it.
   */
  words(): Int32Array {
    let words = this.#words;
    if (words === null) {
      const bytes = this.bytes;
      words = new Int32Array(bytes.length >> 2);
      for (let w = 0, at = 0; w < words.length; w++, at += 4) {
        words[w] = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
      }
      this.#words = words;
    }
    return words;
  }

  /**
   * Horspool shift for every byte value: how far the window may move when it ends on that byte.
   * Capped at 255 (a shorter shift is always safe), so one byte per entry. Built on first use and
   * then kept: it depends on the pattern only.
   */
  shift(): Uint8Array {
    let shift = this.#shift;
    if (shift === null) {
      const bytes = this.bytes;
      const m = bytes.length;
      shift = new Uint8Array(256).fill(Math.min(m, 255));
      for (let i = 0; i < m - 1; i++) {
        const d = m - 1 - i;
        shift[bytes[i]!] = Math.min(d, 255);
      }
      this.#shift = shift;
    }
    return shift;
  }
}

function tooLong(): DecodeError {
  return new DecodeError("ERR_MULTIPART", `the boundary is longer than ${MAX_PARSE_BOUNDARY} bytes`);
}

/** The delimiter for a boundary taken from the general MIME parser (any code points it lets through). */
function compile(boundary: string): Delimiter {
  const encoded = encodeUtf8(boundary);
  if (encoded.length > MAX_PARSE_BOUNDARY) throw tooLong();
  const bytes = new Uint8Array(encoded.length + 4);
  bytes[0] = 0x0d;
  bytes[1] = 0x0a;
  bytes[2] = 0x2d;
  bytes[3] = 0x2d;
  bytes.set(encoded, 4);
  for (let i = 4; i < bytes.length; i++) {
    // The scanner relies on CR occurring only at index 0 of the pattern (see scanner.ts, tail
    // matching); a header value cannot hold CR or LF anyway, so such a boundary is malformed.
    if (bytes[i] === 0x0d || bytes[i] === 0x0a) {
      throw new DecodeError("ERR_MULTIPART", "the boundary contains CR or LF");
    }
  }
  return new Delimiter(bytes);
}

/**
 * The Content-Type every client sends: `multipart/form-data; boundary=B`, B a token or a quoted string
 * without escapes, ending the header. On the inputs it matches, the full Fetch algorithm gives the
 * same boundary (one MIME type, no comma, no other parameter, no whitespace to trim). A regular
 * expression, because V8 compiles it to native code: a third of the cost of a charCodeAt loop.
 */
export const COMMON_TYPE =
  /^multipart\/form-data;[ \t]*boundary=(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"[\x20\x21\x23-\x5b\x5d-\x7e]+")$/i;

/** The delimiter for a Content-Type of the common shape (COMMON_TYPE), or null for any other. */
function fastDelimiter(contentType: string): Delimiter | null {
  if (!COMMON_TYPE.test(contentType)) return null;
  // The first "=" is the boundary's: nothing before it may hold one.
  let start = contentType.indexOf("=") + 1;
  let stop = contentType.length;
  if (contentType.charCodeAt(start) === 0x22) {
    start++;
    stop--;
  }
  const len = stop - start;
  if (len > MAX_PARSE_BOUNDARY) throw tooLong();
  // ASCII only: the code units are the UTF-8 bytes.
  const bytes = new Uint8Array(len + 4);
  bytes[0] = 0x0d;
  bytes[1] = 0x0a;
  bytes[2] = 0x2d;
  bytes[3] = 0x2d;
  for (let i = 0; i < len; i++) bytes[4 + i] = contentType.charCodeAt(start + i);
  return new Delimiter(bytes);
}

// One-entry cache: the same Content-Type string always yields the same delimiter, and clients that
// talk to one server repeatedly send the same one. Nothing depends on it: a miss costs about as
// much as reading the Content-Type (see fastDelimiter).
let lastContentType = "";
let lastDelimiter: Delimiter | null = null;

/**
 * The delimiter for a request's Content-Type: its MIME type (Fetch "extract a MIME type") must be
 * multipart/form-data with a non-empty `boundary` parameter (quoted allowed). Anything else is a
 * malformed request, reported as a `DecodeError`.
 */
export function delimiterFromContentType(contentType: unknown): Delimiter {
  if (typeof contentType !== "string") {
    throw new ArgumentError("contentType must be the request's Content-Type header value (a string)");
  }
  if (contentType === lastContentType && lastDelimiter !== null) return lastDelimiter;
  let delimiter = fastDelimiter(contentType);
  if (delimiter === null) {
    const mime = extractMimeType(contentType);
    if (mime === null || mime.type !== "multipart" || mime.subtype !== "form-data") {
      throw new DecodeError(
        "ERR_MULTIPART",
        `Content-Type ${JSON.stringify(contentType)} is not multipart/form-data`,
      );
    }
    const boundary = mime.parameters.get("boundary");
    if (boundary === undefined || boundary.length === 0) {
      throw new DecodeError("ERR_MULTIPART", "the Content-Type has no boundary parameter");
    }
    delimiter = compile(boundary);
  }
  lastContentType = contentType;
  lastDelimiter = delimiter;
  return delimiter;
}
