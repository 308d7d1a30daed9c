// Worker channel benchmark: structura's channel (SharedArrayBuffer rings, binary format) against the
// runtime's own Worker postMessage and MessageChannel, with real worker threads.
//
//   npm run build && node --expose-gc bench/channel.mjs      (Bun: npx bun bench/channel.mjs)
//   taskset -c 0 node --expose-gc bench/channel.mjs           both threads on one core (busy machine)
//   BENCH_QUICK=1 node bench/channel.mjs                      smoke test: rough, cold-JIT numbers
//   BENCH_TRANSPORTS=worker,port node bench/channel.mjs       only those (structura always)
//
// Round trip: the sender posts a message, the peer posts it back, p50/p99/mean over many trips (after as
// many warm-up trips: each peer is a fresh thread). One-way throughput: the sender posts N messages back
// to back, the peer counts them and answers the last; messages per second, the median of 3 bursts after
// 2 warm-up bursts (a fresh thread's first two run slower: its JIT and heap), and the CPU time of the
// process per message (both threads: on a loaded machine the steadier figure). Each case runs every
// transport in 5 interleaved rounds (BENCH_ROUNDS; a fresh peer each) and reports the medians of the
// rounds, so that the load drifting on a shared machine does not land in one transport's figures; the
// ratios are the medians of the rounds' own ratios (each round measures both sides within seconds),
// printed with their range over the rounds, which the verdicts show too.
// Transports, all with default options unless named: "structura" (peer reads with onmessage),
// "structura, receiveSync worker" (the peer blocks in receiveSync), "structura, spinMicros" (latency
// mode on both ends), "Worker postMessage", "MessageChannel" (a port transferred to the worker), and the
// same two between two workers, the main thread out of the way: "structura, worker↔worker" against
// "MessagePort, worker↔worker" (bench/workers/channel-driver.mjs).
//
// Run with `taskset -c 0` (or on a machine whose cores are all busy) the threads share one core: then the
// table is reported as `channel-one-core` and the same targets apply.

import os from "node:os";
import { Worker } from "node:worker_threads";
import { getCase } from "./data/reference.mjs";
import { roundTrip, SPIN_MICROS, throughput } from "./lib/channel-run.mjs";
import { createSuite, formatRatio, formatTime, loadBuilt, matchesFilter, settings } from "./lib/harness.mjs";

const distUrl = new URL("../dist/channel.js", import.meta.url).href;
const { createChannel, openChannel } = await loadBuilt(
  () => import(distUrl),
  ["createChannel", "openChannel"],
);
const binaryUrl = new URL("../dist/binary.js", import.meta.url).href;
const { serialize, deserialize } = await loadBuilt(() => import(binaryUrl), ["serialize", "deserialize"]);
const driverUrl = new URL("./workers/channel-driver.mjs", import.meta.url);
const quick = settings.quick;
const oneCore = (os.availableParallelism?.() ?? os.cpus().length) === 1;

