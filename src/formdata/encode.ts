/**
 * FormData -> multipart/form-data, byte-identical to the WHATWG "multipart/form-data chunk
 * serializer" (HTML's encoding algorithm as Fetch uses it), which is what `new Response(formData)`
 * produces in browsers, Node and Bun:
 *
 *   --B CRLF
 *   Content-Disposition: form-data; name="N" CRLF                  (string entry)
 *   CRLF
 *   V CRLF
 *   --B CRLF
 *   Content-Disposition: form-data; name="N"; filename="F" CRLF    (file entry)
 *   Content-Type: T CRLF
 *   CRLF
 *   <file bytes> CRLF
 *   --B-- CRLF
 *
 * - names and string values: lone CR and lone LF become CRLF; filenames and file bytes are untouched;
 * - names and filenames: LF -> %0A, CR -> %0D, " -> %22, and nothing else (not even %);
 * - T is the File's type, or application/octet-stream when empty; string parts have no Content-Type;
 * - everything is UTF-8; a lone surrogate becomes U+FFFD, as converting to a scalar value string does.
 *
 * Strings are written into one reusable scratch buffer (no per-piece allocation); a File is never
 * read here: it becomes a Blob segment of the body, so its bytes are not copied until the body is read.
 */

import { ArgumentError } from "../core/errors.ts";
import { createBody, type MultipartBody } from "./body.ts";
import {
  contentTypeFor,
  DASH_PREFIX_BYTES,
  GENERATED_LENGTH,
  generateBoundaryInto,
  validateBoundary,
} from "./boundary.ts";
import { encodeUtf8, encodeUtf8Into } from "./utf8.ts";

export interface EncodeOptions {
  /** Use this boundary instead of a random one (1-70 RFC 2046 bchars). Mostly for tests. */
  boundary?: string;
}

/** A FormData, or any iterable of [name, value] entries with string or Blob values. */
export type FormDataInput = FormData | Iterable<readonly [string, string | Blob]>;

export interface EncodedFormData {
  /** The header to send with the body: `multipart/form-data; boundary=...`. */
  readonly contentType: string;
  readonly boundary: string;
  /** Exact byte length of the body (the Content-Length). */
  readonly length: number;
  readonly body: MultipartBody;
}

// ---------------------------------------------------------------------------------------------------
// slab writer: module-level state, as msgpackr's writer, so the hot loops touch no object fields.
//
// Allocating an ArrayBuffer costs ~0.3 µs on Node 20 whatever its size, more than encoding a small
// form. So the encoder writes into a shared 64 KiB slab and each byte segment of a body is a view of
// it, handed out by bumping `pos`; a new slab is only taken when one fills up. Segments are never
// given to the caller as they are (MultipartBody copies on every read), so sharing is invisible.
// Encoding is synchronous and never calls user code while writing (entries from a user iterable are
// snapshotted first), so the state cannot be re-entered.

const SLAB = 64 * 1024;
let out = new Uint8Array(SLAB);
/** Write position in `out`. */
let pos = 0;
/** Start of the segment being written. */
let segStart = 0;

function ensure(extra: number): void {
  if (pos + extra <= out.length) return;
  // Move the segment in progress to a fresh slab; finished segments keep their views of the old one.
  const used = pos - segStart;
  let size = SLAB;
  while (size < (used + extra) * 2) size *= 2;
  const fresh = new Uint8Array(size);
  fresh.set(out.subarray(segStart, pos));
  out = fresh;
  segStart = 0;
  pos = used;
}

/** Close the current segment: a view of the slab. */
function takeSegment(): Uint8Array {
  // The constructor rather than `subarray`, which looks up the species constructor: ~35 vs ~23 ns.
  // `out` is always a whole ArrayBuffer of its own (byteOffset 0).
  const segment = new Uint8Array(out.buffer, segStart, pos - segStart);
  segStart = pos;
  return segment;
}

/**
 * Bytes written as they are: the fixed pieces of the format and the boundary lines, each an array of
 * exactly the length to write (a `subarray` per write cost ~30 ns, a twentieth of a small form's
 * encode). A loop over a Uint8Array, where a loop of charCodeAt over the strings those pieces used
 * to be spent 40% of a small form's encode: template strings are ropes, and charCodeAt dispatches on
 * the string's representation at every call.
 */
