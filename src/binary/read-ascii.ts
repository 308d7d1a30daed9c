/**
 * Short ASCII strings for the decoder: one `String.fromCharCode` call with explicit arguments per
 * length, which beats a call into the runtime's UTF-8 decoder for keys, ids and names.
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
