// Opt-in stress test of structura/channel (not part of `npm test`):
//
//   npm run build && node test/stress/channel.stress.mjs
//   STRESS_MESSAGES=1000000 STRESS_SEED=7 node test/stress/channel.stress.mjs
//
// Sends STRESS_MESSAGES (default 10^7) messages of random sizes (ring path, port path, transferred
// buffers) from worker threads to this thread, in sessions of up to 200,000 messages. About one session
// in three is terminated at a random moment. Checks: every message arrives once, in order, intact; a
// killed session ends with a `close` event and delivers a gap-free prefix; a complete session delivers
// everything and then closes. Exits 1 on the first violation.

import { Worker } from "node:worker_threads";
import { sizeOf } from "./channel-sizes.mjs";

const lib = new URL("../../dist/channel.js", import.meta.url).href;
const { createChannel } = await import(lib);
const total = Number(process.env.STRESS_MESSAGES ?? 1e7);
let seed = Number(process.env.STRESS_SEED ?? Date.now() % 1e9) >>> 0;
const SESSION = 200_000;

function random() {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
}

function fail(message) {
  console.error(`FAIL: ${message} (STRESS_SEED=${process.env.STRESS_SEED ?? "random"})`);
  process.exit(1);
}

/** A long top-level string message ("i|" then n characters) as the object the others are. */
function fromText(text) {
  const bar = text.indexOf("|");
  const i = Number(text.slice(0, bar));
  return { i, n: text.length - bar - 1, s: text.slice(bar + 1), char: i % 10 === 7 ? 0xe9 : 97 + (i % 26) };
}

function check(m, expected) {
  if (typeof m === "string") m = fromText(m);
  if (m.i !== expected) fail(`message ${m.i} arrived where ${expected} was expected`);
  const n = sizeOf(m.i);
  if (m.n !== n) fail(`message ${m.i}: size ${m.n}, expected ${n}`);
  if (m.buf !== undefined) {
    const b = new Uint8Array(m.buf);
    if (b.length !== n + 1 || b[0] !== (m.i & 255) || b[n] !== (m.i & 255))
      fail(`message ${m.i}: bad buffer`);
  } else {
    const ch = m.char ?? 97 + (m.i % 26);
    if (m.s.length !== n || (n > 0 && (m.s.charCodeAt(0) !== ch || m.s.charCodeAt(n - 1) !== ch))) {
      fail(`message ${m.i}: bad string`);
    }
  }
}

async function session(from, to, kill) {
  const ringSize = [4096, 65536, 1 << 20][Math.floor(random() * 3)];
  const { local, remote } = createChannel({ ringSize });
  const worker = new Worker(new URL("./channel-sender.mjs", import.meta.url), {
    workerData: { lib, channel: remote, from, to },
    transferList: [remote.port],
  });
  worker.on("error", (e) => fail(`worker error: ${e.message}`));
  local.watch(worker);
  const killAt = kill ? from + Math.floor(random() * (to - from)) : -1;
  let killed = false;
  let next = from;
  let seen = -1;
  const watchdog = setInterval(() => {
    if (seen === next) {
      fail(
        `session ${from}..${to} (ring ${ringSize}, kill at ${killAt}) stalled at message ${next}, closed: ${local.closed}`,
      );
    }
    seen = next;
  }, 15_000);
  await new Promise((resolve) => {
    local.addEventListener("close", resolve);
    // A terminated worker exits with code 1, which the watched channel reports as its error: expected
    // in a killed session, a failure anywhere else.
    local.addEventListener("error", (e) => {
      if (!killed) fail(`channel error: ${e.error?.message}`);
    });
    local.onmessage = (e) => {
      check(e.data, next++);
      if (next === killAt) {
        killed = true;
        void worker.terminate();
      }
    };
  });
  clearInterval(watchdog);
  if (!kill && next !== to) fail(`session ${from}..${to}: closed after ${next - from} messages`);
  if (next > to) fail(`session ${from}..${to}: ${next - to} extra messages`);
  await worker.terminate();
  return next - from;
}

const t0 = performance.now();
let delivered = 0;
let sent = 0;
let sessions = 0;
let kills = 0;
while (sent < total) {
  const count = Math.min(SESSION, total - sent);
  const kill = random() < 1 / 3;
  kills += kill ? 1 : 0;
  delivered += await session(sent, sent + count, kill);
  sent += count;
  sessions++;
  const s = (performance.now() - t0) / 1000;
  console.log(
    `${sessions} sessions (${kills} killed), ${sent} messages sent, ${delivered} delivered and checked, ${s.toFixed(0)} s`,
  );
}
console.log(`PASS: ${delivered} messages checked in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
process.exit(0);
