/**
 * Strings for the decoder without a call into the runtime: short ASCII strings with one
 * `String.fromCharCode` call with explicit arguments per length (keys, ids, names), and UTF-8 strings
 * of up to UTF8_IN_JS bytes decoded in JavaScript.
 */

const fromCharCode = String.fromCharCode;

/**
 * Up to 16 bytes known to be ASCII: one fromCharCode call with explicit arguments per length.
 * Concatenating shorter pieces would allocate each piece and then copy them into the result (strings
 * under 13 characters are never ropes). Lengths past 8 are in a second function, so that this one
 * stays small enough for V8 to inline.
 */
export function shortAscii(b: Uint8Array, i: number, n: number): string {
  switch (n) {
    case 0:
      return "";
    case 1:
      return fromCharCode(b[i]!);
    case 2:
      return fromCharCode(b[i]!, b[i + 1]!);
    case 3:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!);
    case 4:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!);
    case 5:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!);
    case 6:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!);
    case 7:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!, b[i + 6]!);
    case 8:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!, b[i + 6]!, b[i + 7]!);
    default:
      return longerAscii(b, i, n);
  }
}

function longerAscii(b: Uint8Array, i: number, n: number): string {
  switch (n) {
    case 9:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
      );
    case 10:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
      );
    case 11:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
      );
    case 12:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
      );
    case 13:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
      );
    case 14:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
        b[i + 13]!,
      );
    case 15:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
        b[i + 13]!,
        b[i + 14]!,
      );
    case 16:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
        b[i + 13]!,
        b[i + 14]!,
        b[i + 15]!,
      );
    default:
      // Not reached: callers pass at most 16 bytes.
      return fromCharCode.apply(null, b.subarray(i, i + n) as unknown as number[]);
  }
}

/** Non-ASCII strings up to this many bytes are decoded by `utf8InJs` (at most this many code units). */
export const UTF8_IN_JS = 1024;

/**
 * Bytes `from` to `to` of `b` (at most UTF8_IN_JS) decoded from UTF-8, or null at the first byte that
 * is not well-formed UTF-8 (the caller then decodes the string with the runtime's decoder, which puts
 * U+FFFD where WHATWG says). On Node 20 this costs half of a `Buffer#utf8Slice` call up to ~64 bytes
 * and about as much up to 1 KB (twitter.json's 755 non-ASCII strings: 0.65×): the runtime's call is
 * ~100 ns before it decodes a byte, and its decoder is not faster per byte on non-ASCII text.
 */
export function utf8InJs(b: Uint8Array, from: number, to: number): string | null {
  // A fresh array filled by push stays packed SMI (a reused one, truncated and refilled, measured
  // slower); fromCharCode.apply takes it as is. At most UTF8_IN_JS arguments.
  const units: number[] = [];
  let i = from;
  while (i < to) {
    const x = b[i++]!;
    if (x < 0x80) {
      units.push(x);
    } else if (x >= 0xc2 && x < 0xe0) {
      if (i >= to) return null;
      const y = b[i]!;
      if ((y & 0xc0) !== 0x80) return null;
      i++;
      units.push(((x & 0x1f) << 6) | (y & 0x3f));
    } else if (x >= 0xe0 && x < 0xf0) {
      if (i + 1 >= to) return null;
      const y = b[i]!;
      const z = b[i + 1]!;
      // No overlong forms (E0 80..9F) and no surrogates (ED A0..BF).
      if ((y & 0xc0) !== 0x80 || (z & 0xc0) !== 0x80 || (x === 0xe0 && y < 0xa0) || (x === 0xed && y > 0x9f))
        return null;
      i += 2;
      units.push(((x & 0x0f) << 12) | ((y & 0x3f) << 6) | (z & 0x3f));
    } else if (x >= 0xf0 && x < 0xf5) {
      if (i + 2 >= to) return null;
      const y = b[i]!;
      const z = b[i + 1]!;
      const w = b[i + 2]!;
      // No overlong forms (F0 80..8F) and nothing past U+10FFFF (F4 90..BF).
      if (
        (y & 0xc0) !== 0x80 ||
        (z & 0xc0) !== 0x80 ||
        (w & 0xc0) !== 0x80 ||
        (x === 0xf0 && y < 0x90) ||
        (x === 0xf4 && y > 0x8f)
      )
        return null;
      i += 3;
      const cp = (((x & 0x07) << 18) | ((y & 0x3f) << 12) | ((z & 0x3f) << 6) | (w & 0x3f)) - 0x10000;
      units.push(0xd800 | (cp >> 10), 0xdc00 | (cp & 0x3ff));
    } else {
      return null;
    }
  }
  return fromCharCode.apply(null, units);
}
