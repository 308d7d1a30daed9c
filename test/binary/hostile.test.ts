import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { DecodeError, LimitError, StructuraError } from "../../src/core/errors.ts";

const HEADER = [0xb5, 0x01];
const H = HEADER.length;

function bytes(...body: number[]): Uint8Array {
  return new Uint8Array([...HEADER, ...body]);
}

function decodeError(input: Uint8Array, options?: Parameters<typeof deserialize>[1]): StructuraError {
  try {
    deserialize(input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(StructuraError);
    return error as StructuraError;
  }
  throw new Error("expected deserialize to throw");
}

describe("binary: hostile input", () => {
  it("rejects wrong magic and versions", () => {
    expect(decodeError(new Uint8Array([1, 2, 3, 4, 5]))).toMatchObject({ code: "ERR_VERSION", offset: 0 });
    expect(decodeError(new Uint8Array([0xb5, 3, 0]))).toMatchObject({ code: "ERR_VERSION", offset: 1 });
    expect(decodeError(new Uint8Array([0xb5, 0, 0]))).toMatchObject({ code: "ERR_VERSION", offset: 1 });
    // Versions 1 and 2 are read.
    expect(deserialize(new Uint8Array([0xb5, 1, 0]))).toBe(0);
    expect(deserialize(new Uint8Array([0xb5, 2, 0]))).toBe(0);
    expect(decodeError(new Uint8Array([]))).toMatchObject({ code: "ERR_TRUNCATED" });
    expect(decodeError(new Uint8Array([0xb5]))).toMatchObject({ code: "ERR_TRUNCATED" });
    expect(decodeError(new Uint8Array([0x53, 0x54, 0x52, 1, 0]))).toMatchObject({ code: "ERR_VERSION" });
  });

  it("rejects truncated input at every cut of a valid encoding", () => {
    const full = serialize({
      a: [1, 2.5, "str", "x".repeat(100), 2n ** 70n, new Date(1)],
      n: [0, 127, 128, 255, 256, 65535, 65536, -1],
      m: new Map([[1, new Set([2])]]),
      u: new Uint16Array([1, 2, 3]),
      e: new Error("e", { cause: 1 }),
      r: /x/g,
    });
    for (let cut = 0; cut < full.length; cut++) {
      const error = decodeError(full.subarray(0, cut));
      expect(error).toBeInstanceOf(DecodeError);
      expect(["ERR_TRUNCATED", "ERR_BAD_LENGTH"]).toContain(error.code);
      expect(typeof error.offset).toBe("number");
    }
  });

  it("checks forged lengths against the bytes remaining before allocating", () => {
    // array of 2^50 elements, string of 4 GB, buffer of 2^40 bytes, Map of 2^40 entries
    const huge = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
    expect(decodeError(bytes(0xd0, ...huge))).toMatchObject({ code: "ERR_BAD_LENGTH", offset: H + 1 });
    expect(decodeError(bytes(0xcd, 0xff, 0xff, 0xff, 0xff))).toMatchObject({ code: "ERR_TRUNCATED" });
    expect(decodeError(bytes(0xd7, 0x04, ...huge, 0))).toMatchObject({ code: "ERR_BAD_LENGTH" });
    expect(decodeError(bytes(0xd7, 0x02, ...huge))).toMatchObject({ code: "ERR_BAD_LENGTH" });
    expect(decodeError(bytes(0xd8, ...huge))).toMatchObject({ code: "ERR_BAD_LENGTH" });
    expect(decodeError(bytes(0xce, ...huge))).toMatchObject({ code: "ERR_BAD_LENGTH" });
    // a varint longer than 53 bits
    expect(decodeError(bytes(0xd0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))).toMatchObject({
      code: "ERR_BAD_LENGTH",
    });
    // a resizable buffer whose maximum cannot be allocated
    expect(
      decodeError(bytes(0xd7, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x02)),
    ).toMatchObject({ code: "ERR_BAD_LENGTH" });
  });

  it("rejects unknown tags and extension codes", () => {
    for (const tag of [0xdb, 0xdc, 0xdf]) {
      expect(decodeError(bytes(tag))).toMatchObject({ code: "ERR_UNKNOWN_TAG", offset: H });
    }
    expect(decodeError(bytes(0xd7, 0x7f))).toMatchObject({ code: "ERR_UNKNOWN_TAG", offset: H });
    expect(decodeError(bytes(0xd7, 0x08, 99, 0, 0, 0))).toMatchObject({ code: "ERR_UNKNOWN_TAG" });
  });

  it("rejects out-of-range references and undefined shapes", () => {
    expect(decodeError(bytes(0xd4, 0))).toMatchObject({ code: "ERR_BAD_REFERENCE", offset: H });
    expect(decodeError(bytes(0xd0, 2, 0xd1, 0, 0xd4, 5))).toMatchObject({
      code: "ERR_BAD_REFERENCE",
      offset: H + 4,
    });
    expect(decodeError(bytes(0xa3))).toMatchObject({ code: "ERR_BAD_REFERENCE" });
    // the same inside an array (whose reader takes records by shape id without readSlot)
    expect(decodeError(bytes(0xe2, 1, 0xa3))).toMatchObject({ code: "ERR_BAD_REFERENCE", offset: H + 2 });
    expect(decodeError(bytes(0xd3, 40))).toMatchObject({ code: "ERR_BAD_REFERENCE" });
    // a reference to a custom object still being decoded
    const types = [{ name: "Box", test: () => false, encode: (v: unknown) => v, decode: (d: unknown) => d }];
    expect(decodeError(bytes(0xd7, 0x12, 0x83, 0x42, 0x6f, 0x78, 0xd4, 0), { types })).toMatchObject({
      code: "ERR_BAD_REFERENCE",
    });
  });

  it("rejects trailing bytes", () => {
    const valid = serialize([1, 2]);
    const longer = new Uint8Array([...valid, 0]);
    expect(decodeError(longer)).toMatchObject({ code: "ERR_TRAILING_DATA", offset: valid.length });
  });

  it("rejects impossible values", () => {
    // a hole outside an array, a non-string key, an array "length" entry, a view past its buffer
    expect(decodeError(bytes(0xd5))).toMatchObject({ code: "ERR_BAD_VALUE", offset: H });
    expect(decodeError(bytes(0xd1, 1, 0x01, 0x01))).toMatchObject({ code: "ERR_BAD_VALUE" });
    expect(decodeError(bytes(0xd9, 0, 1, 0x86, ...Buffer.from("length"), 0x01))).toMatchObject({
      code: "ERR_BAD_VALUE",
    });
    expect(decodeError(bytes(0xd7, 0x08, 1, 0, 0, 9, 0xd7, 0x04, 4, 3, 0, 0, 0, 1, 2, 3, 4))).toMatchObject({
      code: "ERR_BAD_VALUE",
    });
    expect(decodeError(bytes(0xd7, 0x01, 0x81, 0x28, 0x80))).toMatchObject({ code: "ERR_BAD_VALUE" });
    expect(decodeError(bytes(0xd7, 0x0a, 9, 0))).toMatchObject({ code: "ERR_BAD_VALUE" });
    expect(decodeError(bytes(0xd7, 0x12, 0x81, 0x58, 0xc0))).toMatchObject({ code: "ERR_UNKNOWN_TYPE" });
  });

  it("keeps __proto__ keys as own data and never sets a prototype", () => {
    const source = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as object;
    for (let round = 0; round < 4; round++) {
      // repeated so the record reader would be compiled if it were allowed to be
      const out = deserialize(serialize([source, source, { ...{} }, source])) as object[];
      const first = out[0]!;
      expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(first, "__proto__")?.value).toEqual({ polluted: true });
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    }
    // generic objects and array properties too
    const generic = deserialize(bytes(0xd1, 1, 0x89, ...Buffer.from("__proto__"), 0xd1, 0)) as object;
    expect(Object.getPrototypeOf(generic)).toBe(Object.prototype);
    expect(Object.hasOwn(generic, "__proto__")).toBe(true);
  });

  it("bounds nesting depth on decode and encode without overflowing the stack", () => {
    const depth = 200_000;
    const nested = new Uint8Array(H + depth * 2 + 1);
    nested.set(HEADER);
    for (let i = 0; i < depth; i++) {
      nested[H + i * 2] = 0xd0;
      nested[H + 1 + i * 2] = 1;
    }
    nested[H + depth * 2] = 0xc0;
    expect(decodeError(nested)).toBeInstanceOf(LimitError);
    expect(decodeError(nested)).toMatchObject({ code: "ERR_DEPTH_LIMIT" });
    // a limit above what the stack can hold still ends in the same LimitError
    expect(decodeError(nested, { maxDepth: 10_000_000 })).toMatchObject({ code: "ERR_DEPTH_LIMIT" });
    // a configurable limit
    const ten = serialize([[[[[[[[[[[1]]]]]]]]]]]);
    expect(decodeError(ten, { maxDepth: 5 })).toMatchObject({ code: "ERR_DEPTH_LIMIT" });
    expect(deserialize(ten, { maxDepth: 11 })).toEqual([[[[[[[[[[[1]]]]]]]]]]]);
    // encode
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(() => serialize(value)).toThrow(LimitError);
    expect(() => serialize(value, { maxDepth: 10_000_000 })).toThrow(LimitError);
    let ok: unknown = 1;
    for (let i = 0; i < 1200; i++) ok = { inner: ok };
    expect(deserialize(serialize(ok))).toEqual(ok);
  });
});
