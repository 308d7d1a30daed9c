/**
 * The channel's shape table: messages are read in the order they are sent, so record shapes travel
 * once per channel (stream messages over one table, as a stream's frames share theirs). What a forged
 * or lost message does to the table: a typed error, or the messages that cannot be read safely
 * skipped, never a record read with the wrong keys.
 */
import { describe, expect, it } from "vitest";
import { serialize } from "../../src/binary/index.ts";
import { DEFAULT_MAX_SHAPE_TABLE, EncodeSession, encodeMessage } from "../../src/binary/messages.ts";
import { createChannel, openChannel } from "../../src/channel/index.ts";
import { CLOSED, CONTROL_BYTES, HEAD, KIND_PORT } from "../../src/channel/ring.ts";
import { StructuraError } from "../../src/core/errors.ts";
import { TypeRegistry } from "../../src/core/registry.ts";

function pair<T>(options?: Parameters<typeof createChannel>[0]) {
  const { local, remote } = createChannel<T>(options);
  return { a: local, b: openChannel<T>(remote), remote };
}

/** Writes a record of `payload` (sequence `seq`) at byte `at` of the data region; returns its size. */
function put(sab: SharedArrayBuffer, at: number, seq: number, payload: Uint8Array): number {
  const words = new Int32Array(sab, CONTROL_BYTES);
  words[at >> 2] = payload.length;
  words[(at >> 2) + 1] = seq;
  new Uint8Array(sab, CONTROL_BYTES).set(payload, at + 8);
  return (8 + payload.length + 7) & ~7;
}

const head = (sab: SharedArrayBuffer) => Atomics.load(new Int32Array(sab, 0, CONTROL_BYTES >> 2), HEAD);
const config = { registry: new TypeRegistry([]), maxDepth: 100 };

describe("channel: shapes shared across messages", () => {
  it("a record shape's keys travel once: the second message of the same shape is smaller", () => {
    const { a, b, remote } = pair<unknown>();
    const value = [{ identifier: 1, description: "x", active: true }];
    a.postMessage(value);
    const first = head(remote.rx!);
    a.postMessage(value);
    const second = head(remote.rx!) - first;
    expect(second).toBeLessThan(first - 24); // "identifier", "description", "active" not written again
    expect(b.receiveSync(0)).toEqual({ message: value });
    expect(b.receiveSync(0)).toEqual({ message: value });
    a.close();
  });

  it("many shapes, past the table's bound: every message reads back (the writer resets the table)", () => {
    const { a, b } = pair<unknown>({ ringSize: 1 << 22 });
    // 1,200 messages of two new shapes with 61-character keys: about 500 estimated bytes each, over two tables.
    const sent: unknown[] = [];
    for (let i = 0; i < 1200; i++) {
      const k = String(i).padStart(60, "k");
      const v = { [`a${k}`]: i, [`b${k}`]: [{ [`a${k}`]: -i }], shared: { x: i, y: "y" } };
      sent.push(v);
      a.postMessage(v);
      if (i % 300 === 299) {
        for (let j = i - 299; j <= i; j++) expect(b.receiveSync(0)).toEqual({ message: sent[j] });
      }
    }
    a.close();
  });

  it("messages on the port path (too large for the ring, or queued) share the table in order", async () => {
    const { a, b } = pair<unknown>({ ringSize: 4096 });
    const small = { alpha: 1, beta: "b" };
    const large = Array.from({ length: 200 }, (_, i) => ({ alpha: i, beta: "b".repeat(i % 7) }));
    const sent = [small, large, small, large, small];
    for (const v of sent) a.postMessage(v);
    const got: unknown[] = [];
    await new Promise<void>((resolve) => {
      b.onmessage = (e) => {
        got.push(e.data);
        if (got.length === sent.length) resolve();
      };
    });
    expect(got).toEqual(sent);
    a.close();
  });

  it("a custom type whose encode posts on the same channel: the inner message goes first, both read back", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    let end: ReturnType<typeof createChannel>["local"] | null = null;
    const types = [
      {
        name: "Point",
        class: Point,
        encode: (p: Point) => {
          end!.postMessage({ inner: { x: p.x } });
          return { x: p.x, y: p.y };
        },
        decode: (d: { x: number; y: number }) => new Point(d.x, d.y),
      },
    ];
    const { local, remote } = createChannel<unknown>({ types });
    end = local;
    const b = openChannel<unknown>(remote, { types });
    local.postMessage({ outer: { x: 0 }, p: new Point(1, 2) });
    local.postMessage({ outer: { x: 3 }, inner: { x: 4 } });
    expect(b.receiveSync(0)).toEqual({ message: { inner: { x: 1 } } });
    expect(b.receiveSync(0)).toEqual({ message: { outer: { x: 0 }, p: new Point(1, 2) } });
    expect(b.receiveSync(0)).toEqual({ message: { outer: { x: 3 }, inner: { x: 4 } } });
    local.close();
  });
});