function writeBytes(b: Uint8Array): void {
  const n = b.length;
  ensure(n);
  if (n > 8) {
    // Native copy: half the time of a loop from 16 bytes on (Node 20), slower for a CRLF.
    out.set(b, pos);
    pos += n;
    return;
  }
  const o = out;
  let p = pos;
  for (let i = 0; i < n; i++) o[p++] = b[i]!;
  pos = p;
}

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
/** What follows "--" boundary to open a part, up to the name. */
const PART_HEAD: Uint8Array = ascii('\r\nContent-Disposition: form-data; name="');
const FIELD_HEAD_END = ascii('"\r\n\r\n');
const FILENAME = ascii('"; filename="');
const CONTENT_TYPE = ascii('"\r\nContent-Type: ');
const OCTET_STREAM = ascii("application/octet-stream");
const FILE_HEAD_END = ascii("\r\n\r\n");
const CLOSE_END = ascii("--\r\n");

/**
 * The boundary lines of the encode in progress (synchronous, so one scratch serves every call). Each
 * part opens with CRLF "--" boundary CRLF `Content-Disposition: form-data; name="`, where the first
 * CRLF ends the previous part's content: one write per part instead of three. The close delimiter
 * is the same line's first half, then "--" CRLF. Views of one array, so that each is an exact-length
 * array for writeBytes:
 *
 *   first   the opener without its leading CRLF (the first part)
 *   next    the whole opener (every later part)
 *   close   CRLF "--" boundary (before CLOSE_END)
 *   bare    "--" boundary (the close delimiter of a form without entries)
 *
 * For a generated boundary the array is laid out once at load (CRLF, "--", the fixed prefix, 32 hex
 * digits, PART_HEAD) and each encode rewrites only the 32 digits in place (generateBoundaryInto);
 * its four views are made once. A caller's boundary (at most 70 bytes) is copied into a second
 * array, whose views are made per call.
 */
interface Lines {
  readonly first: Uint8Array;
  readonly next: Uint8Array;
  readonly close: Uint8Array;
  readonly bare: Uint8Array;
}

function linesOf(buf: Uint8Array, boundaryLength: number): Lines {
  const closeEnd = 4 + boundaryLength;
  const end = closeEnd + PART_HEAD.length;
  return {
    first: buf.subarray(2, end),
    next: buf.subarray(0, end),
    close: buf.subarray(0, closeEnd),
    bare: buf.subarray(2, closeEnd),
  };
}

/** Where generateBoundaryInto writes the 32 hex digits in `generatedBuf`. */
const GENERATED_HEX_AT = 2 + DASH_PREFIX_BYTES.length;
const generatedBuf = new Uint8Array(4 + GENERATED_LENGTH + PART_HEAD.length);
generatedBuf[0] = 0x0d;
generatedBuf[1] = 0x0a;
generatedBuf.set(DASH_PREFIX_BYTES, 2);
generatedBuf.set(PART_HEAD, 4 + GENERATED_LENGTH);
const generatedLines: Lines = linesOf(generatedBuf, GENERATED_LENGTH);

const customBuf = new Uint8Array(4 + 70 + PART_HEAD.length);
customBuf[0] = 0x0d;
customBuf[1] = 0x0a;
customBuf[2] = 0x2d;
customBuf[3] = 0x2d;

function customLines(boundary: string): Lines {
  const n = boundary.length;
  for (let i = 0; i < n; i++) customBuf[i + 4] = boundary.charCodeAt(i);
  customBuf.set(PART_HEAD, 4 + n);
  return linesOf(customBuf, n);
}

/** ASCII-only strings: a Blob's type (the Blob constructor keeps only 0x20-0x7E). */
function writeAscii(s: string): void {
  ensure(s.length);
  const o = out;
  let p = pos;
  for (let i = 0; i < s.length; i++) o[p++] = s.charCodeAt(i);
  pos = p;
}

