import { describe, expect, it } from "vitest";
import { defineType, deserialize, serialize, TypeRegistry } from "../../src/binary/index.ts";
import { INTERN_MAX, internSlot } from "../../src/binary/read-ascii.ts";
import { DecodeError } from "../../src/core/errors.ts";

// The decoder reads strings longer than 16 bytes through a shared Latin-1 block where the host has
// Buffer (read-strings.ts `readLonger`: each message's first one is decoded on its own; in messages of
// 512 bytes or more, shorter ones too), after an ASCII check that reads the input four bytes at a time
// from its aligned interior. These tests place strings across block edges, word edges and input
// offsets, with non-ASCII bytes right next to them.

/** A small deterministic generator (xorshift32) in [0, 1). */
function prng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const ascii = (n: number, seed: number) => {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x20 + ((i * 31 + seed * 7) % 95));
  return s;
};

/** `bytes` copied into a larger buffer at `offset`, with bytes >= 0x80 all around it. */
function placed(bytes: Uint8Array, offset: number): Uint8Array {
  const buffer = new ArrayBuffer(bytes.length + offset + 7);
  new Uint8Array(buffer).fill(0xff);
  const view = new Uint8Array(buffer, offset, bytes.length);
  view.set(bytes);
  return view;
}

describe("binary: longer strings", () => {
  it("reads ASCII strings of every length from 1 to 300 and past the block size, at every input offset", () => {
    const value: string[] = [];
    for (let n = 1; n <= 300; n++) value.push(ascii(n, n));
    value.push(ascii(2047, 1), ascii(2048, 2), ascii(2049, 3), ascii(5000, 4), ascii(70_000, 5));
    const bytes = serialize(value);
    for (let offset = 0; offset < 8; offset++) expect(deserialize(placed(bytes, offset))).toEqual(value);
  });

  it("reads a message's first longer string on its own and the later ones from a block", () => {
    // A small message with one longer string (a record with an email) decodes it alone; a second
    // longer string starts the block. ASCII or not, first or later, next to each other or not.
    for (let n = 17; n <= 80; n += 7) {
      const plain = ascii(n, n);
      const accented = `${plain.slice(0, n >> 1)}\u00e9${plain.slice((n >> 1) + 1)}`;
      const messages: unknown[] = [
        { id: 1, email: plain, zip: 12345 },
        { email: accented },
        [plain, accented, plain],
        [accented, plain, 7, `${plain}!`],
        { a: plain, b: "short", c: `x${plain}`, d: accented },
      ];
      for (const value of messages) {
        const bytes = serialize(value);
        for (let offset = 0; offset < 4; offset++) expect(deserialize(placed(bytes, offset))).toEqual(value);
      }
    }
  });

  it("tells apart strings with one non-ASCII character at each position", () => {
    const value: string[] = [];
    for (const n of [1, 2, 5, 12, 13, 16, 17, 20, 31, 32, 33, 47, 64, 65, 100]) {
      for (let at = 0; at < n; at++) {
        const s = ascii(n, at);
        value.push(`${s.slice(0, at)}\u00e9${s.slice(at + 1)}`, s);
      }
    }
    const bytes = serialize(value);
    for (let offset = 0; offset < 4; offset++) expect(deserialize(placed(bytes, offset))).toEqual(value);
  });

  it("reads records mixing ASCII, Latin-1, BMP and astral strings across many blocks", () => {
    const rand = prng(20);
    const pieces = ["plain ascii text ", "caf\u00e9 ", "\u65e5\u672c\u8a9e\u306e ", "\ud83d\ude00 ", "x"];
    const value = Array.from({ length: 2000 }, (_, i) => {
      let s = "";
      const parts = 1 + Math.floor(rand() * 8);
      for (let k = 0; k < parts; k++) s += pieces[Math.floor(rand() * pieces.length)]!;
      return {
        id: i,
        title: s,
        url: `https://example.com/${ascii(20 + (i % 50), i)}`,
        note: s.toUpperCase(),
      };
    });
    const bytes = serialize(value);
    expect(deserialize(placed(bytes, 3))).toEqual(value);
    expect(deserialize(bytes)).toEqual(value);
  });

  it("decodes invalid UTF-8 in a longer string with replacement characters, as TextDecoder does", () => {
    const body = new Uint8Array(40).fill(0x61);
    body[5] = 0xff;
    body[20] = 0xc3; // a lead byte followed by ASCII
    body[39] = 0xe2; // a truncated sequence at the end
    const message = new Uint8Array([0xb5, 0x01, 0xcb, body.length, ...body]);
    expect(deserialize(message)).toBe(new TextDecoder().decode(body));
  });

  it("reads strings from an input over a SharedArrayBuffer", () => {
    const value = [ascii(40, 1), "caf\u00e9 ".repeat(10), ascii(3000, 2)];
    const bytes = serialize(value);
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + 1), 1);
    shared.set(bytes);
    expect(deserialize(shared)).toEqual(value);
  });

  it("reports a longer string cut short as truncated", () => {
    const bytes = serialize([ascii(100, 1)]);
    for (const cut of [bytes.length - 1, bytes.length - 50, 6]) {
      let error: unknown;
      try {
        deserialize(bytes.subarray(0, cut));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DecodeError);
      expect((error as DecodeError).code).toBe("ERR_TRUNCATED");
    }
  });

  it("keeps the outer message's block when a custom type's decode deserializes another message", () => {
    class Box {
      constructor(public inner: Uint8Array) {}
    }
    const inner = [ascii(30, 9), ascii(500, 8)];
    const innerBytes = serialize(inner);
    let seen: unknown;
    const BoxType = defineType({
      name: "Box",
      class: Box,
      encode: (b: Box) => b.inner,
      decode: (data: Uint8Array) => {
        seen = deserialize(data);
        return new Box(data);
      },
    });
    const registry = new TypeRegistry([BoxType]);
    // Strings before and after the custom value share one block of the outer message.
    const value = [ascii(40, 1), ascii(41, 2), new Box(innerBytes), ascii(42, 3), ascii(43, 4)];
    const out = deserialize(serialize(value, { registry }), { registry }) as unknown[];
    expect(seen).toEqual(inner);
    expect(out[0]).toBe(value[0]);
    expect(out[1]).toBe(value[1]);
    expect(out[3]).toBe(value[3]);
    expect(out[4]).toBe(value[4]);
  });
});

