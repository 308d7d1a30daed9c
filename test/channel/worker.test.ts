import { afterAll, describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { closeEvent, type Peer, sleep, startPeer, take } from "./helpers.ts";

const peers: Peer[] = [];
async function peer<T>(...args: Parameters<typeof startPeer>): Promise<Peer<T>> {
  const p = (await startPeer(...args)) as Peer<T>;
  peers.push(p as Peer);
  return p;
}

afterAll(async () => {
  for (const p of peers) {
    p.end.close();
    await p.worker.terminate();
  }
});

interface Sized {
  i: number;
  pad: string;
}

function expectSequence(got: Sized[], from = 0): void {
  for (let k = 0; k < got.length; k++) {
    if (got[k]!.i !== from + k) expect.fail(`message ${k} is ${got[k]!.i}, expected ${from + k}`);
  }
}

describe("channel with a worker thread", () => {
  it("round-trips every fixture value through a worker (ring and port paths)", async () => {
    const { end } = await peer<unknown>("echo", {}, { ringSize: 1 << 16 });
    const table = fixtures.filter((f) => !f.host);
    const replies = take(end, table.length);
    const sent = table.map((f) => f.make());
    for (const value of sent) end.postMessage(value);
    const got = await replies;
    table.forEach((f, k) => {
      const want = deserialize(serialize(sent[k]));
      try {
        expectSameStructure(got[k], want);
      } catch (error) {
        throw new Error(`fixture ${f.name}: ${(error as Error).message}`);
      }
    });
  });

  it("keeps order across both paths in a burst from the worker", async () => {
    const count = 20_000;
    const { end } = await peer<Sized>(
      "burst",
      { count, bigEvery: 97, bigSize: 40_000 },
      { ringSize: 1 << 16 },
    );
    const got = await take(end, count);
    expect(got).toHaveLength(count);
    expectSequence(got);
    expect(got[97]!.pad.length).toBe(40_000);
  });

  it("falls back to the port (binary format, transfer) with a worker too", async () => {
    const { end } = await peer<unknown>("echo-transfer", {}, { transport: "port" });
    expect(end.transport).toBe("port");
    const buf = new Uint8Array([5, 6, 7]).buffer;
    const value = { buffers: [buf], m: new Map([[1n, new Set([new Date(3)])]]), s: "s".repeat(20_000) };
    end.postMessage(value, [buf]);
    expect(buf.byteLength).toBe(0);
    const [back] = (await take(end, 1)) as [typeof value];
    expect([...new Uint8Array(back.buffers[0]!)]).toEqual([5, 6, 7]);
    expect(back.m).toEqual(new Map([[1n, new Set([new Date(3)])]]));
    expect(back.s).toBe(value.s);
  });

  it("carries custom types given to both ends", async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const types = [
      {
        name: "Point",
        class: Point,
        encode: (p: Point) => [p.x, p.y],
        decode: ([x, y]: number[]) => new Point(x!, y!),
      },
    ];
    const { end } = await peer<{ value: unknown; isPoint: boolean }>("echo-types", {}, { types });
    end.postMessage({ value: new Point(1, 2), isPoint: false } as never);
    end.postMessage(new Point(3, 4) as never);
    const [first, second] = await take(end, 2);
    expect(first!.isPoint).toBe(false);
    expect((first!.value as { value: Point }).value).toBeInstanceOf(Point);
    expect(second!.isPoint).toBe(true);
    expect(second!.value).toEqual(new Point(3, 4));
  });

  it("transfers ArrayBuffers both ways", async () => {
    const { end } = await peer<{ buffers: ArrayBuffer[]; view: Float64Array }>("echo-transfer");
    const a = new ArrayBuffer(1024);
    const b = new ArrayBuffer(8);
    new Float64Array(a)[3] = Math.PI;
    const view = new Float64Array(a, 8, 4);
    end.postMessage({ buffers: [a, b], view }, { transfer: [a, b] });
    expect(a.byteLength).toBe(0);
    expect(b.byteLength).toBe(0);
    const [back] = await take(end, 1);
    expect(back!.buffers[0]!.byteLength).toBe(1024);
    expect(back!.view.buffer).toBe(back!.buffers[0]);
    expect(back!.view[2]).toBe(Math.PI);
  });

  it("applies backpressure to a fast producer with a slow consumer, losing nothing", async () => {
    const count = 3000;
    const { end } = await peer<{ n: number; sum: number }>("slow-consumer", { count }, { ringSize: 4096 });
    let maxBuffered = 0;
    for (let i = 0; i < count; i++) {
      end.postMessage({ i, pad: "p".repeat(i % 100) } as never);
      maxBuffered = Math.max(maxBuffered, end.bufferedAmount);
    }
    expect(maxBuffered).toBeGreaterThan(0);
    const [report] = await take(end, 1);
    expect(report).toEqual({ n: count, sum: (count * (count - 1)) / 2 });
    expect(end.bufferedAmount).toBe(0);
  });

  it("send() lets a producer throttle without blocking its event loop", async () => {
    const count = 2000;
    const { end } = await peer<{ n: number; sum: number }>("slow-consumer", { count }, { ringSize: 4096 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    for (let i = 0; i < count; i++) {
      await end.send({ i, pad: "q".repeat(200) } as never);
      expect(end.bufferedAmount).toBe(0);
    }
    clearInterval(timer);
    const [report] = await take(end, 1);
    expect(report!.n).toBe(count);
    expect(ticks).toBeGreaterThan(0);
  });

  it("a worker terminated mid-burst closes the other end; what was published arrives intact", async () => {
    const { end, worker } = await peer<Sized>("burst-forever", {}, { ringSize: 1 << 14 });
    const got: Sized[] = [];
    const closed = closeEvent(end);
    end.onmessage = (e) => {
      got.push(e.data!);
      if (got.length === 5000) void worker.terminate();
    };
    await closed;
    expect(got.length).toBeGreaterThanOrEqual(5000);
    expectSequence(got);
    expect(end.closed).toBe(true);
    expect(() => end.postMessage({ i: 0, pad: "" })).toThrow(
      expect.objectContaining({ code: "ERR_CHANNEL_CLOSED" }),
    );
  });

  it("a worker that throws closes the other end", async () => {
    const { end, exited } = await peer<unknown>("no-such-mode");
    await closeEvent(end);
    await exited;
    expect(end.closed).toBe(true);
  });

  it("close from this side: the worker sees every message, then close", async () => {
    const { end, worker } = await peer<unknown>("report-close");
    const report = new Promise<{ closed: boolean; n: number }>((resolve) => worker.once("message", resolve));
    for (let i = 0; i < 1000; i++) end.postMessage(i);
    end.close();
    expect(await report).toEqual({ closed: true, n: 1000 });
  });

  it("close from the worker: this side gets the last message, then close", async () => {
    const { end } = await peer<{ got: string }>("close-on-message");
    const closed = closeEvent(end);
    const messages: unknown[] = [];
    end.onmessage = (e) => messages.push(e.data);
    end.postMessage("bye" as never);
    await closed;
    expect(messages).toEqual([{ got: "bye" }]);
  });

  it("burst then close from the worker: all messages, then close", async () => {
    const count = 5000;
    const { end } = await peer<Sized>(
      "burst",
      { count, bigEvery: 500, bigSize: 20_000, thenClose: true },
      {
        ringSize: 4096,
      },
    );
    const got: Sized[] = [];
    for await (const m of end) got.push(m);
    expect(got).toHaveLength(count);
    expectSequence(got);
  });

  it("receiveSync in a worker: echo loop, ends when this side closes", async () => {
    const { end, exited } = await peer<unknown>("sync-echo");
    const values = ["hello world", "x".repeat(14_000), "y".repeat(400_000), { a: [1, 2n, new Date(5)] }];
    const replies = take(end, values.length);
    for (const v of values) end.postMessage(v);
    expect(await replies).toEqual(values);
    end.close();
    expect(await exited).toBe(0);
  });

  it("latency mode (spinMicros on both ends): request/response in order, then a burst, then close", async () => {
    const { end, exited } = await peer<unknown>("sync-echo", { spin: 300 }, { spinMicros: 300 });
    const it = end[Symbol.asyncIterator]();
    for (let i = 0; i < 300; i++) {
      const value = i % 3 === 0 ? { i, s: "x".repeat(i) } : i % 3 === 1 ? `m${i}` : [i, BigInt(i)];
      end.postMessage(value);
      expect((await it.next()).value).toEqual(value);
    }
    // A burst nobody answers until it is all sent: the poll after sending gives up and sleeps.
    for (let i = 0; i < 2000; i++) end.postMessage(i);
    for (let i = 0; i < 2000; i++) expect((await it.next()).value).toBe(i);
    end.close();
    expect(await exited).toBe(0);
  });

  it("receiveSync with and without a timeout", async () => {
    const { end, worker } = await peer<Record<string, unknown>>("sync-timeout", { timeout: 100 });
    const it = end[Symbol.asyncIterator]();
    const first = (await it.next()).value!;
    expect(first.first).toBe("timeout");
    expect(first.waited as number).toBeGreaterThanOrEqual(90);
    await sleep(50);
    end.postMessage({ later: true });
    expect((await it.next()).value).toEqual({ second: { later: true } });
    end.postMessage("quick" as never);
    expect((await it.next()).value).toEqual({ third: "quick" });
    await worker.terminate();
  });

  it("a terminated peer wakes a receiveSync blocked on the channel (via watch)", async () => {
    const { end, worker, exited } = await peer<unknown>("sync-echo");
    end.postMessage(1);
    await take(end, 1);
    await worker.terminate();
    await exited;
    await closeEvent(end);
    expect(() => end.receiveSync()).toThrow(expect.objectContaining({ code: "ERR_CHANNEL_CLOSED" }));
  });
});
