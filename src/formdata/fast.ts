/**
 * The whole-body fast path of parseFormData: a small body already in memory, in the shape every
 * browser, undici, curl and form-data send, read in one straight pass.
 *
 * Why: for a form of a few fields the general parser's setup is most of the cost. Its Content-Type
 * reading copies the boundary into a fresh pattern array, the scanner (with its delimiter search and
 * header reader) is built per body, the first delimiter is compared against that copy, and every part
 * goes through the event loop of a state machine that exists for streamed input. Here the body's own
 * first line, `--boundary`, is the pattern: it is compared once against the Content-Type, and every
 * later delimiter is compared against those body bytes. Nothing is allocated but the strings and
 * Files the FormData holds.
 *
 * It handles exactly the common shape and answers null at the first byte that differs, that would
 * exceed a limit, or that would be an error; parseFormData then parses the body again with the
 * general scanner, which decides everything and raises every error. So this path never throws and
 * never decides a result the scanner would not: on the inputs it accepts, it appends the same
 * entries the scanner's path does (see the comments at each step for the scanner code it mirrors).
 * Its work before giving up is at most one pass over at most FAST_MAX bytes: a hostile body costs
 * at most twice what the general parser alone costs, and nothing here is retained.
 */

import { COMMON_TYPE, MAX_PARSE_BOUNDARY } from "./boundary.ts";
import { unescapeName } from "./headers.ts";
import type { ResolvedOptions } from "./limits.ts";
import { canonicalType } from "./mime.ts";
import { CD_PREFIX, FILENAME_MID } from "./part-fields.ts";
import { decodeLatin1, decodeUtf8 } from "./utf8.ts";

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const QUOTE = 0x22;

/**
 * Bodies up to this size take the fast path. Its delimiter search is a byte loop (no Horspool table,
 * no native search to set up), which suits the small forms it is for; larger bodies go to the scanner.
 */
const FAST_MAX = 16 * 1024;

const CT_PREFIX = Uint8Array.from("Content-Type: ", (c) => c.charCodeAt(0));

/**
 * Index of the first byte of `buf[from, end)` that is `"` (the value ends there), or -1 when the value
 * runs into CR, LF or NUL (fastDisposition then hands the line to the general header parser) or the end.
 */
function quotedEnd(buf: Uint8Array, from: number, end: number): number {
  for (let p = from; p < end; p++) {
    const c = buf[p]!;
    if (c === QUOTE) return p;
    if (c <= CR && (c === CR || c === LF || c === 0)) return -1;
  }
  return -1;
}

/** Whether buf[at, at + lit.length) equals `lit` (the caller checked there is room). */
function matches(buf: Uint8Array, at: number, lit: Uint8Array): boolean {
  for (let k = 0; k < lit.length; k++) if (buf[at + k] !== lit[k]) return false;
  return true;
}

/**
 * The body of the current part runs from `from` to the next CRLF followed by the body's first `n`
 * bytes (its `--boundary` line): the index of that CR, or -1 when there is none before `end`.
 * A delimiter can start only at a CR, and CR occurs in the pattern only at its start, so a compare
 * that begins at one CR stops before the next: the loop is linear in the bytes searched.
 */
function findDelimiter(buf: Uint8Array, from: number, end: number, n: number): number {
  const stop = end - n - 2;
  for (let s = from; s <= stop; s++) {
    if (buf[s] !== CR || buf[s + 1] !== LF) continue;
    let k = 0;
    const at = s + 2;
    while (k < n && buf[at + k] === buf[k]) k++;
    if (k === n) return s;
  }
  return -1;
}

/**
 * Parse `body` (whole, not shared) for the Content-Type `contentType` into a FormData, or answer null
 * when it is not the common shape or anything about it is for the general parser to decide.
 */