/** The shared-string table's slot for an ASCII string (its bytes packed as read-strings.ts `readShort` does). */
function slotOf(s: string): number {
  const w = [0, 0, 0];
  for (let i = 0; i < s.length; i++) w[i >> 2]! |= s.charCodeAt(i) << ((i & 3) * 8);
  return internSlot(s.length, w[0]!, w[1]!, w[2]!);
}

describe("binary: shared short strings", () => {
  // ASCII strings of up to 12 bytes go through a direct-mapped table of recently decoded strings
  // (read-ascii.ts `internedAt`): many more strings than slots force collisions of every kind.
  it("reads 20,000 distinct short strings, then again in another order and mixed with their neighbours", () => {
    const next = prng(12);
    const strings: string[] = [];
    const seen = new Set<string>();
    while (strings.length < 20_000) {
      const n = 1 + Math.floor(next() * 12);
      let s = "";
      for (let i = 0; i < n; i++) s += String.fromCharCode(0x20 + Math.floor(next() * 95));
      if (!seen.has(s)) {
        seen.add(s);
        strings.push(s);
      }
    }
    expect(deserialize(serialize(strings))).toEqual(strings);
    const shuffled = [...strings].reverse();
    expect(deserialize(serialize(shuffled))).toEqual(shuffled);
    // Same length, one byte apart (the same slot is likely for none, the compare must see the byte).
    const near = strings.flatMap((s) => [
      s,
      s.slice(0, -1) + String.fromCharCode(s.charCodeAt(s.length - 1) ^ 1),
    ]);
    expect(deserialize(serialize(near))).toEqual(near);
  });

  it("tells apart strings of one length that share a slot of the table", () => {
    // For each length, two strings that differ only in their last two bytes and land in one slot
    // (95 * 95 endings for 4,096 slots: there is always such a pair), read in turns so that each finds
    // the other in the slot, both before and after either is shared (from its second sighting).
    for (let n = 2; n <= INTERN_MAX; n++) {
      const prefix = ascii(n - 2, n);
      const bySlot = new Map<number, string>();
      let pair: [string, string] | null = null;
      for (let c1 = 0x20; c1 < 0x7f && pair === null; c1++) {
        for (let c2 = 0x20; c2 < 0x7f && pair === null; c2++) {
          const s = prefix + String.fromCharCode(c1, c2);
          const slot = slotOf(s);
          const other = bySlot.get(slot);
          if (other !== undefined) pair = [other, s];
          else bySlot.set(slot, s);
        }
      }
      expect(pair).not.toBeNull();
      const [a, b] = pair!;
      const value = [a, b, a, a, b, b, a, b, "", a, "", b];
      for (let i = 0; i < 3; i++) expect(deserialize(serialize(value))).toEqual(value);
    }
  });

  it("tells apart strings whose bytes differ only by trailing NULs, in one slot", () => {
    // "x" and "x\0" pack into the same words: only their lengths tell them apart.
    let found: string | null = null;
    for (let i = 0; found === null && i < 1_000_000; i++) {
      const s = `k${i.toString(36)}`;
      if (s.length < INTERN_MAX && slotOf(s) === slotOf(`${s}\u0000`)) found = s;
    }
    expect(found).not.toBeNull();
    const value = [found!, `${found!}\u0000`, found!, found!, `${found!}\u0000`, `${found!}\u0000`, found!];
    for (let i = 0; i < 3; i++) expect(deserialize(serialize(value))).toEqual(value);
  });

  it("tells a shared string from bytes that differ only past it, or by a non-ASCII byte", () => {
    for (const base of ["status", "ok", "abcdefghijkl"]) {
      const value = [base, base, `${base}x`, base.slice(0, -1), `${base.slice(0, -1)}é`, base, ""];
      for (let i = 0; i < 3; i++) expect(deserialize(serialize(value))).toEqual(value);
    }
  });

  it("reads the same short strings through records and keys of plain objects across messages", () => {
    const value = Array.from({ length: 300 }, (_, i) => ({
      id: i,
      name: `item-${i % 50}`,
      [`k${i % 7}`]: "v",
    }));
    for (let i = 0; i < 3; i++) expect(deserialize(serialize(value))).toEqual(value);
  });
});