describe("channel: a hostile peer and the shape table", () => {
  it("a stream message naming a shape the table does not hold is ERR_CHANNEL_CORRUPT (ERR_BAD_REFERENCE)", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    // 0xb6 0x81: a stream message extending the table, no references; 0xa5: a record of shape #5.
    const n = put(remote.rx!, 0, 0, new Uint8Array([0xb6, 0x81, 0xa5, 0x01]));
    Atomics.store(new Int32Array(remote.rx!, 0, 32), HEAD, n);
    let thrown: unknown;
    try {
      b.receiveSync(0);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StructuraError);
    expect(thrown).toMatchObject({ code: "ERR_CHANNEL_CORRUPT", cause: { code: "ERR_BAD_REFERENCE" } });
    expect(b.closed).toBe(true);
    a.close();
  });

  it("an unknown stream mode is ERR_CHANNEL_CORRUPT (ERR_VERSION)", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    const n = put(remote.rx!, 0, 0, new Uint8Array([0xb6, 0x85, 0x01]));
    Atomics.store(new Int32Array(remote.rx!, 0, 32), HEAD, n);
    expect(() => b.receiveSync(0)).toThrow(
      expect.objectContaining({
        code: "ERR_CHANNEL_CORRUPT",
        cause: expect.objectContaining({ code: "ERR_VERSION" }),
      }),
    );
    a.close();
  });

  it("shape definitions past the table's bound are ERR_CHANNEL_CORRUPT (a LimitError), memory bounded", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 1 << 22 });
    // Messages that only ever extend the table with new shapes of one 1,000-character key (about
    // 2,048 estimated bytes each): the reader must refuse the one that takes it past its bound.
    const key = "k".repeat(996);
    let at = 0;
    let seq = 0;
    const per = Math.ceil(DEFAULT_MAX_SHAPE_TABLE / 2048) + 2;
    for (; seq < per; seq++) {
      const k = `${key}${String(seq).padStart(4, "0")}`;
      // A SHAPE_DEF of that key in a stream message (a fresh session: mode reset, made extend below).
      const copy = encodeMessage({ [k]: 1 }, config, new EncodeSession(Number.MAX_SAFE_INTEGER)).slice();
      expect(copy.length).toBeGreaterThan(1000);
      copy[1] = 0x81; // extend, never reset: a writer that ignores the bound
      at += put(remote.rx!, at, seq, copy);
    }
    Atomics.store(new Int32Array(remote.rx!, 0, 32), HEAD, at);
    let thrown: unknown;
    let read = 0;
    try {
      for (;;) {
        b.receiveSync(0);
        read++;
      }
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "ERR_CHANNEL_CORRUPT", cause: { limit: "maxShapeTable" } });
    expect(read).toBeLessThan(per);
    expect(read).toBeGreaterThan(100);
    a.close();
  });

  it("a lost port message of a dead peer: the stream messages that extend the table after it are skipped, a reset or plain one is read", () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 4096 });
    const session = new EncodeSession(DEFAULT_MAX_SHAPE_TABLE);
    // What the lost message would have defined, and a message that uses it (extend mode).
    encodeMessage({ left: 1, right: 2 }, config, session);
    const extend = encodeMessage({ left: 3, right: 4 }, config, session).slice();
    expect(extend[1]! & 0x7f).toBe(0x01);
    const reset = encodeMessage({ up: 1 }, config, new EncodeSession(DEFAULT_MAX_SHAPE_TABLE)).slice();
    expect(reset[1]! & 0x7f).toBe(0x02);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    words[0] = KIND_PORT; // seq 0: its port message never comes
    words[1] = 0;
    let at = 8;
    at += put(remote.rx!, at, 1, extend);
    at += put(remote.rx!, at, 2, serialize("plain"));
    at += put(remote.rx!, at, 3, extend); // still extends the lost table: skipped
    at += put(remote.rx!, at, 4, reset);
    const ctrl = new Int32Array(remote.rx!, 0, 32);
    Atomics.store(ctrl, HEAD, at);
    Atomics.store(ctrl, CLOSED, 1);
    const got: unknown[] = [];
    try {
      for (;;) got.push(b.receiveSync(0)!.message);
    } catch (error) {
      expect(error).toMatchObject({ code: "ERR_CHANNEL_CLOSED" });
    }
    expect(got).toEqual(["plain", { up: 1 }]);
    a.close();
  });
});
