/**
 * `deserialize(bytes, { copy: false })` may return views over the input's memory; none of them may
 * reach past the message (issue 12, item 1: a length-tracking view ran to the end of `bytes.buffer`,
 * disclosing whatever followed the message in a pooled buffer).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { fixtures } from "../fixtures/values.ts";

const SENTINEL = 0xab;

/** Every ArrayBuffer view reachable from `root` (objects, arrays, Maps, Sets, error causes). */
function viewsIn(root: unknown): ArrayBufferView[] {
  const out: ArrayBufferView[] = [];
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      out.push(v);
      continue;
    }
    if (v instanceof Map) {
      for (const [k, x] of v) stack.push(k, x);
      continue;
    }
    if (v instanceof Set) {
      for (const x of v) stack.push(x);
      continue;
    }
    if (v instanceof Error && "cause" in v) stack.push(v.cause);
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return out;
}

/** Places `message` at `offset` in a `size`-byte buffer otherwise filled with SENTINEL. */
function embed(message: Uint8Array, offset: number, size: number): Uint8Array {
  const big = new Uint8Array(size).fill(SENTINEL);
  big.set(message, offset);
  return big.subarray(offset, offset + message.length);
}

function assertInside(views: ArrayBufferView[], input: Uint8Array): void {
  for (const view of views) {
    if (view.buffer !== input.buffer) continue;
    expect(view.byteOffset).toBeGreaterThanOrEqual(input.byteOffset);
    expect(view.byteOffset + view.byteLength).toBeLessThanOrEqual(input.byteOffset + input.byteLength);
  }
}

describe("binary copy:false: no view reaches past the message", () => {
  it("the reported 16-byte message at the start of a 4 KiB buffer gives an empty view, not 4,080 bytes", () => {
    const message = [0xb5, 0x01, 0xd7, 0x08, 0x01, 0x01, 0x00, 0xd7, 0x04, 0x00, 0x05, 0, 0, 0, 0, 0];
    const big = new Uint8Array(4096).fill(SENTINEL);
    big.set(message);
    const out = deserialize<Uint8Array>(big.subarray(0, 16), { copy: false });
    expect(out).toBeInstanceOf(Uint8Array);
    // The inline buffer holds 0 bytes (then 5 bytes of padding): the view tracks an empty buffer.
    expect(out.byteLength).toBe(0);
    expect(out.buffer).not.toBe(big.buffer);
  });

  it("length-tracking typed arrays and DataViews over inline buffers track the payload's copy", () => {
    // [Float64Array tracking over an inline 16-byte buffer, DataView tracking from 8 over the same
    // buffer (by reference), the buffer itself (by reference)]; the payload is 8-aligned.
    const payload = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
    const message = new Uint8Array([
      ...[0xb5, 0x01, 0xe3, 0xd7, 0x08, 0x08, 0x01, 0x00, 0xd7, 0x04, 0x10, 0x04, 0, 0, 0, 0],
      ...payload,
      ...[0xd7, 0x09, 0x01, 0x08, 0xd4, 0x01, 0xd4, 0x01],
    ]);
    const input = embed(message, 64, 8192);
    const out = deserialize<[Float64Array, DataView, ArrayBuffer]>(input, { copy: false });
    expect(out[0].length).toBe(2);
    expect(out[1].byteLength).toBe(8);
    expect(out[1].getUint8(0)).toBe(9);
    // All three share one buffer, a copy of the 16 payload bytes, not the input's.
    expect(out[0].buffer).toBe(out[2]);
    expect(out[1].buffer).toBe(out[2]);
    expect(Array.from(new Uint8Array(out[2]))).toEqual(payload);
  });

  it("a view of a wider type over an aliased buffer that is misaligned for it gets a copy", () => {
    const buffer = new ArrayBuffer(24);
    const value = [new Uint8Array(buffer, 0, 8), new Float64Array(buffer, 8, 2)];
    const message = serialize(value);
    for (let offset = 0; offset < 8; offset++) {
      const input = embed(message, offset, message.length + 64);
      const out = deserialize<[Uint8Array, Float64Array]>(input, { copy: false });
      expect(out[1].length).toBe(2);
      assertInside(out, input);
    }
  });

  it("never aliases input held in a SharedArrayBuffer or a resizable ArrayBuffer", () => {
    const value = { a: new Float64Array([1, 2, 3, 4]), b: new Uint8Array(64).fill(7) };
    const message = serialize(value);
    const shared = new Uint8Array(new SharedArrayBuffer(message.length + 64));
    shared.set(message);
    const resizable = new Uint8Array(
      new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer)(
        message.length,
        { maxByteLength: message.length * 2 },
      ),
    );
    resizable.set(message);
    for (const input of [shared.subarray(0, message.length), resizable]) {
      const out = deserialize<typeof value>(input, { copy: false });
      expect(out.a.buffer).not.toBe(input.buffer);
      expect(out.b.buffer).not.toBe(input.buffer);
      expect(out.a.buffer).toBeInstanceOf(ArrayBuffer);
      expect(Array.from(out.a)).toEqual([1, 2, 3, 4]);
    }
  });

  it("every fixture, at random offsets in a larger sentinel-filled buffer: views stay inside the message", () => {
    const messages = fixtures
      .filter((f) => !f.host)
      .map((f) => ({ name: f.name, bytes: serialize(f.make()) }));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: messages.length - 1 }),
        fc.integer({ min: 0, max: 4096 }),
        fc.integer({ min: 0, max: 4096 }),
        (which, before, after) => {
          const { bytes } = messages[which]!;
          const input = embed(bytes, before, before + bytes.length + after);
          const views = viewsIn(deserialize(input, { copy: false }));
          assertInside(views, input);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
    // And every fixture at least once, at an odd offset (the misaligned copy path).
    for (const { bytes } of messages) {
      for (const offset of [0, 1, 8]) {
        const input = embed(bytes, offset, offset + bytes.length + 512);
        assertInside(viewsIn(deserialize(input, { copy: false })), input);
      }
    }
  });
});