describe("binary: UTF-8 strings", () => {
  // Every well-formed sequence kind at each length class, and every ill-formed kind (U+FFFD
  // replacements exactly as TextDecoder puts them).
  const utf8 = (...b: number[]) => new Uint8Array([0xb5, 0x01, 0xcb, b.length, ...b]);
  const td = new TextDecoder();

  it("round trips strings of 1-, 2-, 3- and 4-byte characters up to and past 1 KB", () => {
    const chars = ["a", "\u00e9", "\u07ff", "\u0800", "\u65e5", "\uffff", "\ud800\udc00", "\udbff\udfff"];
    const value: string[] = [];
    for (const c of chars) for (const n of [1, 5, 16, 17, 100, 341, 342, 1024, 2000]) value.push(c.repeat(n));
    value.push("mixed \u00e9\u65e5\ud83d\ude00 text ".repeat(40));
    expect(deserialize(serialize(value))).toEqual(value);
  });

  it("decodes ill-formed UTF-8 as TextDecoder does", () => {
    const cases: number[][] = [
      [0x80], // lone continuation byte
      [0xc0, 0xaf], // overlong
      [0xc1, 0xbf],
      [0xc3], // truncated 2-byte
      [0xc3, 0x41],
      [0xe0, 0x80, 0xaf], // overlong 3-byte
      [0xed, 0xa0, 0x80], // surrogate
      [0xe6, 0x97], // truncated 3-byte
      [0xe6, 0x41, 0x41],
      [0xf0, 0x80, 0x80, 0xaf], // overlong 4-byte
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xf5, 0x80, 0x80, 0x80],
      [0xf0, 0x9f, 0x98], // truncated 4-byte
      [0xf0, 0x9f, 0x41, 0x41],
      [0xff],
    ];
    for (const bad of cases) {
      for (const pad of [0, 20]) {
        const body = [...new Array(pad).fill(0x61), ...bad, 0x62];
        expect(deserialize(utf8(...body))).toBe(td.decode(new Uint8Array(body)));
      }
    }
  });
});