// `hop`: the case's round trip is also measured over the channel's own wake-up mechanism (see hopFloor).
// Under Bun a 3 MB trip takes ~50-500 µs (its postMessage shares strings) with GC pauses in between: 30
// trips (10 a round) gave medians that moved 5× between runs, so it takes 300 there.
const isBun = typeof globalThis.Bun !== "undefined";
const cases = [
  { name: "string 11 chars", value: "hello world", rt: 4000, tp: 100_000, hop: true },
  { name: "string 14 KB", value: getCase("string 14 KB").value, rt: 2000, tp: 20_000, hop: true },
  { name: "string 3 MB", value: getCase("string 3 MB").value, rt: isBun ? 300 : 30, tp: 40 },
  { name: "[100 objects]", value: getCase("[100 objects]").value, rt: 3000, tp: 10_000, floor: true },
];
const allTransports = [
  "structura",
  "structura-sync",
  "structura-spin",
  "worker",
  "port",
  "w2w-structura",
  "w2w-port",
];
// BENCH_TRANSPORTS=worker,port measures only those (structura, the baseline, always; a worker↔worker
// transport brings its own baseline, structura worker↔worker, with it).
const picked = (process.env.BENCH_TRANSPORTS ?? "").split(",").filter(Boolean);
if (picked.some((t) => t.startsWith("w2w-"))) picked.push("w2w-structura");
const transports = allTransports.filter(
  (t) => picked.length === 0 || t === "structura" || picked.includes(t),
);
const labels = {
  structura: "structura",
  "structura-sync": "structura, receiveSync worker",
  "structura-spin": `structura, spinMicros ${SPIN_MICROS}, receiveSync worker`,
  worker: "Worker postMessage",
  port: "MessageChannel",
  "w2w-structura": "structura, worker↔worker",
  "w2w-port": "MessagePort, worker↔worker",
  "port-on": "floor: MessagePort, on('message') both sides",
  "hop-port-on": "floor: same, empty message (0)",
  "hop-worker": "floor: Worker postMessage, empty message (0)",
};
/**
 * The parked hop's floor, measured beside the `hop` cases (round trips only, same interleaved rounds):
 * a reader parked in its event loop is woken by a message on the channel's MessagePort, which the end
 * reads with Node's `on("message")` (no MessageEvent); on that path a string of up to 64 K units is
 * itself that message (a RAW record, see docs/channel.md, Wake-ups). So "port-on" (the same value over a
 * bare MessageChannel read the same way) is what a parked channel trip cannot undercut, and structura's
 * RT minus it is the channel's own work per trip. The empty-message trips show the wake-up alone, by
 * the channel's mechanism and by `Worker.postMessage` (the baseline): their difference is how much of
 * the race is decided before the channel does anything.
 */
const hopTransports = ["port-on", "hop-port-on", "hop-worker"];

/** Runs one measurement inside a driver worker (the worker↔worker transports). */
function inDriver(transport, kind, value, n, bursts, warmup) {
  return new Promise((resolve, reject) => {
    const w = new Worker(driverUrl, {
      workerData: { distUrl, transport: transport.slice(4), kind, value, n, bursts, warmup },
    });
    w.once("message", (r) => {
      resolve(r);
      void w.terminate();
    });
    w.once("error", reject);
  });
}

/** Measured one-way bursts per round (each after 2 warm-up bursts, see throughput). */
const BURSTS = 3;

/**
 * One round of one transport: `rt` round trips after `warmup` more, and one-way bursts of `tp`
 * messages (see throughput).
 */
