import { describe, expect, it } from "vitest";
import { createChannel, openChannel } from "../../src/channel/index.ts";
import { CONTROL_BYTES, HEAD, KIND_ASCII, KIND_RAW, KIND_WRAP } from "../../src/channel/ring.ts";
import { sharesStrings } from "../../src/channel/text.ts";
import { StructuraError } from "../../src/core/errors.ts";
import { closeEvent, sleep, take } from "./helpers.ts";

/** Both ends in this thread. */
function pair<T>(options?: Parameters<typeof createChannel>[0]) {
  const { local, remote } = createChannel<T>(options);
  return { a: local, b: openChannel<T>(remote), remote };
}

describe("channel in one thread", () => {
  it("carries values both ways over the ring", async () => {
    const { a, b } = pair<unknown>();
    expect(a.transport).toBe("ring");
    a.postMessage({ hello: "world", n: 1n, d: new Date(0), m: new Map([[1, 2]]) });
    const [got] = await take(b, 1);
    expect(got).toEqual({ hello: "world", n: 1n, d: new Date(0), m: new Map([[1, 2]]) });
    b.postMessage("back");
    expect(await take(a, 1)).toEqual(["back"]);
    a.close();
    b.close();
  });

  it("keeps order across the ring and the port path, through many wrap-arounds", async () => {
    const { a, b } = pair<{ i: number; pad: string }>({ ringSize: 4096, largeMessageShare: 0.25 });
    const n = 3000;
    const received = take(b, n);
    for (let i = 0; i < n; i++) {
      const size = i % 17 === 0 ? 2000 : (i * 31) % 400;
      a.postMessage({ i, pad: "y".repeat(size) });
    }
    const got = await received;
    expect(got.map((m) => m.i)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(got[17]!.pad.length).toBe(2000);
    a.close();
  });

  it("small strings to a parked reader go on the port as they are, in order with ring, text and port messages", async () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 1 << 16 });
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    const got: unknown[] = [];
    b.onmessage = (e) => got.push(e.data);
    await sleep(5); // b has parked
    a.postMessage("first");
    // Its ring record is a RAW marker: the string itself is on the port (it is the doorbell too).
    expect(words[0]).toBe(KIND_RAW);
    const sent: unknown[] = ["first"];
    const long = "z".repeat(20_000);
    const huge = "h".repeat(40_000); // past the ring's share: the port path
    for (let i = 0; i < 400; i++) {
      const k = i % 7;
      const v =
        k === 0
          ? `s${i}`
          : k === 1
            ? { i }
            : k === 2
              ? `${long}${i}`
              : k === 3
                ? `${huge}${i}`
                : k === 4
                  ? ""
                  : `t${i}`;
      if (k === 5) {
        const buf = new Uint8Array([i & 255]).buffer;
        a.postMessage({ i, buf }, [buf]);
        sent.push({ i, buf: new Uint8Array([i & 255]).buffer });
      } else {
        a.postMessage(v);
        sent.push(v);
      }
      // Now and then let b drain and park, so that both the raw path and the ring path are taken.
      if (i % 5 === 0) await sleep(0);
    }
    while (got.length < sent.length) await sleep(2);
    expect(got).toEqual(sent);
    a.close();
  });

  it("receiveSync takes a string that went on the port to a parked reader", async () => {
    const { a, b, remote } = pair<unknown>();
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    b.onmessage = () => {};
    await sleep(5);
    b.onmessage = null; // parked, no longer reading
    a.postMessage("on the port");
    a.postMessage({ next: "the ring" });
    expect(words[0]).toBe(KIND_RAW);
    expect(b.receiveSync(0)).toEqual({ message: "on the port" });
    expect(b.receiveSync(0)).toEqual({ message: { next: "the ring" } });
    expect(b.receiveSync(0)).toBeUndefined();
    a.close();
  });

  // Bun shares a posted string, so there long strings stay on the port (src/channel/text.ts).
  it.skipIf(sharesStrings)(
    "writes long strings into the ring as text records, exactly, and past its room through the port",
    async () => {
      const { a, b, remote } = pair<string>({ ringSize: 1 << 17 });
      // What `a` writes is the ring `b` reads: look at the kind of its first record.
      const firstKind = () => new Int32Array(remote.rx!, CONTROL_BYTES, 1)[0];
      const ascii = "a".repeat(9000);
      a.postMessage(ascii);
      expect(firstKind()).toBe(KIND_ASCII);
      expect(await take(b, 1)).toEqual([ascii]);
      const cases = [
        `\uFEFF${"b".repeat(9000)}`, // a leading BOM is data
        "é".repeat(9000), // UTF-8, fits the ring's share (32 KiB)
        "😀".repeat(4200),
        "\u00ff".repeat(9000),
        `${"x".repeat(9000)}\uD800`, // a lone surrogate: through the port, as it is
        `\uDC00${"y".repeat(9000)}`,
        "é".repeat(17000), // 34,000 bytes of UTF-8: over the ring's share, through the port
        "z".repeat(70000), // longer than the share: its bytes through the port, in a transferred buffer
        "é".repeat(70000), // the same as UTF-8
        `${"w".repeat(70000)}\uDBFF`, // a lone surrogate: the string itself through the port
      ];
      // Many more than the 128 KiB ring holds at once: the rest takes the port meanwhile, in order.
      const all: string[] = [];
      for (let k = 0; k < 12; k++) all.push(...cases);
      const received = take(b, all.length);
      for (const s of all) a.postMessage(s);
      const got = await received;
      expect(got.length).toBe(all.length);
      for (let i = 0; i < all.length; i++) expect(got[i] === all[i], `message ${i}`).toBe(true);
      a.close();
    },
  );

  // One long string at a time, each read before the next is sent: every one after the first reuses
  // the sender's shared bulk buffer (grown when a string needs more), whatever its length or encoding.
  it.skipIf(sharesStrings)(
    "long strings read one at a time through the reused shared buffer, exactly",
    async () => {
      // A small ring: every one of these takes the port.
      const { a, b } = pair<string>({ ringSize: 1 << 16 });
      const strings = [
        "q".repeat(300_000),
        "r".repeat(100_000), // shorter than the buffer: only its own bytes are read
        "é".repeat(200_000), // UTF-8, more bytes than the buffer has: it grows
        "s".repeat(120_000),
        `${"t".repeat(90_000)}\uD800`, // a lone surrogate: the string itself through the port
        "😀".repeat(70_000),
        "u".repeat(400_000),
      ];
      // What the sender posts: the bulk buffer of each string that went through it.
      const shared: (SharedArrayBuffer | null)[] = [];
      const post = MessagePort.prototype.postMessage;
      MessagePort.prototype.postMessage = function (this: MessagePort, message: unknown, ...rest: never[]) {
        const k = (message as { k?: unknown } | null)?.k;
        if (typeof message === "object" && message !== null && "s" in message) {
          shared.push(k instanceof SharedArrayBuffer ? k : null);
        }
        return post.call(this, message, ...rest);
      } as typeof post;
      try {
        for (const s of strings) {
          const got = take(b, 1);
          a.postMessage(s);
          const [r] = await got;
          expect(r === s, `${s.length} units`).toBe(true);
        }
      } finally {
        MessagePort.prototype.postMessage = post;
      }
      // Every string but the lone surrogate's went through a shared buffer: the first one's, reused, then
      // one grown for the UTF-8 (three bytes a unit), reused by all the later ones.
      expect(
        shared.map((k) => (k === null ? "x" : k === shared[0] ? "first" : k === shared[2] ? "grown" : "?")),
      ).toEqual(["first", "first", "grown", "grown", "x", "grown", "grown"]);
      a.close();
      b.close();
    },
  );

  it.skipIf(sharesStrings)("a text record written where the ring wraps keeps the order", async () => {
    const { a, b, remote } = pair<unknown>({ ringSize: 1 << 16 });
    const ctrl = new Int32Array(remote.rx!, 0, CONTROL_BYTES >> 2);
    const words = new Int32Array(remote.rx!, CONTROL_BYTES);
    const capacity = 1 << 16;
    let wrapped = 0;
    // Each round leaves the write position somewhere else; 40 rounds wrap the 64 KiB ring many times.
    for (let i = 0; i < 40; i++) {
      const s = String.fromCharCode(97 + (i % 26)).repeat(9000 + 37 * i);
      const padLength = (i * 997) % 3000;
      a.postMessage({ pad: "p".repeat(padLength) });
      const pos = Atomics.load(ctrl, HEAD) & (capacity - 1);
      a.postMessage(s);
      if (capacity - pos < 12 + s.length) {
        // Not enough room before the end: a wrap marker there, the text record at 0.
        expect(words[pos >> 2]).toBe(KIND_WRAP);
        expect(words[0]).toBe(KIND_ASCII);
        wrapped++;
      }
      const [pad, text] = await take(b, 2);
      expect((pad as { pad: string }).pad.length).toBe(padLength);
      expect(text === s).toBe(true);
    }
    expect(wrapped).toBeGreaterThan(0);
    a.close();
  });

  it("falls back to the port with the binary format, and says so", async () => {
    const { a, b } = pair<unknown>({ transport: "port" });
    expect(a.transport).toBe("port");
    expect(b.transport).toBe("port");
    const buf = new Uint8Array([1, 2, 3]).buffer;
    a.postMessage({ x: 1n, buf }, { transfer: [buf] });
    a.postMessage(new Set(["s"]));
    expect(buf.byteLength).toBe(0);
    const got = (await take(b, 2)) as [{ x: bigint; buf: ArrayBuffer }, Set<string>];
    expect(got[0].x).toBe(1n);
    expect([...new Uint8Array(got[0].buf)]).toEqual([1, 2, 3]);
    expect(got[1]).toEqual(new Set(["s"]));
    expect(() => b.receiveSync(0)).toThrow(StructuraError);
    a.close();
    await closeEvent(b);
  });

  it("refuses what serialize refuses, synchronously, and bad transfer lists", () => {
    const { a, b } = pair<unknown>();
    expect(() => a.postMessage({ f: () => 1 })).toThrow(expect.objectContaining({ name: "DataCloneError" }));
    const sab = new SharedArrayBuffer(8);
    expect(() => a.postMessage(1, { transfer: [sab] })).toThrow(
      expect.objectContaining({ name: "DataCloneError" }),
    );
    const buf = new ArrayBuffer(4);
    expect(() => a.postMessage(buf, { transfer: [buf, buf] })).toThrow(
      expect.objectContaining({ name: "DataCloneError" }),
    );
    expect(() => a.postMessage(1, { transfer: [1] as unknown[] })).toThrow(TypeError);
    expect(buf.byteLength).toBe(4);
    a.close();
    b.close();
    expect(() => a.postMessage(1)).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CLOSED" }));
  });

  it("transfers ArrayBuffers without copying them into the ring, views keep their buffer", async () => {
    const { a, b } = pair<{ buf: ArrayBuffer; view: Uint8Array; buffers: ArrayBuffer[] }>();
    const buf = new ArrayBuffer(16);
    new Uint8Array(buf).set([9, 8, 7]);
    a.postMessage({ buf, view: new Uint8Array(buf, 1, 2), buffers: [buf] }, [buf]);
    expect(buf.byteLength).toBe(0);
    const [got] = await take(b, 1);
    expect(got!.view.buffer).toBe(got!.buf);
    expect(got!.buffers[0]).toBe(got!.buf);
    expect([...got!.view]).toEqual([8, 7]);
    a.close();
  });

  it("applies backpressure: send() waits for room, drain fires, nothing lost", async () => {
    const { a, b } = pair<number[]>({ ringSize: 4096 });
    const payload = Array.from({ length: 100 }, (_, i) => i);
    let drained = 0;
    a.addEventListener("drain", () => drained++);
    for (let i = 0; i < 200; i++) a.postMessage([i, ...payload]);
    expect(a.bufferedAmount).toBeGreaterThan(0);
    // A transferred buffer is detached at once, even though its message waits in the queue.
    const buf = new Uint8Array([42]).buffer;
    const queuedBytes = a.bufferedAmount;
    a.postMessage([-2, buf] as never, [buf]);
    expect(buf.byteLength).toBe(0);
    expect(a.bufferedAmount).toBeGreaterThan(queuedBytes);
    const last = a.send([-1]);
    const got = await take(b, 202);
    await last;
    expect(a.bufferedAmount).toBe(0);
    expect(drained).toBeGreaterThan(0);
    expect(got.slice(0, 200).map((m) => m[0])).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect([...new Uint8Array(got[200]![1] as unknown as ArrayBuffer)]).toEqual([42]);
    expect(got[201]).toEqual([-1]);
    a.close();
  });

  it("delivers to onmessage and addEventListener, and close ends the iterator", async () => {
    const { a, b } = pair<number>();
    const seen: number[] = [];
    const done = new Promise<void>((resolve) => {
      b.onmessage = (e) => {
        seen.push(e.data!);
        if (seen.length === 3) resolve();
      };
    });
    const also: number[] = [];
    b.addEventListener("message", (e) => also.push(e.data!));
    a.postMessage(1);
    a.postMessage(2);
    a.postMessage(3);
    await done;
    expect(seen).toEqual([1, 2, 3]);
    expect(also).toEqual([1, 2, 3]);
    const closed = closeEvent(b);
    a.close();
    await closed;
    expect(b.closed).toBe(true);
  });

  it("reports a corrupt ring as ERR_CHANNEL_CORRUPT and closes", async () => {
    const { a, b, remote } = pair<unknown>();
    // Forge a record in the ring b reads: a length that runs past the published bytes.
    const ctrl = new Int32Array(remote.rx!, 0, 32);
    const words = new Int32Array(remote.rx!, 128);
    words[0] = 5000;
    words[1] = 0;
    Atomics.store(ctrl, 0, 16);
    const errors: unknown[] = [];
    b.addEventListener("error", (e) => errors.push(e.error));
    const closed = closeEvent(b);
    b.onmessage = () => {};
    expect(await closed).toBeInstanceOf(StructuraError);
    expect(errors).toHaveLength(1);
    expect((errors[0] as StructuraError).code).toBe("ERR_CHANNEL_CORRUPT");
    a.close();
  });

  it("reports bytes that do not decode as ERR_CHANNEL_CORRUPT from receiveSync", () => {
    const { a, b, remote } = pair<unknown>();
    const ctrl = new Int32Array(remote.rx!, 0, 32);
    const bytes = new Uint8Array(remote.rx!, 128);
    const words = new Int32Array(remote.rx!, 128);
    words[0] = 4;
    words[1] = 0;
    bytes.set([0xff, 0xff, 0xff, 0xff], 8);
    Atomics.store(ctrl, 0, 16);
    expect(() => b.receiveSync(0)).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CORRUPT" }));
    expect(b.closed).toBe(true);
    a.close();
  });

  it("receiveSync: timeout, then a message, then closed", () => {
    const { a, b } = pair<string>();
    expect(b.receiveSync(0)).toBeUndefined();
    expect(b.receiveSync(20)).toBeUndefined();
    a.postMessage("one");
    a.postMessage("z".repeat(600_000)); // port path, taken synchronously
    expect(b.receiveSync(1000)).toEqual({ message: "one" });
    expect(b.receiveSync(1000)?.message.length).toBe(600_000);
    a.close();
    expect(() => b.receiveSync()).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CLOSED" }));
  });

  it("validates options and handles", () => {
    expect(() => createChannel({ ringSize: -1 })).toThrow(StructuraError);
    expect(() => createChannel({ largeMessageShare: 0.9 })).toThrow(StructuraError);
    expect(() => openChannel({} as never)).toThrow(StructuraError);
  });

  it("a drain listener that posts while a later post flushes the queue corrupts nothing", async () => {
    // The sender writes straight from the encoder's buffer; a listener run by a flush inside
    // postMessage posts too, and must not overwrite the bytes of the message being sent.
    const { a, b } = pair<string>({ ringSize: 4096 });
    const n = 300;
    const body = (i: number) => `${i}:${String.fromCharCode(97 + (i % 26)).repeat(200 + (i % 50))}`;
    let extra = 0;
    a.addEventListener("drain", () => {
      a.postMessage(`drain ${extra++}`);
    });
    const got: string[] = [];
    b.onmessage = (e) => {
      got.push(e.data as string);
    };
    for (let i = 0; i < n; i++) {
      a.postMessage(body(i));
      if (i % 25 === 24) await new Promise((r) => setTimeout(r, 1));
    }
    for (let k = 0; k < 500 && got.length < n + extra; k++) await new Promise((r) => setTimeout(r, 5));
    expect(extra).toBeGreaterThan(0);
    expect(got.length).toBe(n + extra);
    const bodies = got.filter((s) => !s.startsWith("drain"));
    expect(bodies).toEqual(Array.from({ length: n }, (_, i) => body(i)));
    expect(got.filter((s) => s.startsWith("drain"))).toEqual(
      Array.from({ length: extra }, (_, i) => `drain ${i}`),
    );
    a.close();
  });

  it("latency mode backs off when the peer cannot answer (both ends in one thread, as on a shared core)", async () => {
    // The end polls for an answer that cannot come while it polls (the peer runs on this thread).
    // Without the back-off every round trip would poll the full 50 ms at least once.
    const { a, b } = pair<number>({ spinMicros: 50_000 });
    b.onmessage = (e) => b.postMessage(e.data as number);
    const trips = 40;
    const t0 = performance.now();
    for (let i = 0; i < trips; i++) {
      const reply = new Promise<number>((resolve) => {
        a.onmessage = (e) => resolve(e.data as number);
      });
      a.postMessage(i);
      expect(await reply).toBe(i);
    }
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeLessThan((trips * 50) / 2);
    a.close();
  });
});