/** UTF-8 for the code unit `c` >= 0x80 at `s[i]`; returns the index of the last unit consumed. */
function writeNonAscii(s: string, i: number, c: number): number {
  const o = out;
  let p = pos;
  if (c < 0x800) {
    o[p++] = 0xc0 | (c >> 6);
    o[p++] = 0x80 | (c & 63);
  } else if (c >= 0xd800 && c <= 0xdfff) {
    const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      o[p++] = 0xf0 | (cp >> 18);
      o[p++] = 0x80 | ((cp >> 12) & 63);
      o[p++] = 0x80 | ((cp >> 6) & 63);
      o[p++] = 0x80 | (cp & 63);
      i++;
    } else {
      // Lone surrogate: U+FFFD, as USVString conversion and TextEncoder do.
      o[p++] = 0xef;
      o[p++] = 0xbf;
      o[p++] = 0xbd;
    }
  } else {
    o[p++] = 0xe0 | (c >> 12);
    o[p++] = 0x80 | ((c >> 6) & 63);
    o[p++] = 0x80 | (c & 63);
  }
  pos = p;
  return i;
}

/** An entry name: newline-normalize, then escape LF, CR and `"`. Worst case 6 bytes per unit (LF -> %0D%0A). */
function writeName(s: string): void {
  ensure(s.length * 6);
  const o = out;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      i = writeNonAscii(s, i, c);
    } else if (c === 0x22) {
      o[pos++] = 0x25;
      o[pos++] = 0x32;
      o[pos++] = 0x32;
    } else if (c === 0x0d || c === 0x0a) {
      // CR, LF and CRLF all normalize to CRLF, which is then escaped.
      if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) i++;
      o[pos++] = 0x25;
      o[pos++] = 0x30;
      o[pos++] = 0x44;
      o[pos++] = 0x25;
      o[pos++] = 0x30;
      o[pos++] = 0x41;
    } else {
      o[pos++] = c;
    }
  }
}

/** A filename: escape LF, CR and `"` one for one, without newline normalization. */
function writeFilename(s: string): void {
  ensure(s.length * 3);
  const o = out;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      i = writeNonAscii(s, i, c);
    } else if (c === 0x22 || c === 0x0d || c === 0x0a) {
      o[pos++] = 0x25;
      o[pos++] = c === 0x22 ? 0x32 : 0x30;
      o[pos++] = c === 0x22 ? 0x32 : c === 0x0d ? 0x44 : 0x41;
    } else {
      o[pos++] = c;
    }
  }
}

/** Values up to this many UTF-16 units go through the scratch buffer; longer ones get their own segment. */
const LONG_VALUE = 1 << 16;
/** From this length a value without CR/LF is handed to the native encoder in one call. */
const NATIVE_VALUE = 256;
const NEWLINES = /\r\n|\r|\n/g;

/** A string value: newline-normalize, no escaping. Worst case 3 bytes per unit. */
function writeValue(s: string): void {
  ensure(s.length * 3);
  if (s.length >= NATIVE_VALUE && s.indexOf("\r") === -1 && s.indexOf("\n") === -1) {
    pos = encodeUtf8Into(s, out, pos);
    return;
  }
  const o = out;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      i = writeNonAscii(s, i, c);
    } else if (c === 0x0d || c === 0x0a) {
      if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) i++;
      o[pos++] = 0x0d;
      o[pos++] = 0x0a;
    } else {
      o[pos++] = c;
    }
  }
}

// ---------------------------------------------------------------------------------------------------

function isBlob(value: unknown): value is Blob {
  return typeof Blob === "function" && value instanceof Blob;
}

/**
 * The filename of a file entry: the File's name, or "blob" for a plain Blob. Read as a property,
 * not through `instanceof File`: Bun's FormData hands back a Blob appended without a filename as an
 * object that passes `instanceof File` but has no `name`.
 */
function filenameOf(value: Blob): string {
  const name = (value as Partial<File>).name;
  return typeof name === "string" ? name : "blob";
}

/** Copy a user iterable's entries before writing, checking each one. */
function snapshot(form: Iterable<readonly [string, string | Blob]>): Array<readonly [string, string | Blob]> {
  const entries: Array<readonly [string, string | Blob]> = [];
  for (const entry of form) {
    if (entry === null || typeof entry !== "object")
      throw new ArgumentError("each entry must be a [name, value] pair");
    const name: unknown = entry[0];
    const value: unknown = entry[1];
    if (typeof name !== "string") throw new ArgumentError("an entry name must be a string");
    if (typeof value !== "string" && !isBlob(value)) {
      throw new ArgumentError(`the value of entry ${JSON.stringify(name)} must be a string or a Blob`);
    }
    entries.push([name, value]);
  }
  return entries;
}

/**
 * Serialize `form` as multipart/form-data.
 *
 * The entries are taken at call time (later changes to the FormData do not show up in the body).
 * Nothing is read from any Blob here; `body` reads them when it is consumed.
 */
