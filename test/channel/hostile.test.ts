/**
 * A peer that writes what it likes into the ring it shares with us: forged record headers, a flood of
 * port-path records whose port messages never come, then a close. Every outcome is a typed
 * StructuraError (or an orderly close), never a raw RangeError from the drain.
 */
import { describe, expect, it } from "vitest";
import { serialize } from "../../src/binary/index.ts";
import { createChannel, openChannel } from "../../src/channel/index.ts";
import {
  CLOSED,
  CONTROL_BYTES,
  HEAD,
  KIND_ASCII,
  KIND_PORT,
  KIND_RAW,
  KIND_TEXT,
  KIND_WRAP,
  TAIL,
} from "../../src/channel/ring.ts";
import { StructuraError } from "../../src/core/errors.ts";
import { closeEvent } from "./helpers.ts";

function pair<T>(options?: Parameters<typeof createChannel>[0]) {
  const { local, remote } = createChannel<T>(options);
  return { a: local, b: openChannel<T>(remote), remote };
}

/** Writes `n` port-path records (sequence 0..n-1) into the ring `b` reads, publishes them, and closes it. */
function forgePortFlood(sab: SharedArrayBuffer, n: number): void {
  const ctrl = new Int32Array(sab, 0, CONTROL_BYTES >> 2);
  const words = new Int32Array(sab, CONTROL_BYTES);
  for (let i = 0; i < n; i++) {
    words[2 * i] = KIND_PORT;
    words[2 * i + 1] = i;
  }
  Atomics.store(ctrl, HEAD, n * 8);
  Atomics.store(ctrl, CLOSED, 1);
}

