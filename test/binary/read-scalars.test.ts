/**
 * The reader's multi-byte scalars, read from the input's bytes (decode.ts: no DataView per message):
 * hand-written messages at every byte offset of a larger buffer, each value at its range's edges.
 */
import { describe, expect, it } from "vitest";
import { deserialize } from "../../src/binary/index.ts";

const le = (n: number, bytes: number): number[] =>
  Array.from({ length: bytes }, (_, i) =>
    Number((BigInt.asUintN(bytes * 8, BigInt(n)) >> BigInt(8 * i)) & 0xffn),
  );

/** The message `b5 82 <body>` placed at `offset` inside a larger buffer filled with 0xff. */
function at(offset: number, body: number[]): Uint8Array {
  const buffer = new Uint8Array(offset + 2 + body.length + 3).fill(0xff);
  buffer.set([0xb5, 0x82, ...body], offset);
  return buffer.subarray(offset, offset + 2 + body.length);
}

const cases: [string, number[], unknown][] = [
  ["INT8 -128", [0xc7, ...le(-128, 1)], -128],
  ["INT8 -17", [0xc7, ...le(-17, 1)], -17],
  ["INT8 127", [0xc7, 127], 127],
  ["INT16 -32768", [0xc8, ...le(-32768, 2)], -32768],
  ["INT16 -129", [0xc8, ...le(-129, 2)], -129],
  ["INT16 32767", [0xc8, ...le(32767, 2)], 32767],
  ["INT32 -2147483648", [0xc9, ...le(-2147483648, 4)], -2147483648],
  ["INT32 -32769", [0xc9, ...le(-32769, 4)], -32769],
  ["INT32 2147483647", [0xc9, ...le(2147483647, 4)], 2147483647],
  ["UINT16 65535", [0xc5, 0xff, 0xff], 65535],
  ["UINT32 4294967295", [0xc6, 0xff, 0xff, 0xff, 0xff], 4294967295],
  ["STR16 of 3", [0xcc, 3, 0, 0x61, 0x62, 0x63], "abc"],
  ["STR32 of 2", [0xcd, 2, 0, 0, 0, 0x78, 0x79], "xy"],
  ["DATE_SECONDS 0", [0xda, 0, 0, 0, 0], new Date(0)],
  ["DATE_SECONDS 2^32 - 1", [0xda, 0xff, 0xff, 0xff, 0xff], new Date(4294967295 * 1000)],
  ["DATE_SECONDS 1,700,000,000", [0xda, ...le(1_700_000_000, 4)], new Date(1_700_000_000_000)],
];

describe("binary reader: multi-byte scalars from the input's bytes", () => {
  for (const [name, body, want] of cases) {
    it(`${name}, at every offset of a larger buffer`, () => {
      for (let offset = 0; offset < 9; offset++) {
        expect(deserialize(at(offset, body))).toEqual(want);
      }
    });
  }

  it("a STR32 length over the input is truncated, not read past the message", () => {
    const bytes = at(3, [0xcd, 0xff, 0xff, 0xff, 0xff, 0x61]);
    expect(() => deserialize(bytes)).toThrow(expect.objectContaining({ code: "ERR_TRUNCATED" }));
  });
});