export function parseWholeFast(
  body: Uint8Array,
  contentType: string,
  opts: ResolvedOptions,
): FormData | null {
  const end = body.length;
  if (end > FAST_MAX || end > opts.maxTotalSize) return null;
  // The Content-Type every client sends, as the general path reads it first (boundary.ts); a quoted
  // boundary goes the general way. A regular expression, because V8 runs it as native code: about a
  // third of a charCodeAt loop's cost over the same characters.
  if (!COMMON_TYPE.test(contentType)) return null;
  // The first "=" is the boundary's (the expression leaves no other before it).
  const start = contentType.indexOf("=") + 1;
  if (contentType.charCodeAt(start) === QUOTE) return null;
  const len = contentType.length - start;
  // n: the length of the `--boundary` line at the body's start, which is the pattern from here on.
  const n = len + 2;
  if (len > MAX_PARSE_BOUNDARY || n + 2 > end || body[0] !== DASH || body[1] !== DASH) return null;
  // The scanner's #start: the body begins with "--" and the boundary (token characters are ASCII,
  // so a character code is its byte).
  for (let i = 0; i < len; i++) if (body[2 + i] !== contentType.charCodeAt(start + i)) return null;

  const form = new FormData();
  const decode = opts.decodeEscapes;
  const maxHeader = opts.maxHeaderSize;
  let parts = 0;
  let pos = n;
  for (;;) {
    // After a delimiter (the scanner's #afterDelimiter): CRLF and a part, or "--" and the end.
    if (pos + 1 >= end) return null;
    const c = body[pos];
    if (c === DASH && body[pos + 1] === DASH) break;
    if (c !== CR || body[pos + 1] !== LF) return null;
    pos += 2;
    if (++parts > opts.maxParts) return null;

    // Content-Disposition: form-data; name="N" [; filename="F"] CRLF (part-fields.ts fastDisposition).
    const lineStart = pos;
    if (pos + CD_PREFIX.length >= end || !matches(body, pos, CD_PREFIX)) return null;
    const ns = pos + CD_PREFIX.length;
    const ne = quotedEnd(body, ns, end);
    if (ne === -1) return null;
    pos = ne + 1;
    let fs = -1;
    let fe = -1;
    if (pos < end && body[pos] === 0x3b) {
      if (pos + FILENAME_MID.length >= end || !matches(body, pos, FILENAME_MID)) return null;
      fs = pos + FILENAME_MID.length;
      fe = quotedEnd(body, fs, end);
      if (fe === -1) return null;
      pos = fe + 1;
    }
    if (pos + 1 >= end || body[pos] !== CR || body[pos + 1] !== LF) return null;
    pos += 2;
    let headerBytes = pos - lineStart;

    // A file part may carry `Content-Type: type` (what browsers send); a field, nothing more.
    let type = "text/plain";
    if (fs !== -1 && pos < end && body[pos] !== CR) {
      if (pos + CT_PREFIX.length >= end || !matches(body, pos, CT_PREFIX)) return null;
      const vs = pos + CT_PREFIX.length;
      let ve = vs;
      // Visible ASCII only (no space, so nothing to trim): parameters, whitespace and anything the
      // general header parser might refuse (LF, NUL, control bytes) are its to read.
      while (ve < end && body[ve]! > 0x20 && body[ve]! < 0x7f) ve++;
      if (ve === vs || ve + 1 >= end || body[ve] !== CR || body[ve + 1] !== LF) return null;
      headerBytes += ve + 2 - pos;
      pos = ve + 2;
      type = canonicalType(decodeLatin1(body, vs, ve));
    }
    // The empty line that ends the headers; all of them within maxHeaderSize (the scanner's #headerLine).
    if (pos + 1 >= end || body[pos] !== CR || body[pos + 1] !== LF) return null;
    pos += 2;
    if (headerBytes + 2 > maxHeader) return null;

    // The part's body, up to the next delimiter, within its size limit (the scanner's #emit).
    const i = findDelimiter(body, pos, end, n);
    if (i === -1 || i - pos > (fs === -1 ? opts.maxFieldSize : opts.maxFileSize)) return null;
    const rawName = decodeUtf8(body, ns, ne);
    const name = decode ? unescapeName(rawName) : rawName;
    if (fs === -1) {
      form.append(name, decodeUtf8(body, pos, i));
    } else {
      const rawFilename = decodeUtf8(body, fs, fe);
      const filename = decode ? unescapeName(rawFilename) : rawFilename;
      // As BlobCollector.file() makes it; the File copies the bytes, so the body is not kept alive.
      const parts = (i > pos ? [body.subarray(pos, i)] : []) as BlobPart[];
      form.append(name, new File(parts, filename, { type, lastModified: 0 }));
    }
    pos = i + 2 + n;
  }
  // After the close delimiter's "--": the body's end, or CRLF and an epilogue within its limit (the
  // scanner's #close and #closed; padding and anything else are its to judge).
  pos += 2;
  if (pos === end) return form;
  if (body[pos] !== CR || pos + 1 >= end || body[pos + 1] !== LF) return null;
  return end - pos > opts.maxEpilogueSize ? null : form;
}