async function measureRound(t, value, rt, warmup, tp) {
  if (hopTransports.includes(t)) {
    const v = t.startsWith("hop-") ? 0 : value;
    const transport = t.startsWith("hop-") ? t.slice(4) : t;
    return {
      ...(await roundTrip(createChannel, distUrl, transport, v, rt, warmup)),
      rate: Number.NaN,
      cpu: Number.NaN,
    };
  }
  if (t.startsWith("w2w-")) {
    return {
      ...(await inDriver(t, "rt", value, rt, 1, warmup)),
      ...(await inDriver(t, "tp", value, tp, quick ? 1 : BURSTS)),
    };
  }
  return {
    ...(await roundTrip(createChannel, distUrl, t, value, rt, warmup)),
    ...(await throughput(createChannel, distUrl, t, value, tp, quick ? 1 : BURSTS, quick ? 1 : 2)),
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
/** Milliseconds of CPU time of this process (user + system), where the host says; else wall time. */
const clock =
  typeof process.cpuUsage === "function"
    ? () => {
        const c = process.cpuUsage();
        return (c.user + c.system) / 1000;
      }
    : () => performance.now();

/** The median and range of per-round ratios `f(round of a, round of b)` (rounds are interleaved). */
function spread(a, b, f) {
  const xs = a.rounds.map((x, k) => f(x, b.rounds[k]));
  return { x: median(xs), lo: Math.min(...xs), hi: Math.max(...xs) };
}
/** `a`'s round-trip p50 over `b`'s. */
const rtRatio = (a, b) => spread(a, b, (x, y) => x.p50 / y.p50);
/** `a`'s time for a one-way burst over `b`'s (the inverse of the rates' ratio). */
const owRatio = (a, b) => spread(a, b, (x, y) => y.rate / x.rate);
const formatSpread = (r) =>
  r.lo === r.hi ? formatRatio(r.x) : `${formatRatio(r.x)} [${r.lo.toFixed(2)}–${r.hi.toFixed(2)}]`;

/**
 * Measures every transport in `rounds` interleaved rounds (each a fresh peer, warmed up as long as it
 * measures): on a shared machine the load drifts within seconds, and measuring one transport after
 * the other would put that drift into their ratios. Reports the median of the rounds.
 */
const ROUNDS = quick ? 1 : Number(process.env.BENCH_ROUNDS) >= 1 ? settings.rounds : 5;

async function measureAll(ts, value, rt, tp) {
  const rounds = ROUNDS;
  const per = Object.fromEntries(ts.map((t) => [t, []]));
  // Each fresh peer warms up with the case's whole trip count (at most 2000: the JIT of a fresh thread
  // needs that many, and the 3 MB case would take minutes), then measures its share of the trips.
  const trips = Math.ceil(rt / rounds);
  const warmup = Math.max(trips, Math.min(rt, 2000));
  for (let r = 0; r < rounds; r++) {
    for (const t of ts) per[t].push(await measureRound(t, value, trips, warmup, tp));
  }
  const out = {};
  for (const t of ts) {
    const rs = per[t];
    out[t] = {
      p50: median(rs.map((x) => x.p50)),
      p99: median(rs.map((x) => x.p99)),
      mean: rs.reduce((a, x) => a + x.mean, 0) / rs.length,
      rate: median(rs.map((x) => x.rate)),
      cpu: median(rs.map((x) => x.cpu)),
      rounds: rs,
    };
  }
  return out;
}

/**
 * The floor of a one-way stream on this thread, medians of 9 samples: what the channel's writer spends
 * per message (`post`: encode over the channel's shape table and copy into the ring, no reader awake,
 * so no wake-up) and its reader (`receive`: decode straight from the ring), both ends in this thread,
 * in batches that fit the (default, so warm) ring; beside them `serialize` and `deserialize` alone (a
 * plain message, its own shape table, the public entry points). On two cores the writer posts while
 * the reader receives, so the rate is at most 1 / post; on one core both run on it, so at most
 * 1 / (post + receive). Timed in CPU time (the process's: no other thread of it runs then), so that
 * time the machine gives to other processes does not count (measured wall time, the floor moved 2×
 * between runs at load 10).
 */
function floorOf(value, batch = 200) {
  const bytes = serialize(value);
  const batches = quick ? 2 : 10;
  const n = batches * batch;
  const enc = [];
  const dec = [];
  const copy = [];
  // The ring copy alone: the encoded bytes into shared memory, as the writer copies its encoder's
  // buffer into the ring (what encoding straight into the ring would save).
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength * 8));
  const post = [];
  const recv = [];
  const { local, remote } = createChannel();
  const reader = openChannel(remote);
  for (let r = 0; r < 9; r++) {
    let t0 = clock();
    for (let i = 0; i < n; i++) serialize(value);
    enc.push(((clock() - t0) * 1e6) / n);
    t0 = clock();
    for (let i = 0; i < n; i++) deserialize(bytes);
    dec.push(((clock() - t0) * 1e6) / n);
    t0 = clock();
    for (let i = 0; i < n; i++) shared.set(bytes, (i & 7) * bytes.byteLength);
    copy.push(((clock() - t0) * 1e6) / n);
    let p = 0;
    let q = 0;
    for (let b = 0; b < batches; b++) {
      t0 = clock();
      for (let i = 0; i < batch; i++) local.postMessage(value);
      const t1 = clock();
      for (let i = 0; i < batch; i++) reader.receiveSync(0);
      p += t1 - t0;
      q += clock() - t1;
    }
    post.push((p * 1e6) / n);
    recv.push((q * 1e6) / n);
  }
  local.close();
  reader.close();
  return {
    encode: median(enc),
    decode: median(dec),
    copy: median(copy),
    size: bytes.byteLength,
    post: median(post),
    receive: median(recv),
  };
}