export function encodeFormData(form: FormDataInput, options?: EncodeOptions): EncodedFormData {
  if (
    form === null ||
    typeof form !== "object" ||
    typeof (form as Iterable<unknown>)[Symbol.iterator] !== "function"
  ) {
    throw new ArgumentError("encodeFormData expects a FormData or an iterable of [name, value] entries");
  }
  // The caller's boundary is read (once) and checked before anything shared is touched.
  let custom: string | undefined;
  if (options !== undefined) {
    if (options === null || typeof options !== "object") throw new ArgumentError("options must be an object");
    const given = options.boundary;
    if (given !== undefined) custom = validateBoundary(given);
  }
  // A native FormData cannot run user code while it is iterated, so it is written directly;
  // anything else is copied and checked first.
  const entries: Iterable<readonly [string, string | Blob]> =
    typeof FormData === "function" && form instanceof FormData
      ? (form as unknown as Iterable<readonly [string, string | Blob]>)
      : snapshot(form as Iterable<readonly [string, string | Blob]>);
  // While writing, the only user code that can run is an entry's getters (`name`, `type`, `size` of
  // a File subclass, which FormData keeps as it is). One that encodes again would rewrite the
  // boundary line and move the slab under the outer encode: refused, as a typed error.
  if (writing) {
    throw new ArgumentError("encodeFormData was called from a getter of an entry of the form it is encoding");
  }
  writing = true;
  try {
    return write(entries, custom);
  } finally {
    writing = false;
  }
}

/** An encode is writing into the shared boundary line and slab (see encodeFormData). */
let writing = false;

function write(
  entries: Iterable<readonly [string, string | Blob]>,
  custom: string | undefined,
): EncodedFormData {
  let boundary: string;
  let lines = generatedLines;
  if (custom === undefined) {
    boundary = generateBoundaryInto(generatedBuf, GENERATED_HEX_AT);
  } else {
    boundary = custom;
    lines = customLines(custom);
  }
  const segments: Array<Uint8Array | Blob> = [];
  let length = 0;
  let blobBytes = 0;
  segStart = pos;
  let opener = lines.first;

  // Indexing the entry rather than destructuring it: destructuring runs the array iterator protocol.
  for (const entry of entries) {
    const name = entry[0];
    const value = entry[1];
    writeBytes(opener);
    opener = lines.next;
    writeName(name);
    if (typeof value === "string") {
      writeBytes(FIELD_HEAD_END);
      if (value.length > LONG_VALUE) {
        // A huge value gets its own exactly-sized segment instead of growing the slab.
        const flushed = takeSegment();
        segments.push(flushed);
        length += flushed.length;
        const bytes = encodeUtf8(
          value.indexOf("\r") === -1 && value.indexOf("\n") === -1 ? value : value.replace(NEWLINES, "\r\n"),
        );
        segments.push(bytes);
        length += bytes.length;
      } else {
        writeValue(value);
      }
    } else {
      // FormData turns every Blob into a File (named "blob" unless a filename was given); a plain
      // Blob can only come from a user iterable, and gets the same "blob" default here.
      writeBytes(FILENAME);
      writeFilename(filenameOf(value));
      writeBytes(CONTENT_TYPE);
      const type = value.type;
      if (type === "") writeBytes(OCTET_STREAM);
      else writeAscii(type);
      writeBytes(FILE_HEAD_END);
      const flushed = takeSegment();
      segments.push(flushed);
      length += flushed.length;
      // Read once: a getter that checks its receiver on Node.
      const size = value.size;
      if (size > 0) {
        segments.push(value);
        length += size;
        blobBytes += size;
      }
    }
    // The CRLF that ends this part's content is the first two bytes of the next line written.
  }
  if (opener === lines.first) {
    writeBytes(lines.bare);
  } else {
    writeBytes(lines.close);
  }
  writeBytes(CLOSE_END);
  const last = takeSegment();
  segments.push(last);
  length += last.length;
  // A slab grown for a huge form is not kept for the next one.
  if (out.length > SLAB) {
    out = new Uint8Array(SLAB);
    pos = segStart = 0;
  }

  const contentType = contentTypeFor(boundary, custom === undefined);
  return { contentType, boundary, length, body: createBody(segments, length, contentType, blobBytes) };
}
