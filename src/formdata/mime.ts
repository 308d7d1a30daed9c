/**
 * MIME types as the WHATWG MIME Sniffing and Fetch standards handle them: "parse a MIME type",
 * "serialize a MIME type" and Fetch's "extract a MIME type" (which splits a combined header value on
 * commas outside quoted strings and keeps the last valid type).
 *
 * The parser needs them twice: to find the `boundary` of the request's Content-Type, and to turn a
 * file part's Content-Type into `File.type` exactly as `Response.formData()` does (the WPT cases
 * "Content-Type is serialized as a MIME type", "... with multiple values, last one wins", ...).
 * Inputs are short header strings, so this is written for clarity, not speed; the hot path only
 * gets here when a part's Content-Type is not already in canonical form (see `canonicalType`).
 */

export interface MimeType {
  type: string;
  subtype: string;
  /** Lower-cased names, in first-seen order; a later duplicate is ignored, as the standard says. */
  parameters: Map<string, string>;
}

/** HTTP token code points: ! # $ % & ' * + - . ^ _ ` | ~ and ASCII alphanumerics. */
const TOKEN = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~") TOKEN[c.charCodeAt(0)] = 1;
for (let c = 0x30; c <= 0x39; c++) TOKEN[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) TOKEN[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) TOKEN[c] = 1;

function isTokenCode(c: number): boolean {
  return c < 128 && TOKEN[c] === 1;
}

function isToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (!isTokenCode(s.charCodeAt(i))) return false;
  return true;
}

/** HTTP quoted-string token code points: tab, 0x20-0x7E, 0x80-0xFF. */
function isQuotedStringSafe(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(c === 0x09 || (c >= 0x20 && c <= 0x7e) || (c >= 0x80 && c <= 0xff))) return false;
  }
  return true;
}

function isHttpWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function trimHttpWhitespace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isHttpWhitespace(s.charCodeAt(a))) a++;
  while (b > a && isHttpWhitespace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function trimTabOrSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 0x20 || s.charCodeAt(a) === 0x09)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 0x20 || s.charCodeAt(b - 1) === 0x09)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * Fetch's "collect an HTTP quoted string" starting at the `"` at `start`. Returns the value (with
 * backslash escapes resolved when `extract`) and the position after it.
 */
function collectQuoted(input: string, start: number, extract: boolean): [string, number] {
  let value = "";
  let p = start + 1;
  for (;;) {
    let q = p;
    while (q < input.length && input.charCodeAt(q) !== 0x22 && input.charCodeAt(q) !== 0x5c) q++;
    value += input.slice(p, q);
    p = q;
    if (p >= input.length) break;
    const quoteOrBackslash = input.charCodeAt(p);
    p++;
    if (quoteOrBackslash === 0x5c) {
      if (p >= input.length) {
        value += "\\";
        break;
      }
      value += input[p];
      p++;
    } else {
      break;
    }
  }
  return [extract ? value : input.slice(start, p), p];
}

/** MIME Sniffing "parse a MIME type"; null on failure. */
export function parseMimeType(input: string): MimeType | null {
  input = trimHttpWhitespace(input);
  let p = input.indexOf("/");
  if (p <= 0) return null;
  const type = input.slice(0, p);
  if (!isToken(type)) return null;
  p++;
  let semi = input.indexOf(";", p);
  if (semi === -1) semi = input.length;
  let subtype = input.slice(p, semi);
  // Only trailing whitespace is trimmed here: leading whitespace makes the subtype invalid.
  let e = subtype.length;
  while (e > 0 && isHttpWhitespace(subtype.charCodeAt(e - 1))) e--;
  subtype = subtype.slice(0, e);
  if (!isToken(subtype)) return null;
  const mime: MimeType = { type: type.toLowerCase(), subtype: subtype.toLowerCase(), parameters: new Map() };
  p = semi;
  while (p < input.length) {
    p++; // the ";"
    while (p < input.length && isHttpWhitespace(input.charCodeAt(p))) p++;
    let q = p;
    while (q < input.length && input.charCodeAt(q) !== 0x3b && input.charCodeAt(q) !== 0x3d) q++;
    const name = input.slice(p, q).toLowerCase();
    p = q;
    if (p >= input.length) break;
    if (input.charCodeAt(p) === 0x3b) continue;
    p++; // the "="
    if (p >= input.length) break;
    let value: string;
    if (input.charCodeAt(p) === 0x22) {
      const [v, after] = collectQuoted(input, p, true);
      value = v;
      p = after;
      while (p < input.length && input.charCodeAt(p) !== 0x3b) p++;
    } else {
      q = p;
      while (q < input.length && input.charCodeAt(q) !== 0x3b) q++;
      value = input.slice(p, q);
      p = q;
      let ve = value.length;
      while (ve > 0 && isHttpWhitespace(value.charCodeAt(ve - 1))) ve--;
      value = value.slice(0, ve);
      if (value.length === 0) continue;
    }
    if (isToken(name) && isQuotedStringSafe(value) && !mime.parameters.has(name)) {
      mime.parameters.set(name, value);
    }
  }
  return mime;
}

