// Worker channel benchmark: structura's channel (SharedArrayBuffer rings, binary format) against the
// runtime's own Worker postMessage and MessageChannel, with a real worker thread.
//
//   npm run build && node --expose-gc bench/channel.mjs      (Bun: npx bun bench/channel.mjs)
//   BENCH_QUICK=1 node bench/channel.mjs                      (smoke test, rough numbers)
//
// Round trip: the main thread posts a message, the worker posts it back, p50/p99 over many trips.
// One-way throughput: the main thread posts N messages back to back, the worker counts them and
// answers the last; messages per second (median of rounds) from the first post to that answer.
// Transports: "structura" (worker reads with onmessage), "structura, receiveSync" (the worker blocks
// in receiveSync: the synchronous worker API), "structura, spinMicros" (latency mode on both ends,
// worker in receiveSync), "Worker postMessage", "MessageChannel".

import { Worker } from "node:worker_threads";
import { getCase } from "./data/reference.mjs";
import { createSuite, formatRatio, formatTime, loadBuilt, matchesFilter, settings } from "./lib/harness.mjs";

const distUrl = new URL("../dist/channel.js", import.meta.url).href;
const { createChannel } = await loadBuilt(() => import(distUrl), ["createChannel", "openChannel"]);
const peerUrl = new URL("./workers/channel-peer.mjs", import.meta.url);
const quick = settings.quick;
// Latency mode: a reader that has just sent polls for the answer this long before sleeping.
const SPIN_MICROS = 200;

const cases = [
  { name: "string 11 chars", value: "hello world", rt: 4000, tp: 100_000 },
  { name: "string 14 KB", value: getCase("string 14 KB").value, rt: 2000, tp: 20_000 },
  { name: "string 3 MB", value: getCase("string 3 MB").value, rt: 40, tp: 60 },
  { name: "[100 objects]", value: getCase("[100 objects]").value, rt: 3000, tp: 30_000 },
];
const transports = ["structura", "structura-sync", "structura-spin", "worker", "port"];
const labels = {
  structura: "structura",
  "structura-sync": "structura, receiveSync worker",
  "structura-spin": `structura, spinMicros ${SPIN_MICROS}, receiveSync worker`,
  worker: "Worker postMessage",
  port: "MessageChannel",
};

/** Starts a peer worker; returns { post(value), onReply(fn), stop() }. */
async function connect(transport, mode, count) {
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
  } else if (transport === "port") {
    const { port1, port2 } = new MessageChannel();
    mainPort = port1;
    data.port = port2;
    transferList.push(port2);
    post = (v) => port1.postMessage(v);
    listen = (fn) => {
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
    let k = 0;
    handler = () => {
      if (mode === "echo" || ++k >= 1) resolve();
    };
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

async function roundTrip(transport, value, iterations) {
  const peer = await connect(transport, "echo", 0);
  const warm = Math.max(5, iterations >> 3);
  for (let i = 0; i < warm; i++) {
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
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function throughput(transport, value, count) {
  const peer = await connect(transport, "sink", count);
  const rates = [];
  const rounds = quick ? 1 : 3;
  for (let r = 0; r < rounds + 1; r++) {
    const done = peer.next();
    const t0 = performance.now();
    for (let i = 0; i < count; i++) peer.post(value);
    await done;
    const s = (performance.now() - t0) / 1000;
    if (r > 0 || rounds === 1) rates.push(count / s); // the first round warms up
  }
  await peer.stop();
  rates.sort((a, b) => a - b);
  return rates[rates.length >> 1];
}

function formatRate(r) {
  if (r >= 1e6) return `${(r / 1e6).toFixed(2)} M/s`;
  if (r >= 1e3) return `${(r / 1e3).toFixed(1)} k/s`;
  return `${r.toFixed(1)} /s`;
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const [k, r] of rows.entries()) {
    console.log(
      `  ${r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("   ")}`,
    );
    if (k === 0) console.log(`  ${widths.map((w) => "-".repeat(w)).join("   ")}`);
  }
  console.log("");
}

const suite = createSuite("channel", { title: "worker channel benchmark" });
suite.header();
const results = {};
for (const c of cases) {
  if (!matchesFilter(c.name)) continue;
  const rt = quick ? Math.max(10, c.rt >> 4) : c.rt;
  const tp = quick ? Math.max(10, c.tp >> 4) : c.tp;
  const res = (results[c.name] = {});
  for (const t of transports) {
    res[t] = { ...(await roundTrip(t, c.value, rt)), rate: await throughput(t, c.value, tp) };
  }
  const base = res.structura;
  console.log(`${c.name}  (round trip ×${rt}, one-way ×${tp})`);
  const rows = [["transport", "RT p50", "RT p99", "one-way", "RT p50 vs structura", "one-way vs structura"]];
  for (const t of transports) {
    const r = res[t];
    rows.push([
      labels[t],
      formatTime(r.p50),
      formatTime(r.p99),
      formatRate(r.rate),
      t === "structura" ? "baseline" : formatRatio(r.p50 / base.p50),
      t === "structura" ? "baseline" : formatRatio(base.rate / r.rate),
    ]);
  }
  table(rows);
  // For the harness's JSON report (BENCHMARKS.md): one row per transport, round-trip p50 as the median.
  suite.cases.push({
    name: c.name,
    results: transports.map((t) => ({
      name: t === "structura" ? "structura" : labels[t],
      stats: { p50: res[t].p50, p99: res[t].p99 },
      ratio: res[t].p50 / base.p50,
      extra: { p99: res[t].p99, rate: res[t].rate },
    })),
  });
}

// The targets are read off the benchmark on Node; under Bun the lines are printed as SKIP with
// the figure, for reference.
const onNode = typeof globalThis.Bun === "undefined";
const verdict = (ok, detail) =>
  onNode
    ? { status: ok ? "PASS" : "MISS", detail }
    : { status: "SKIP", detail: `targets are for node; on bun: ${ok ? "PASS" : "MISS"} ${detail}` };
const skip = { status: "SKIP", detail: "case filtered out" };
// Latency targets take structura's best configuration of the run (named in the detail): the default
// end, a worker blocked in receiveSync, or the opt-in latency mode (spinMicros).
const best = (r) =>
  ["structura", "structura-sync", "structura-spin"].reduce((a, b) => (r[b].p50 < r[a].p50 ? b : a));
suite.target("[100 objects] one-way throughput >= 5x Worker postMessage", () => {
  const r = results["[100 objects]"];
  if (!r) return skip;
  const x = r.structura.rate / r.worker.rate;
  return verdict(x >= 5, `${formatRate(r.structura.rate)} vs ${formatRate(r.worker.rate)}: ${x.toFixed(2)}×`);
});
suite.target("11-char string round-trip p50 <= 1/3 of Worker postMessage", () => {
  const r = results["string 11 chars"];
  if (!r) return skip;
  const b = best(r);
  const x = r[b].p50 / r.worker.p50;
  return verdict(
    x <= 1 / 3,
    `${labels[b]} ${formatTime(r[b].p50)} vs ${formatTime(r.worker.p50)}: ${x.toFixed(2)} of it`,
  );
});
suite.target("3 MB string round trip p50 <= 1/2 of Worker postMessage", () => {
  const r = results["string 3 MB"];
  if (!r) return skip;
  const b = best(r);
  const x = r[b].p50 / r.worker.p50;
  return verdict(
    x <= 1 / 2,
    `${labels[b]} ${formatTime(r[b].p50)} vs ${formatTime(r.worker.p50)}: ${x.toFixed(2)} of it`,
  );
});
suite.finish();
process.exit(0);
