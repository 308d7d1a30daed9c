import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { FIXSTR, HEADER_SIZE, STR_UTF16, STR8, STR16, STR32 } from "../../src/binary/tags.ts";

// The writer's long strings (20 UTF-16 units and more, write-core.ts `writeString`): written as UTF-8 by
// the host first and checked after, by the byte count (all ASCII) or else isWellFormed; a string with a
// lone surrogate is then written again over those bytes, as UTF-16. These tests pin the bytes of each
// outcome and the round trip, at the lengths where the header changes.

const LENGTHS = [20, 21, 31, 32, 63, 64, 65, 85, 86, 200, 21_845, 21_846, 70_000];

/** `n` printable ASCII characters. */
function ascii(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x21 + ((i * 7) % 94));
  return s;
}

/** The value's bytes after the message header (the top-level value is the string itself). */
function body(s: string): Uint8Array {
  return serialize(s).subarray(HEADER_SIZE);
}

/** The header the writer uses for a well-formed string of `n` units (sized by n * 3 bytes at most; under
 * 32 bytes the one-byte FIXSTR, as for the short strings of the inline loop). */
function expectedHeader(n: number, bytes: number): number[] {
  const max = n * 3;
  if (bytes < 32) return [FIXSTR | bytes];
  if (max < 0x100) return [STR8, bytes];
  if (max < 0x10000) return [STR16, bytes & 0xff, bytes >>> 8];
  return [STR32, bytes & 0xff, (bytes >>> 8) & 0xff, (bytes >>> 16) & 0xff, bytes >>> 24];
}

describe("binary writer: long strings", () => {
  it("writes an ASCII string as its bytes after the header for its length", () => {
    for (const n of LENGTHS) {
      const s = ascii(n);
      const header = expectedHeader(n, n);
      const out = body(s);
      expect(Array.from(out.subarray(0, header.length))).toEqual(header);
      expect(Buffer.from(out.subarray(header.length)).toString("latin1")).toBe(s);
      expect(deserialize(serialize(s))).toBe(s);
    }
  });

  it("writes a well-formed non-ASCII string as UTF-8 (pairs included)", () => {
    for (const n of LENGTHS) {
      for (const extra of ["\u00e9", "\u65e5", "\ud83d\ude00"]) {
        for (const at of [0, n >> 1, n - extra.length]) {
          const s = ascii(at) + extra + ascii(n - at - extra.length);
          expect(s.length).toBe(n);
          const utf8 = new TextEncoder().encode(s);
          const header = expectedHeader(n, utf8.length);
          const out = body(s);
          expect(Array.from(out.subarray(0, header.length))).toEqual(header);
          expect(Buffer.compare(out.subarray(header.length), utf8)).toBe(0);
          expect(deserialize(serialize(s))).toBe(s);
        }
      }
    }
  });

  it("writes a string with a lone surrogate as UTF-16, not as U+FFFD", () => {
    for (const n of LENGTHS) {
      for (const lone of ["\ud800", "\udfff"]) {
        for (const at of [0, n >> 1, n - 1]) {
          const s = ascii(at) + lone + ascii(n - at - 1);
          const out = body(s);
          expect(out[0]).toBe(STR_UTF16);
          // The UTF-8 written first is overwritten: the message ends with the UTF-16 units.
          const units = new Uint8Array(2 * n);
          for (let i = 0; i < n; i++) {
            units[2 * i] = s.charCodeAt(i) & 0xff;
            units[2 * i + 1] = s.charCodeAt(i) >>> 8;
          }
          expect(Buffer.compare(out.subarray(out.length - 2 * n), units)).toBe(0);
          expect(deserialize(serialize(s))).toBe(s);
        }
      }
    }
  });

  it("writes the same bytes on both sides of the inline loop's bound (1 to 85 units, any content)", () => {
    // Reference: the format's string forms (docs/binary-format.md), written independently here.
    const reference = (str: string): number[] => {
      if (!str.isWellFormed()) {
        const out = [STR_UTF16, str.length];
        for (let i = 0; i < str.length; i++) out.push(str.charCodeAt(i) & 0xff, str.charCodeAt(i) >>> 8);
        return out;
      }
      const utf8 = Array.from(new TextEncoder().encode(str));
      if (utf8.length < 32) return [FIXSTR | utf8.length, ...utf8];
      return [STR8, utf8.length, ...utf8];
    };
    for (let n = 1; n <= 85; n++) {
      const cases = [
        ascii(n),
        "\u00e9".repeat(n),
        "\u65e5".repeat(n),
        `${ascii(n - 1)}\u00e9`,
        `\u00e9${ascii(n - 1)}`,
        `${ascii(n - 1)}\ud800`,
        `\udc00${ascii(n - 1)}`,
      ];
      if (n >= 2) cases.push(`${ascii(n - 2)}\ud83d\ude00`, `\ud83d\ude00${"\u65e5".repeat(n - 2)}`);
      for (const str of cases) {
        if (str.length < 64 || !str.isWellFormed() || 3 * str.length < 0x100) {
          expect(Array.from(body(str)), `${n} ${JSON.stringify(str)}`).toEqual(reference(str));
        }
        // Between other values too: the position after the string is right.
        const value = [str, 7, str, "x"];
        expect(deserialize(serialize(value))).toEqual(value);
      }
    }
  });

  it("keeps writing after a long string rewritten as UTF-16", () => {
    const s = `${ascii(100)}\udc00${ascii(100)}`;
    const value = [s, ascii(70), { after: s, n: 1 }, `${ascii(90)}\u00e9`];
    expect(deserialize(serialize(value))).toEqual(value);
  });
});