/** MIME Sniffing "serialize a MIME type". */
export function serializeMimeType(mime: MimeType): string {
  let out = `${mime.type}/${mime.subtype}`;
  for (const [name, value] of mime.parameters) {
    out += `;${name}=`;
    if (isToken(value)) {
      out += value;
    } else {
      let quoted = '"';
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c === 0x22 || c === 0x5c) quoted += "\\";
        quoted += value[i];
      }
      out += `${quoted}"`;
    }
  }
  return out;
}

/** Fetch "getting, decoding, and splitting" applied to one already-combined header value. */
function splitHeaderValue(input: string): string[] {
  const values: string[] = [];
  let p = 0;
  let temporary = "";
  for (;;) {
    let q = p;
    while (q < input.length && input.charCodeAt(q) !== 0x22 && input.charCodeAt(q) !== 0x2c) q++;
    temporary += input.slice(p, q);
    p = q;
    if (p < input.length) {
      if (input.charCodeAt(p) === 0x22) {
        const [quoted, after] = collectQuoted(input, p, false);
        temporary += quoted;
        p = after;
        if (p < input.length) continue;
      } else {
        p++; // the ","
      }
    }
    values.push(trimTabOrSpace(temporary));
    temporary = "";
    if (p >= input.length) return values;
  }
}

/**
 * Fetch "extract a MIME type" over a combined header value (several headers joined with ", ").
 * Returns null on failure. The charset bookkeeping mirrors the standard: a later value with the same
 * essence and no charset inherits the earlier charset.
 */
export function extractMimeType(combined: string): MimeType | null {
  let charset: string | null = null;
  let essence: string | null = null;
  let mime: MimeType | null = null;
  for (const value of splitHeaderValue(combined)) {
    const temporary = parseMimeType(value);
    if (temporary === null || (temporary.type === "*" && temporary.subtype === "*")) continue;
    mime = temporary;
    const e = `${mime.type}/${mime.subtype}`;
    if (e !== essence) {
      charset = mime.parameters.get("charset") ?? null;
      essence = e;
    } else if (!mime.parameters.has("charset") && charset !== null) {
      mime.parameters.set("charset", charset);
    }
  }
  return mime;
}

/**
 * `File.type` for a part whose Content-Type header(s) combined to `raw`: the serialized extracted MIME
 * type as a File stores it, or "" when none is valid (WPT: "Content-Type that is not a MIME type is ignored").
 *
 * Fast path: almost every part carries a plain lower-case `type/subtype` (what browsers send), which
 * already is its own serialization, so the general algorithm is skipped.
 */
export function canonicalType(raw: string): string {
  let slash = -1;
  let plain = raw.length > 0;
  for (let i = 0; i < raw.length && plain; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x2f) {
      if (slash !== -1) plain = false;
      slash = i;
    } else if (!isTokenCode(c) || (c >= 0x41 && c <= 0x5a)) {
      plain = false;
    }
  }
  if (plain && slash > 0 && slash < raw.length - 1) return raw === "*/*" ? "" : raw;
  const mime = extractMimeType(raw);
  return mime === null ? "" : blobType(serializeMimeType(mime));
}

/**
 * What the File constructor makes of a type: "" when any character is outside U+0020-U+007E, else
 * lower-cased. Applied here so that a streamed part's `type` equals the `File.type` parseFormData
 * produces for it (e.g. `charset=UTF-8` becomes `charset=utf-8`).
 */
function blobType(type: string): string {
  for (let i = 0; i < type.length; i++) {
    const c = type.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return "";
  }
  return type.toLowerCase();
}
