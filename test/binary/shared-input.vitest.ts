/**
 * Issue 14: browsers' `TextDecoder.decode` rejects views over a SharedArrayBuffer, so decoding bytes
 * held in one (the channel's ring) threw TypeError in Chromium and Firefox. Node's decoder accepts
 * them, so the browser is emulated: the decoder module is loaded without Node's `Buffer#utf8Slice` (as
 * in a browser) and `TextDecoder.prototype.decode` throws on a shared view, as browsers do.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serialize } from "../../src/binary/index.ts";

type Deserialize = (bytes: Uint8Array, options?: { copy?: boolean }) => unknown;

const realDecode = TextDecoder.prototype.decode;
let browserDeserialize: Deserialize;
let sharedViewsSeen = 0;

function isSharedView(input: unknown): boolean {
  return (
    ArrayBuffer.isView(input) && Object.prototype.toString.call(input.buffer) === "[object SharedArrayBuffer]"
  );
}

beforeAll(async () => {
  TextDecoder.prototype.decode = function decode(
    this: TextDecoder,
    input?: AllowSharedBufferSource,
    options?,
  ) {
    if (isSharedView(input)) {
      sharedViewsSeen++;
      throw new TypeError("The provided ArrayBufferView value must not be shared.");
    }
    return realDecode.call(this, input, options);
  } as typeof realDecode;
  const proto = Buffer.prototype as unknown as { utf8Slice?: unknown };
  const utf8Slice = proto.utf8Slice;
  delete proto.utf8Slice;
  try {
    vi.resetModules();
    browserDeserialize = (await import("../../src/binary/index.ts")).deserialize as Deserialize;
  } finally {
    proto.utf8Slice = utf8Slice;
  }
});

afterAll(() => {
  TextDecoder.prototype.decode = realDecode;
});

function inShared(bytes: Uint8Array, offset = 3): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + offset + 16));
  shared.set(bytes, offset);
  return shared.subarray(offset, offset + bytes.length);
}

describe("binary deserialize of bytes in a SharedArrayBuffer (browser TextDecoder)", () => {
  const value = {
    long: "a long ASCII string, past the short-string path: ".repeat(20),
    nonAscii: "grüße, 日本語, emoji 🎉 and more",
    short: "é",
    list: ["x".repeat(17), "ü".repeat(40), "ok"],
    map: new Map([["schlüssel", "wert ".repeat(10)]]),
  };

  it("the emulation is real: the shared view is refused by TextDecoder", () => {
    const view = inShared(new Uint8Array([0x61, 0x62]));
    expect(() => new TextDecoder().decode(view)).toThrow(TypeError);
  });

  it("decodes long and non-ASCII strings from shared bytes, without handing TextDecoder a shared view", () => {
    const before = sharedViewsSeen;
    const out = browserDeserialize(inShared(serialize(value)));
    expect(out).toEqual(value);
    expect(sharedViewsSeen).toBe(before);
  });

  it("decodes the same from unshared bytes (the non-shared path is unchanged)", () => {
    expect(browserDeserialize(serialize(value))).toEqual(value);
    expect(browserDeserialize(inShared(serialize(value)), { copy: false })).toEqual(value);
  });
});
