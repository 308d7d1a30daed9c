import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { type ChannelOptions, createChannel } from "../../src/channel/index.ts";
import { AWAKE, READER_SLEEP, YIELDING } from "../../src/channel/ring.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { type Peer, startPeer, take } from "./helpers.ts";

// Where a thread has one CPU, an end's reply poll blocks in Atomics.wait instead of parking (see
// src/channel/poll.ts, waitFor): these run both ends (or the worker's) in that mode.

const peers: Peer[] = [];
afterAll(async () => {
  for (const p of peers) {
    p.end.close();
    await p.worker.terminate();
  }
});

/** Runs `fn` with navigator.hardwareConcurrency set to 1 (what a channel end reads first). */
function asOneCpu<T>(fn: () => Promise<T>): Promise<T> {
  const nav = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { value: { hardwareConcurrency: 1 }, configurable: true });
  return fn().finally(() => {
    if (nav === undefined) delete (globalThis as { navigator?: unknown }).navigator;
    else Object.defineProperty(globalThis, "navigator", nav);
  });
}

async function oneCpuPeer<T>(
  mode: string,
  options?: ChannelOptions,
  args: Record<string, unknown> = {},
): Promise<Peer<T>> {
  const p = await startPeer<T>(mode, { oneCpu: true, ...args }, options);
  peers.push(p as Peer);
  return p;
}

describe("channel ends with one CPU", () => {
  it("round-trips values of every path in order, both ends blocking for replies", async () => {
    // A 64 KiB ring: the 40,000-unit string (over a quarter of it) takes the port path.
    const { end } = await asOneCpu(() => oneCpuPeer<unknown>("echo", { ringSize: 1 << 16 }));
    const long = "y".repeat(40_000);
    const values = (i: number): unknown[] => [
      `s${i}`,
      "x".repeat(14_336) + i,
      { i, list: [1, 2, 3], text: `t${i}` },
      i % 10 === 0 ? long + i : i,
    ];
    for (let i = 0; i < 60; i++) {
      const sent = values(i);
      // One at a time (a reply per request: the waits are answered) ...
      for (const v of sent) {
        const got = take(end, 1);
        end.postMessage(v);
        expectSameStructure((await got)[0], v);
      }
      // ... and a burst (the reply wait sees several records).
      const got = take(end, sent.length);
      for (const v of sent) end.postMessage(v);
      const replies = await got;
      for (const [k, v] of sent.entries()) expectSameStructure(replies[k], v);
    }
  });

  it("a reader of bursts sleeps through them and still gets every message in order, none held back", async () => {
    // One CPU: the reader woken right after parking (a burst) sleeps unflagged instead of parking (see
    // ChannelEnd's #burstSleep); the last message of each burst must still arrive promptly once the
    // burst is over (the reader parks again and its doorbell works), not with the next burst, `gap` ms
    // later. With the default ring, then a 4 KiB one (the writer waits for room meanwhile).
    await readBursts(true);
  }, 30_000);

  it("so does a reader with several CPUs (the default here)", async () => {
    // Several CPUs: a burst is seen by a doorbell right after parking (a busy machine, polls off; on a
    // quiet one the stream poll reads it), and read by sleeping the same way.
    await readBursts(false);
  }, 30_000);

  it("an end that goes idle without answering releases a peer blocked for its reply", async () => {
    // The peer's side of it by hand: a thread flags its ring YIELDING and blocks on that flag, as
    // waitFor does; the end parks (it starts listening and finds nothing) and must wake it, long before the
    // wait's own end.
    const { local, remote } = createChannel();
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       const ctrl = new Int32Array(workerData.ring, 0, 32);
       Atomics.store(ctrl, ${READER_SLEEP}, ${YIELDING});
       parentPort.postMessage("waiting");
       const t0 = Date.now();
       const result = Atomics.wait(ctrl, ${READER_SLEEP}, ${YIELDING}, 4000);
       parentPort.postMessage({ result, flag: Atomics.load(ctrl, ${READER_SLEEP}), ms: Date.now() - t0 });`,
      { eval: true, workerData: { ring: remote.rx } },
    );
    try {
      const messages: unknown[] = [];
      const done = new Promise<void>((resolve) =>
        worker.on("message", (m) => {
          messages.push(m);
          if (m === "waiting") local.onmessage = () => {};
          else resolve();
        }),
      );
      await done;
      // "ok": woken by a notify ("not-equal" if the release came before the wait began: also woken).
      expect(messages[1]).toMatchObject({ flag: AWAKE });
      expect((messages[1] as { result: string }).result).not.toBe("timed-out");
    } finally {
      local.close();
      await worker.terminate();
    }
  });
});

/** A peer posts bursts; the last message of each must arrive promptly and every one in order. */
async function readBursts(oneCpu: boolean): Promise<void> {
  const rounds = 3;
  const count = 10_000;
  const gap = 400;
  for (const ringSize of [undefined, 1 << 12]) {
    const start = () =>
      startPeer<unknown>("bursts", { oneCpu, rounds, count, gap }, { ringSize }).then((p) => {
        peers.push(p as Peer);
        return p;
      });
    const { end } = await (oneCpu ? asOneCpu(start) : start());
    const lags: number[] = [];
    let n = 0;
    let last = 0;
    for await (const value of end) {
      const want = n;
      if (typeof value === "string") expect(value).toBe(`m${want}`);
      else expect((value as { n: number }).n).toBe(want);
      const now = performance.now();
      // The time since the message before it, for the last of each burst.
      if ((value as { sentAt?: number }).sentAt !== undefined) lags.push(now - last);
      last = now;
      if (++n === rounds * count) break;
    }
    expect(lags.length).toBe(rounds);
    // Held back until the next burst, it would come at least `gap` after the one before it.
    for (const lag of lags) expect(lag).toBeLessThan(gap / 2);
  }
}
