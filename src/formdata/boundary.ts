/**
 * Boundaries: generating one for the encoder, checking a caller's, and reading the one a parser must
 * look for out of a Content-Type header.
 */

import { ArgumentError, DecodeError } from "../core/errors.ts";
import { extractMimeType } from "./mime.ts";
import { encodeUtf8 } from "./utf8.ts";

// ---------------------------------------------------------------------------------------------------
// generating

const PREFIX = "----structura";
const HEX_DIGITS = "0123456789abcdef";
/**
 * Character codes of the boundary being built: the prefix stays, the 32 hex digits are rewritten.
 * One `String.fromCharCode.apply` then makes a flat string; concatenating 16 pieces would make a
 * rope that every later charCodeAt has to flatten first.
 */
const CODES: number[] = Array.from(PREFIX, (c) => c.charCodeAt(0)).concat(new Array<number>(32).fill(0x30));

// crypto.getRandomValues costs ~4 µs per call on Node 20 whatever the size (its WebCrypto
// wrapper), more than encoding a small form. So a 4 KiB pool is filled at once and handed out 16
// bytes at a time: each boundary still gets fresh CSPRNG bytes, used once (uuid's v4 pools the
// same way), and each slice is wiped as it is taken.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolPos = POOL_BYTES;

/**
 * A fresh boundary: a fixed prefix and 32 hex digits carrying 128 bits from `crypto.getRandomValues`.
 * 45 characters from [0-9a-z-], inside the 27-70 range and alphabet the WPT serializer test checks.
 */
export function generateBoundary(): string {
  if (poolPos === POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolPos = 0;
  }
  const codes = CODES;
  let at = PREFIX.length;
  for (let i = poolPos; i < poolPos + 16; i++) {
    const b = pool[i]!;
    codes[at++] = HEX_DIGITS.charCodeAt(b >> 4);
    codes[at++] = HEX_DIGITS.charCodeAt(b & 15);
  }
  const out = String.fromCharCode.apply(null, codes);
  // Wipe what was handed out so that the pool never holds a boundary that is in use.
  pool.fill(0, poolPos, poolPos + 16);
  poolPos += 16;
  return out;
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

/** The byte pattern the scanner looks for, with its Horspool shift table. */
export interface Delimiter {
  /** The boundary as given in the Content-Type. */
  readonly boundary: string;
  /** CRLF "--" boundary, UTF-8 encoded. */
  readonly bytes: Uint8Array;
  /** Horspool shift for every byte value: how far the window may move when it ends on that byte. */
  readonly shift: Uint16Array;
  /** `bytes` as little-endian 32-bit words (the last bytes%4 bytes left out), to verify a match 4 at a time. */
  readonly words: Uint32Array;
}

/** Longest boundary accepted when parsing; RFC 2046 says 70, real clients stay far below 256. */
const MAX_PARSE_BOUNDARY = 256;

function compile(boundary: string): Delimiter {
  const encoded = encodeUtf8(boundary);
  if (encoded.length > MAX_PARSE_BOUNDARY) {
    throw new DecodeError("ERR_MULTIPART", `the boundary is longer than ${MAX_PARSE_BOUNDARY} bytes`);
  }
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
  const m = bytes.length;
  const shift = new Uint16Array(256).fill(m);
  for (let i = 0; i < m - 1; i++) shift[bytes[i]!] = m - 1 - i;
  const words = new Uint32Array(m >> 2);
  const view = new DataView(bytes.buffer);
  for (let w = 0; w < words.length; w++) words[w] = view.getUint32(4 * w, true);
  return { boundary, bytes, shift, words };
}

// One-entry caches: the same Content-Type string always yields the same delimiter, and clients that
// talk to one server repeatedly (and every benchmark) send the same one.
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
  const delimiter = compile(boundary);
  lastContentType = contentType;
  lastDelimiter = delimiter;
  return delimiter;
}
