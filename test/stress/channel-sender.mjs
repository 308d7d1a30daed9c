// Worker for channel.stress.mjs: sends messages `from`..`to`-1 with pseudo-random sizes (seeded, so
// the main thread can check every one), then closes its end. Every 64th message is awaited (send) so
// that backpressure is exercised; some carry transferred buffers, some are too large for the ring, some
// are long top-level strings ("i|" and the characters).
import { workerData } from "node:worker_threads";
import { sizeOf } from "./channel-sizes.mjs";

const { openChannel } = await import(workerData.lib);
const end = openChannel(workerData.channel);
const { from, to } = workerData;

for (let i = from; i < to; i++) {
  const n = sizeOf(i);
  const ch = String.fromCharCode(97 + (i % 26));
  let msg;
  if (i % 997 === 0) {
    const buf = new ArrayBuffer(n + 1);
    new Uint8Array(buf).fill(i & 255);
    msg = end.send({ i, n, buf }, { transfer: [buf] });
  } else if (n > 8192 && i % 5 === 2) {
    // A long top-level string: a text record in the ring (ASCII, or UTF-8 for those ending in 7), or
    // the port when it is too long or the ring is full.
    const text = `${i}|${(i % 10 === 7 ? "\u00e9" : ch).repeat(n)}`;
    msg = i % 64 === 2 ? end.send(text) : end.postMessage(text);
  } else
    msg = i % 64 === 0 ? end.send({ i, n, s: ch.repeat(n) }) : end.postMessage({ i, n, s: ch.repeat(n) });
  if (msg) await msg;
}
end.close();