describe("channel: hostile peer", () => {
  it("receiveSync skips 50,000 port records whose messages never came, then reports a typed close", () => {
    const { a, b, remote } = pair<unknown>();
    forgePortFlood(remote.rx!, 50_000);
    let thrown: unknown;
    try {
      b.receiveSync(1000);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StructuraError);
    expect((thrown as StructuraError).code).toBe("ERR_CHANNEL_CLOSED");
    expect(b.closed).toBe(true);
    a.close();
  });

  it("the event path drains the same flood iteratively: no error event, a plain close", async () => {
    const { a, b, remote } = pair<unknown>();
    forgePortFlood(remote.rx!, 50_000);
    const errors: unknown[] = [];
    b.addEventListener("error", (e) => errors.push(e.error));
    const closed = closeEvent(b);
    a.close(); // the peer's close notice arrives through the port after the flood
    b.onmessage = () => {};
    expect(await closed).toBeUndefined();
    expect(errors).toEqual([]);
  });

  /** A well-formed record (payload `value`, sequence `seq`) at byte `at` of the data region. */
  function record(sab: SharedArrayBuffer, at: number, seq: number, value: unknown): number {
    const payload = serialize(value);
    const words = new Int32Array(sab, CONTROL_BYTES);
    words[at >> 2] = payload.length;
    words[(at >> 2) + 1] = seq;
    new Uint8Array(sab, CONTROL_BYTES).set(payload, at + 8);
    return (8 + payload.length + 7) & ~7;
  }

  it("a wrap marker that jumps past the published bytes is ERR_CHANNEL_CORRUPT, not stale data", () => {
    const { local: a, remote } = createChannel<unknown>({ ringSize: 4096 });
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    // Never published: a stale record at the start of the ring.
    record(remote.rx!, 0, 0, "stale");
    // The reader starts at 4000; 8 bytes are published, and they say "wrap to the start", which would
    // skip 96 bytes nobody published and read the stale record.
    Atomics.store(ctrl, TAIL, 4000);
    words[1000] = KIND_WRAP;
    Atomics.store(ctrl, HEAD, 4008);
    const b = openChannel<unknown>(remote);
    expect(() => b.receiveSync(0)).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CORRUPT" }));
    expect(b.closed).toBe(true);
    a.close();
  });

  it("a record is read in place but only up to its length: a message cut short is ERR_CHANNEL_CORRUPT, not read on into the next record", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    const value = Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item-${i}` }));
    // A good record first, so the forged one starts inside the ring, not at its first byte.
    const first = record(remote.rx!, 0, 0, "first");
    const size = record(remote.rx!, first, 1, value);
    // The same message again right behind it: bytes the forged record would run into.
    record(remote.rx!, first + size, 2, value);
    const full = words[first >> 2]!;
    words[first >> 2] = full - 9;
    Atomics.store(ctrl, HEAD, first + 2 * size);
    expect(b.receiveSync(0)).toEqual({ message: "first" });
    let caught: unknown;
    try {
      b.receiveSync(0);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StructuraError);
    expect(caught).toMatchObject({ code: "ERR_CHANNEL_CORRUPT" });
    // The decoder's offsets count from the record's first byte, not the ring's.
    const cause = (caught as { cause?: { offset?: number } }).cause;
    expect(cause).toBeInstanceOf(StructuraError);
    expect(cause!.offset).toBeGreaterThanOrEqual(0);
    expect(cause!.offset).toBeLessThanOrEqual(full - 9);
    a.close();
  });

  it("a HEAD more than a ring ahead of TAIL is ERR_CHANNEL_CORRUPT", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    record(remote.rx!, 0, 0, 1);
    Atomics.store(ctrl, HEAD, 0x7fff0000);
    expect(() => b.receiveSync(0)).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CORRUPT" }));
    a.close();
  });

  it("a port record published without its 8 header bytes is ERR_CHANNEL_CORRUPT, not stale data", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    words[0] = KIND_PORT;
    words[1] = 0;
    record(remote.rx!, 8, 1, "stale");
    Atomics.store(ctrl, HEAD, 4);
    Atomics.store(ctrl, CLOSED, 1);
    expect(() => b.receiveSync(0)).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CORRUPT" }));
    a.close();
  });

  it("a RAW record whose string never comes waits; once the peer is gone it is skipped", () => {
    const { a, b, remote } = pair<unknown>();
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    words[0] = KIND_RAW;
    words[1] = 0;
    Atomics.store(ctrl, HEAD, 8);
    expect(b.receiveSync(0)).toBeUndefined();
    a.close();
    expect(() => b.receiveSync(0)).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CLOSED" }));
  });

  it("forged record lengths (negative, past the ring, past HEAD) are ERR_CHANNEL_CORRUPT", () => {
    for (const kind of [-6, -0x80000000, 0x7fffffff, 4096, 4089, 64]) {
      const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
      const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
      const words = new Int32Array(remote.rx!, CONTROL_BYTES);
      words[0] = kind;
      words[1] = 0;
      Atomics.store(ctrl, HEAD, 16);
      expect(() => b.receiveSync(0), String(kind)).toThrow(
        expect.objectContaining({ code: "ERR_CHANNEL_CORRUPT" }),
      );
      a.close();
    }
  });

  it("forged text records (a length that is negative, past the ring or past HEAD; bytes that are not UTF-8) are ERR_CHANNEL_CORRUPT", () => {
    const forgeries: [kind: number, length: number, bytes: number[], published: number][] = [
      [KIND_TEXT, -1, [], 16],
      [KIND_ASCII, -0x80000000, [], 16],
      [KIND_TEXT, 0x7fffffff, [], 16],
      [KIND_ASCII, 4096, [], 16],
      [KIND_TEXT, 100, [], 16], // runs past HEAD
      [KIND_TEXT, 3, [0xff, 0xfe, 0x41], 16], // not UTF-8
      [KIND_TEXT, 2, [0xc3], 16], // a sequence cut short
      [KIND_TEXT, 0, [], 8], // the length word itself not published
    ];
    for (const [kind, length, bytes, published] of forgeries) {
      const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
      const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
      const words = new Int32Array(remote.rx!, CONTROL_BYTES);
      words[0] = kind;
      words[1] = 0;
      words[2] = length;
      new Uint8Array(remote.rx!, CONTROL_BYTES + 12).set(bytes);
      Atomics.store(ctrl, HEAD, published);
      expect(() => b.receiveSync(0), `${kind} ${length}`).toThrow(
        expect.objectContaining({ code: "ERR_CHANNEL_CORRUPT" }),
      );
      a.close();
    }
  });

  it("a well-formed forged text record reads as the string it holds", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    words[0] = KIND_TEXT;
    words[1] = 0;
    words[2] = 2;
    new Uint8Array(remote.rx!, CONTROL_BYTES + 12).set([0xc3, 0xa9]);
    Atomics.store(ctrl, HEAD, 16);
    expect(b.receiveSync(0)).toEqual({ message: "é" });
    a.close();
  });

  /** A handle over our own MessageChannel, so the test can post port payloads in any order. */
  function forgedPortEnd(rings: boolean) {
    const channel = new MessageChannel();
    const { remote } = createChannel<unknown>({ ringSize: 4096 });
    const handle = {
      __structuraChannel: 1 as const,
      port: channel.port2,
      rx: rings ? remote.rx : null,
      tx: rings ? remote.tx : null,
      maxInline: rings ? remote.maxInline : 0,
    };
    return { forger: channel.port1, end: openChannel<unknown>(handle as typeof remote), rx: remote.rx! };
  }

  function nextMessages(end: ReturnType<typeof openChannel<unknown>>, n: number): Promise<unknown[]> {
    const got: unknown[] = [];
    return new Promise((resolve, reject) => {
      end.addEventListener("error", (e) => reject(e.error));
      end.onmessage = (e) => {
        got.push(e.data);
        if (got.length === n) resolve(got);
      };
    });
  }

  // A synchronous take can get a port message while an earlier one is still in the host's own receive
  // loop (Deno under load); the earlier one then arrives second and must still be read first.
  it("port messages that arrive out of order are read in sequence (port transport)", async () => {
    const { forger, end } = forgedPortEnd(false);
    forger.postMessage({ s: 1, b: serialize("one") });
    forger.postMessage({ s: 0, b: serialize("zero") });
    forger.postMessage({ s: 2, b: serialize("two") });
    expect(await nextMessages(end, 3)).toEqual(["zero", "one", "two"]);
    end.close();
    forger.close();
  });

  it("port messages that arrive out of order are read in sequence (ring transport)", async () => {
    const { forger, end, rx } = forgedPortEnd(true);
    const ctrl = new Int32Array(rx, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(rx, CONTROL_BYTES);
    for (let i = 0; i < 2; i++) {
      words[2 * i] = KIND_PORT;
      words[2 * i + 1] = i;
    }
    Atomics.store(ctrl, HEAD, 16);
    forger.postMessage({ s: 1, b: serialize("one") });
    forger.postMessage({ s: 0, b: serialize("zero") });
    expect(await nextMessages(end, 2)).toEqual(["zero", "one"]);
    end.close();
    forger.close();
  });

  it("a long string's bytes on the port that are not UTF-8 are ERR_CHANNEL_CORRUPT", async () => {
    const { forger, end } = forgedPortEnd(false);
    const failed = new Promise<unknown>((resolve) => end.addEventListener("error", (e) => resolve(e.error)));
    end.onmessage = () => {};
    forger.postMessage({ s: 0, u: new Uint8Array([0x41, 0xff, 0x41]), a: 0 });
    expect(await failed).toMatchObject({ code: "ERR_CHANNEL_CORRUPT" });
    forger.close();
  });

  it("a long string in a shared bulk buffer reads exactly and frees the buffer; forged ones are ERR_CHANNEL_CORRUPT", async () => {
    const sab = new SharedArrayBuffer(8 + 5);
    const flag = new Int32Array(sab, 0, 1);
    new Uint8Array(sab, 8).set([0x68, 0x69, 0xc3, 0xa9, 0x21]); // "hié!"
    flag[0] = 1;
    {
      const { forger, end } = forgedPortEnd(false);
      forger.postMessage({ s: 0, k: sab, n: 5, a: 0 });
      forger.postMessage({ s: 1, k: sab, n: 2, a: 1 });
      expect(await nextMessages(end, 2)).toEqual(["hié!", "hi"]);
      expect(Atomics.load(flag, 0)).toBe(0); // read: the sender may write the next one there
      end.close();
      forger.close();
    }
    const forged: unknown[] = [
      { s: 0, k: sab, n: 6, a: 0 }, // past the buffer
      { s: 0, k: sab, n: -1, a: 1 },
      { s: 0, k: sab, n: 1.5, a: 1 },
      { s: 0, k: sab, n: "5", a: 0 },
      { s: 0, k: sab, n: 3, a: 0 }, // a UTF-8 sequence cut short
      { s: 0, k: new SharedArrayBuffer(4), n: 0, a: 1 }, // no room for the flag
    ];
    for (const message of forged) {
      const { forger, end } = forgedPortEnd(false);
      const failed = new Promise<unknown>((resolve) =>
        end.addEventListener("error", (e) => resolve(e.error)),
      );
      end.onmessage = () => {};
      forger.postMessage(message);
      expect(await failed, JSON.stringify({ ...(message as object), k: 0 })).toMatchObject({
        code: "ERR_CHANNEL_CORRUPT",
      });
      forger.close();
    }
  });

  it("a port message sent twice (a sequence number already read) is ERR_CHANNEL_CORRUPT", async () => {
    const { forger, end } = forgedPortEnd(false);
    const failed = new Promise<unknown>((resolve) => end.addEventListener("error", (e) => resolve(e.error)));
    end.onmessage = () => {};
    forger.postMessage({ s: 0, b: serialize("zero") });
    forger.postMessage({ s: 0, b: serialize("again") });
    expect(await failed).toMatchObject({ code: "ERR_CHANNEL_CORRUPT" });
    forger.close();
  });
});
