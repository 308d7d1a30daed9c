// Measurement loops of bench/channel.mjs, shared by the main thread and bench/workers/channel-driver.mjs
// (which runs them inside a worker, to measure a channel and a MessagePort between two workers).
//
// Round trip: post a message, the peer posts it back; p50/p99 over many trips.
// One-way throughput: post N messages back to back, the peer counts them and answers the last one;
// messages per second (median of rounds) from the first post to that answer.

import { Worker } from "node:worker_threads";

const peerUrl = new URL("../workers/channel-peer.mjs", import.meta.url);
// Latency mode: a reader that has just sent polls for the answer this long before sleeping.
export const SPIN_MICROS = 200;

/** Starts a peer worker; returns { post(value), next(), stop() }. */
export async function connect(createChannel, distUrl, transport, mode, count) {
  const data = { transport, mode, count };
  const transferList = [];
  let post;
  let listen;
  let end = null;
  let mainPort = null;
  if (transport.startsWith("structura")) {
    const ch = createChannel(transport === "structura-spin" ? { spinMicros: SPIN_MICROS } : undefined);
    end = ch.local;
    data.lib = distUrl;
    data.channel = ch.remote;
    if (transport === "structura-spin") data.spinMicros = SPIN_MICROS;
    transferList.push(ch.remote.port);
    post = (v) => end.postMessage(v);
    listen = (fn) => {
      end.onmessage = (e) => fn(e.data);
    };
  } else if (transport === "port" || transport === "port-on") {
    const { port1, port2 } = new MessageChannel();
    mainPort = port1;
    data.port = port2;
    transferList.push(port2);
    post = (v) => port1.postMessage(v);
    // "port-on": the channel's own doorbell mechanism, a MessageChannel port read with Node's
    // `on("message")` (no MessageEvent) on both sides, as a channel end does where the port has `on`.
    listen =
      transport === "port-on" && typeof port1.on === "function"
        ? (fn) => port1.on("message", fn)
        : (fn) => {
            port1.onmessage = (e) => fn(e.data);
          };
  }
  const worker = new Worker(peerUrl, { workerData: data, transferList });
  if (transport === "worker") {
    post = (v) => worker.postMessage(v);
    listen = (fn) => worker.on("message", fn);
  }
  let handler = null;
  listen((v) => handler?.(v));
  // Wait until the worker answers (it is up and listening).
  const ready = mode === "echo" ? 1 : count;
  await new Promise((resolve) => {
    handler = resolve;
    for (let i = 0; i < ready; i++) post(0);
  });
  return {
    post,
    next: () => new Promise((resolve) => (handler = resolve)),
    async stop() {
      end?.close();
      mainPort?.close();
      await worker.terminate();
    },
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

export async function roundTrip(createChannel, distUrl, transport, value, iterations, warmup = iterations) {
  const peer = await connect(createChannel, distUrl, transport, "echo", 0);
  // Warm up (by default as long as we measure): the peer is a fresh thread, its JIT starts cold.
  for (let i = 0; i < warmup; i++) {
    const p = peer.next();
    peer.post(value);
    await p;
  }
  const times = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const p = peer.next();
    const t0 = performance.now();
    peer.post(value);
    await p;
    times[i] = (performance.now() - t0) * 1e6;
  }
  await peer.stop();
  times.sort();
  let sum = 0;
  for (const t of times) sum += t;
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), mean: sum / iterations };
}

/**
 * One-way throughput: `warmups` bursts of `count` messages (a fresh peer's JIT and heap: on Node 20 the
 * first two 100,000-message bursts of 11-char strings through a fresh worker took 2.0 and 0.5 µs of CPU
 * a message, the later ones 0.36-0.40), then `bursts` measured ones. Returns the median burst's rate
 * (messages per second, first post to the peer's answer to the last) and the CPU time of the whole
 * process per message over the measured bursts (`cpu`, ns: both threads, or all three between
 * workers; unlike the rate it does not count time the machine gave to other processes).
 */
export async function throughput(createChannel, distUrl, transport, value, count, bursts, warmups = 2) {
  const peer = await connect(createChannel, distUrl, transport, "sink", count);
  const rates = [];
  let cpu = 0;
  for (let r = 0; r < bursts + warmups; r++) {
    const done = peer.next();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < count; i++) peer.post(value);
    await done;
    const s = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    if (r >= warmups) {
      rates.push(count / s);
      cpu += c.user + c.system;
    }
  }
  await peer.stop();
  rates.sort((a, b) => a - b);
  return { rate: rates[rates.length >> 1], cpu: (cpu * 1000) / (count * bursts) };
}
