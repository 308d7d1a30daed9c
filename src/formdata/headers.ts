/**
 * Header helpers of the multipart scanner (scanner.ts): HTTP token bytes, the parameter decodings of
 * Content-Disposition (RFC 5987 ext-values, the serializer's %22/%0D/%0A escapes) and the decoding
 * of the raw header lines kept for a part.
 */

import { decodeLatin1 } from "./utf8.ts";

const CR = 0x0d;
const SP = 0x20;
const HT = 0x09;

/** HTTP token bytes. 256 entries so a byte indexes it directly, without a range check first. */
export const TCHAR = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TCHAR[c.charCodeAt(0)] = 1;
}

/** Case-insensitive match of arr[at, at+lit.length) against a lower-case literal of letters, '-' and '*'. */
export function matchLower(arr: Uint8Array, at: number, lit: string): boolean {
  for (let i = 0; i < lit.length; i++) {
    // | 0x20 lower-cases ASCII letters and keeps '-' and '*'; callers only pass token bytes, none of
    // which turns into one of those characters otherwise.
    if ((arr[at + i]! | 0x20) !== lit.charCodeAt(i)) return false;
  }
  return true;
}

/** Hex digit value, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

const latin1Decoder = new TextDecoder("latin1");
const utf8Fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * RFC 5987 ext-value: charset "'" [language] "'" pct-encoded. UTF-8 and ISO-8859-1 are understood;
 * anything else, or a bad escape, gives null so that the plain `filename` is used instead.
 */
export function decodeExtValue(value: string): string | null {
  const a = value.indexOf("'");
  const b = a === -1 ? -1 : value.indexOf("'", a + 1);
  if (b === -1) return null;
  const charset = value.slice(0, a).toLowerCase();
  if (charset !== "utf-8" && charset !== "iso-8859-1") return null;
  const encoded = value.slice(b + 1);
  const bytes = new Uint8Array(encoded.length);
  let n = 0;
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded.charCodeAt(i);
    if (c === 0x25) {
      const h = hexValue(encoded.charCodeAt(i + 1));
      const l = hexValue(encoded.charCodeAt(i + 2));
      if (h < 0 || l < 0) return null;
      bytes[n++] = (h << 4) | l;
      i += 2;
    } else if (c > 0x20 && c < 0x7f && c !== 0x22) {
      bytes[n++] = c;
    } else {
      return null;
    }
  }
  try {
    return (charset === "utf-8" ? utf8Fatal : latin1Decoder).decode(bytes.subarray(0, n));
  } catch {
    return null;
  }
}

const ESCAPES = /%(?:22|0[dDaA])/g;

export function unescapeName(s: string): string {
  if (s.indexOf("%") === -1) return s;
  return s.replace(ESCAPES, (m) => (m === "%22" ? '"' : m[2] === "d" || m[2] === "D" ? "\r" : "\n"));
}

/**
 * The header lines kept for a part (raw, CRLF-terminated, already validated by the scanner) as
 * [lower-case name, value] pairs, values Latin-1 decoded as Fetch reads header bytes.
 */
export function parseRawHeaders(raw: Uint8Array, start: number, end: number): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let p = start;
  while (p < end) {
    let e = p;
    while (raw[e] !== CR) e++;
    let ns = p;
    while (raw[ns] === SP || raw[ns] === HT) ns++;
    let ne = ns;
    while (TCHAR[raw[ne]!] === 1) ne++;
    let vs = ne;
    while (raw[vs] !== 0x3a) vs++;
    vs++;
    while (vs < e && (raw[vs] === SP || raw[vs] === HT)) vs++;
    let ve = e;
    while (ve > vs && (raw[ve - 1] === SP || raw[ve - 1] === HT)) ve--;
    out.push([decodeLatin1(raw, ns, ne).toLowerCase(), decodeLatin1(raw, vs, ve)]);
    p = e + 2;
  }
  return out;
}