function formatRate(r) {
  if (Number.isNaN(r)) return "—";
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

const suite = createSuite(oneCore ? "channel-one-core" : "channel", {
  title: `worker channel benchmark${oneCore ? " (one core: both threads share it)" : ""}`,
});
suite.header();
console.log(
  `          here: ${ROUNDS} interleaved round${ROUNDS === 1 ? "" : "s"} per case, each transport a fresh peer per round; medians of the rounds,\n` +
    `          ratios the median of the rounds' own ratios [their range]; one-way CPU: the process's (all its threads) per message\n`,
);
const results = {};
for (const c of cases) {
  if (!matchesFilter(c.name)) continue;
  const rt = quick ? Math.max(10, c.rt >> 4) : c.rt;
  const tp = quick ? Math.max(10, c.tp >> 4) : c.tp;
  const ts = c.hop && !quick ? [...transports, ...hopTransports] : transports;
  const res = (results[c.name] = await measureAll(ts, c.value, rt, tp));
  const base = res.structura;
  console.log(`${c.name}  (round trip ×${rt}, one-way ×${tp})`);
  const rows = [
    [
      "transport",
      "RT p50",
      "RT mean",
      "RT p99",
      "one-way",
      "one-way CPU",
      "RT p50 vs structura",
      "one-way vs structura",
    ],
  ];
  for (const t of ts) {
    const r = res[t];
    // worker↔worker rows compare with structura worker↔worker.
    const b = t.startsWith("w2w-") ? res["w2w-structura"] : base;
    const isBase = t === "structura" || t === "w2w-structura";
    const hop = hopTransports.includes(t);
    rows.push([
      labels[t],
      formatTime(r.p50),
      formatTime(r.mean),
      formatTime(r.p99),
      formatRate(r.rate),
      Number.isNaN(r.cpu) ? "—" : formatTime(r.cpu),
      isBase ? "baseline" : formatSpread(rtRatio(r, b)),
      isBase || hop ? (isBase ? "baseline" : "—") : formatSpread(owRatio(r, b)),
    ]);
  }
  table(rows);
  if (res["port-on"] !== undefined) {
    // The channel's post + receive of this value, both ends in this thread (the reader awake: the ring
    // path, what a trip costs the channel when no wake-up is needed), a batch that fits the ring.
    const f = floorOf(c.value, c.value.length > 1024 ? 16 : 200);
    const own = base.p50 - res["port-on"].p50;
    const vsWorker = res.worker === undefined ? "" : `; Worker postMessage ${formatTime(res.worker.p50)}`;
    console.log(
      `  parked-hop floor: the same value over the channel's mechanism ${formatTime(res["port-on"].p50)}` +
        `${vsWorker}; structura ${formatTime(base.p50)},\n` +
        `    so the channel's own work ${own < 0 ? `-${formatTime(-own)} (noise)` : formatTime(own)} per trip (${(base.p50 / res["port-on"].p50).toFixed(2)}× the mechanism's time);\n` +
        `    empty-message trips: MessagePort on() ${formatTime(res["hop-port-on"].p50)}, Worker postMessage ` +
        `${formatTime(res["hop-worker"].p50)};\n` +
        `    ring path, this thread (no wake-up): post ${formatTime(f.post)} + receive ${formatTime(f.receive)} per message\n`,
    );
  }
  if (c.floor) {
    const f = (res.floor = floorOf(c.value));
    const two = 1e9 / f.post;
    const one = 1e9 / (f.post + f.receive);
    const pm =
      res.worker === undefined ? "" : ` = ${(two / res.worker.rate).toFixed(2)}× Worker postMessage's rate`;
    const pm1 = res.worker === undefined ? "" : ` = ${(one / res.worker.rate).toFixed(2)}×`;
    const got = base.rate / (oneCore ? one : two);
    console.log(
      `  floor (this thread, now): channel post ${formatTime(f.post)}, receive ${formatTime(f.receive)} per message\n` +
        `    (serialize ${formatTime(f.encode)}, deserialize ${formatTime(f.decode)}; a ${f.size}-byte message's copy into\n` +
        `    shared memory ${formatTime(f.copy)}, what encoding straight into the ring would save);\n` +
        `    one-way at most ${formatRate(two)} when encode and decode overlap (two cores)${pm},\n` +
        `    ${formatRate(one)} when they share a core${pm1}; structura measured ${formatRate(base.rate)},\n` +
        `    ${(got * 100).toFixed(0)}% of the ${oneCore ? "one-core" : "two-core"} floor` +
        `${got >= 0.9 ? " (encoder-bound: the channel costs little above its post)" : " (the channel or the wake-ups cost above the floor)"}\n`,
    );
  }
  // For the harness's JSON report (BENCHMARKS.md): one row per transport, round-trip p50 as the median.
  suite.cases.push({
    name: c.name,
    results: transports.map((t) => ({
      name: t === "structura" ? "structura" : labels[t],
      stats: { p50: res[t].p50, p99: res[t].p99, avg: res[t].mean },
      ratio: res[t].p50 / (t.startsWith("w2w-") ? res["w2w-structura"].p50 : base.p50),
      extra: { mean: res[t].mean, p99: res[t].p99, rate: res[t].rate },
    })),
  });
}

// The issue's targets are read off the benchmark on Node; under Bun the lines are printed as SKIP with
// the figure, for reference.
const onNode = typeof globalThis.Bun === "undefined";
const verdict = (ok, detail) =>
  onNode
    ? { status: ok ? "PASS" : "MISS", detail }
    : { status: "SKIP", detail: `targets are for node; on bun: ${ok ? "PASS" : "MISS"} ${detail}` };
const skip = (why) => ({ status: "SKIP", detail: why });
const has = (r, ...ts) => r !== undefined && ts.every((t) => r[t] !== undefined);
suite.target("[100 objects] one-way throughput >= 3x Worker postMessage (default options)", () => {
  const r = results["[100 objects]"];
  if (!has(r, "worker")) return skip("case or transport filtered out");
  const x = owRatio(r.worker, r.structura);
  // The floor: the writer's post (serialize over the shape table, the ring copy) bounds the rate on
  // two cores, post + receive on one; says whether the channel itself costs anything above the encoder.
  const f = r.floor;
  const floor =
    f === undefined
      ? ""
      : `; floor ${(oneCore ? 1e9 / (f.post + f.receive) : 1e9 / f.post) / r.worker.rate >= 3 ? "allows" : "is below"} 3× ` +
        `(${((oneCore ? 1e9 / (f.post + f.receive) : 1e9 / f.post) / r.worker.rate).toFixed(2)}×: post ${formatTime(f.post)}, ` +
        `serialize alone ${formatTime(f.encode)})`;
  return verdict(
    x.x >= 3,
    `${formatRate(r.structura.rate)} vs ${formatRate(r.worker.rate)}: ${formatSpread(x)} (rounds' ratios)${floor}`,
  );
});
for (const name of ["string 11 chars", "string 3 MB"]) {
  suite.target(`${name} round-trip p50 <= 1.0x Worker postMessage's (default options)`, () => {
    const r = results[name];
    if (!has(r, "worker")) return skip("case or transport filtered out");
    const x = rtRatio(r.structura, r.worker);
    return verdict(
      x.x <= 1,
      `${formatTime(r.structura.p50)} vs ${formatTime(r.worker.p50)}: ${formatSpread(x)}`,
    );
  });
}
/** The worst case of `mine` against `theirs` over every measured case: round-trip p50 and one-way rate. */
function neverSlower(mine, theirs, label) {
  suite.target(`no case slower than ${label} (default options; round-trip p50 and one-way)`, () => {
    let worst = null;
    for (const [name, r] of Object.entries(results)) {
      for (const other of theirs) {
        if (!has(r, mine, other)) continue;
        for (const [x, what] of [
          [rtRatio(r[mine], r[other]), "round trip"],
          [owRatio(r[mine], r[other]), "one-way"],
        ]) {
          if (worst === null || x.x > worst.x.x) worst = { x, detail: `${name} ${what} vs ${labels[other]}` };
        }
      }
    }
    if (worst === null) return skip("case or transport filtered out");
    return verdict(worst.x.x <= 1, `worst: ${worst.detail}, ${formatSpread(worst.x)} its time`);
  });
}
neverSlower("structura", ["worker", "port"], "Worker postMessage or MessageChannel");
neverSlower("w2w-structura", ["w2w-port"], "a MessagePort between two workers");
suite.finish();
process.exit(0);
