/**
 * Byte <-> string helpers tuned for what multipart carries: many short ASCII names and values.
 *
 * TextDecoder/TextEncoder cross into native code on every call (~60 ns on Node 20 even for 3 bytes),
 * which dominates when a form has thousands of tiny fields. Short pure-ASCII runs are therefore
 * decoded in JS; anything longer, or with a byte >= 0x80, goes to the native decoder.
 */

// Names and values are decoded "without BOM": a leading U+FEFF is content, so a value survives an
// encode/parse round trip unchanged (undici strips it; see docs/formdata.md). Invalid sequences
// become U+FFFD, as the WPT "invalid UTF-8 in a name/value" cases expect.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/** Up to this many bytes a JS path beats a native call. */
const SHORT = 48;

/**
 * Up to 16 bytes as one `String.fromCharCode` call with explicit arguments: no intermediate strings
 * (a `+=` loop makes one per character and floods the GC) and no subarray object (which
 * `fromCharCode.apply` needs). Bytes must be < 0x100; callers check for ASCII where it matters.
 */
// biome-ignore format: one call per length reads best as a table
function fromBytes16(b: Uint8Array, s: number, n: number): string {
  switch (n) {
    case 0:
      return "";
    case 1:
      return String.fromCharCode(b[s]!);
    case 2:
      return String.fromCharCode(b[s]!, b[s + 1]!);
    case 3:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!);
    case 4:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!);
    case 5:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!);
    case 6:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!);
    case 7:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!);
    case 8:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!);
    case 9:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!);
    case 10:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!);
    case 11:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!);
    case 12:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!);
    case 13:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!);
    case 14:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!);
    case 15:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!, b[s + 14]!);
    default:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!, b[s + 14]!, b[s + 15]!);
  }
}

/** Bytes [start, end) with every byte < 0x100 as one code unit each, for short runs. */
function fromBytesShort(b: Uint8Array, start: number, end: number): string {
  let out = fromBytes16(b, start, Math.min(16, end - start));
  for (let s = start + 16; s < end; s += 16) out += fromBytes16(b, s, Math.min(16, end - s));
  return out;
}

/** UTF-8 decode `bytes[start, end)`. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT) {
    let i = start;
    while (i < end && bytes[i]! < 0x80) i++;
    if (i === end) return fromBytesShort(bytes, start, end);
  }
  return decoder.decode(bytes.subarray(start, end));
}

/** Isomorphic (Latin-1) decode `bytes[start, end)`: one code point per byte, as Fetch reads headers. */
export function decodeLatin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT) return fromBytesShort(bytes, start, end);
  let out = "";
  // Chunked so that String.fromCharCode.apply never sees more arguments than the stack allows.
  for (let s = start; s < end; s += 4096) {
    out += String.fromCharCode.apply(null, bytes.subarray(s, Math.min(end, s + 4096)) as unknown as number[]);
  }
  return out;
}

export function encodeUtf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Native UTF-8 encode into `target` at `pos`; returns the new position. Caller guarantees room. */
export function encodeUtf8Into(s: string, target: Uint8Array, pos: number): number {
  return pos + encoder.encodeInto(s, target.subarray(pos)).written;
}
