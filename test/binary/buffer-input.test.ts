/**
 * A Node Buffer given to `deserialize` must behave as the bytes it views, nothing more. `Buffer#slice`
 * does not copy (it is `subarray`), so a decoder that "copies" a payload with `.slice()` on a Buffer
 * returns a view of the whole allocation behind it: with Node's pooled Buffers, other requests' bytes.
 */
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";

describe("binary deserialize: Node Buffer input", () => {
  it("buffers and views decoded from a pooled Buffer own exactly their payload", () => {
    const value = {
      empty: new ArrayBuffer(0),
      small: new Uint8Array([1, 2, 3]).buffer,
      view: new Uint8Array([4, 5, 6]),
      data: new DataView(new ArrayBuffer(2)),
      floats: new Float64Array([1.5, 2.5]),
    };
    // A Buffer inside a larger allocation, as Node's 8 KiB pool hands them out: the bytes around the
    // message are another's.
    const message = serialize(value);
    const pool = new ArrayBuffer(8192);
    new Uint8Array(pool).fill(0x41);
    const bytes = Buffer.from(pool, 100, message.length);
    bytes.set(message);
    const back = deserialize(bytes) as typeof value;
    expect(back.empty.byteLength).toBe(0);
    expect(back.small.byteLength).toBe(3);
    expect(back.view.buffer.byteLength).toBe(3);
    expect(back.data.buffer.byteLength).toBe(2);
    expect(back.floats.buffer.byteLength).toBe(16);
    expect([...new Uint8Array(back.small)]).toEqual([1, 2, 3]);
  });

  it("the decoded copies do not alias the Buffer", () => {
    const message = serialize(new Uint8Array([9, 9, 9]));
    const bytes = Buffer.from(new ArrayBuffer(8192), 64, message.length);
    bytes.set(message);
    const back = deserialize(bytes) as Uint8Array;
    bytes.fill(0);
    expect([...back]).toEqual([9, 9, 9]);
  });
});
