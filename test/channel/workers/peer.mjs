// A worker holding the far end of a channel, driven by `mode` (see test/channel/*.test.ts).
import { workerData } from "node:worker_threads";

const { openChannel } = await import(workerData.lib);
const { mode, args } = workerData;
class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
}
const pointType = {
  name: "Point",
  class: Point,
  encode: (p) => [p.x, p.y],
  decode: ([x, y]) => new Point(x, y),
};
// A thread with one CPU, as a channel end sees it (navigator.hardwareConcurrency is read first): its
// reply poll blocks in Atomics.wait (see src/channel/poll.ts, waitFor).
if (args?.oneCpu) globalThis.navigator = { hardwareConcurrency: 1 };
const end = openChannel(
  workerData.channel,
  mode === "echo-types" ? { types: [pointType] } : args?.spin ? { spinMicros: args.spin } : undefined,
);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A message of about `size` bytes carrying its index. */
function sized(i, size) {
  return { i, pad: "x".repeat(size) };
}

switch (mode) {
  case "echo":
    end.onmessage = (e) => end.postMessage(e.data);
    break;
  case "echo-types":
    // Echoes, adding whether the message arrived as this thread's Point class.
    end.onmessage = (e) => end.postMessage({ value: e.data, isPoint: e.data instanceof Point });
    break;
  case "echo-transfer":
    // Sends back each message, transferring every ArrayBuffer found at its `buffers` key.
    end.onmessage = (e) => end.postMessage(e.data, { transfer: e.data.buffers ?? [] });
    break;
  case "sync-echo":
    for (;;) {
      let got;
      try {
        got = end.receiveSync();
      } catch (error) {
        if (error.code !== "ERR_CHANNEL_CLOSED") throw error;
        break;
      }
      end.postMessage(got.message);
    }
    break;
  case "sync-timeout": {
    const t0 = performance.now();
    const first = end.receiveSync(args.timeout);
    const waited = performance.now() - t0;
    end.postMessage({ first: first === undefined ? "timeout" : first, waited });
    const second = end.receiveSync();
    end.postMessage({ second: second.message });
    const third = end.receiveSync(args.timeout);
    end.postMessage({ third: third === undefined ? "timeout" : third.message });
    break;
  }
  case "burst": {
    // Sends `count` messages, every `bigEvery`-th one large enough for the port path.
    for (let i = 0; i < args.count; i++) {
      const size = args.bigEvery && i % args.bigEvery === 0 ? args.bigSize : (i * 7) % 200;
      end.postMessage(sized(i, size));
    }
    if (args.thenClose) end.close();
    break;
  }
  case "bursts": {
    // `rounds` bursts of `count` messages (strings and small records), `gap` ms apart; the last of
    // each is marked.
    for (let r = 0; r < args.rounds; r++) {
      for (let i = 0; i < args.count; i++) {
        const n = r * args.count + i;
        if (i === args.count - 1) end.postMessage({ n, sentAt: performance.now() });
        else end.postMessage(i % 2 === 0 ? `m${n}` : { n });
      }
      await sleep(args.gap);
    }
    break;
  }
  case "burst-forever": {
    // Sends as fast as backpressure allows until terminated.
    for (let i = 0; ; i++) await end.send(sized(i, (i * 13) % 300));
  }
  case "slow-consumer": {
    let n = 0;
    let sum = 0;
    for await (const value of end) {
      n++;
      sum += value.i;
      if (n % 50 === 0) await sleep(5);
      if (n === args.count) break;
    }
    end.postMessage({ n, sum });
    break;
  }
  case "close-on-message":
    end.onmessage = (e) => {
      end.postMessage({ got: e.data });
      end.close();
    };
    break;
  case "report-close":
    // Counts messages until the other side closes, then reports through the parent port.
    {
      const { parentPort } = await import("node:worker_threads");
      let n = 0;
      end.onmessage = () => n++;
      end.addEventListener("close", () => parentPort.postMessage({ closed: true, n }));
    }
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
