// Value-stream benchmark: many values through one byte stream, structura against msgpackr's stream
// classes, NDJSON, and (between processes) Node's own child-process IPC.
//
//   npm run build && node --expose-gc bench/stream.mjs      (or: npm run bench -- stream)
//   BENCH_QUICK=1 node --expose-gc bench/stream.mjs          smoke test (fewer values, one round)
//   BENCH_FILTER=process node --expose-gc bench/stream.mjs   only the process-to-process cases
//   BENCH_ROUNDS=7                                           rounds per implementation (default 5)
//   BENCH_INNER=3                                            in process: timed runs per fresh process (default 2)
//   BENCH_ROWS=node,web/structura,web/floor ×2               in process: only these groups or group/label rows
//   BENCH_FRESH=0                                            in process: every row in this one process (old way)
//   BENCH_CONSUME=each                                       in process: let each value go (default: collect)
//   BENCH_WARM_WEB=1                                         in process: every row's process keeps a WHATWG pipeline
//                                                            alive (see warmWebStreams; a diagnostic, not the verdict)
//
// In process, each implementation carries every value of a case from an encoder to a decoder through
// the stream classes it offers, and the figure is the time for all of them (GC included). The rows come
// in two groups, one per stream family, each with its own floor and baseline:
//   web:  WHATWG streams (structura encodeStream → decodeStream, NDJSON over TransformStreams); the
//         floor moves the same values through one identity TransformStream (a value written into a
//         stream once and read out of one once: the plumbing alone, under any per-value codec).
//   node: Node streams and async iterables, each library in the form it recommends in Node (structura
//         Readable.from(encodeFrames(values)) → decodeFrames, msgpackr PackrStream → UnpackrStream in
//         pipeline(), NDJSON over Node Transforms); the floor moves the values through one identity
//         object-mode PassThrough in pipeline(), read by for await.
// The node group is the headline: the issue's targets are for Node, msgpackr's stream classes are
// Node Transforms, and a Node program reading a socket, a pipe or a file holds Node streams. The web
// group is what the same code costs where only WHATWG streams exist (Deno, browsers), and in Node
// Node's WHATWG streams cost several times more per value than its Node streams (compare the floors).
// A third group has no stream: structura's synchronous frame encoder and decoder, its decoder alone on
// chunks encoded before the round, its encoder alone (chunks let go), and an allocation floor (the same
// values built by hand in JS and kept by the same consumer: what any decoder pays for the objects it
// makes, before decoding anything). The node row's NDJSON target line prints these beside it: how much
// of the time 1.5× NDJSON leaves structura the allocation floor takes, and how far the row is above it.
// Between processes, a Node parent sends every value to a Node child, which
// sends each back; the figure is the time until the last echo arrived.
//
// In process, every row runs in fresh processes of its own: each round starts one process per row (A B
// C, then B C A, then C A B, ...: no row always follows the same one), which builds the case's data
// (deterministic, the same in every process), runs its row once untimed (the result check, and the
// warm-up), then times it BENCH_INNER times, each after a forced GC; the GC a run causes is in its
// time. Rows measured in one process distorted each other: which rows ran before decided how many
// fresh pages (minor faults) a row paid, 7.5k–12k a round, and adding one floor row moved the headline
// row from 267–380 to 498 ms (strm7). Between processes (and with BENCH_FRESH=0) the rows run in
// interleaved rounds in this process, after a forced GC each. The table shows the median and the mean over the rounds (wall clock) and, in process, the
// median CPU time of the process (process.cpuUsage: user + system, GC helper threads included) and the
// median count of minor page faults (fresh memory touched: see minorFaults), which a
// busy machine distorts less than the wall clock. Targets are judged on medians, means beside them.
// A result is checked once (count and first/last value) before it is timed.

import { fork, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { loadavg } from "node:os";
import path from "node:path";
import { PassThrough, Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { getCase } from "./data/reference.mjs";
import {
  formatRatio,
  formatTime,
  isBun,
  loadBuilt,
  machine,
  matchesFilter,
  runtime,
} from "./lib/harness.mjs";

const { PackrStream, UnpackrStream } = await import("msgpackr");
const stream = await loadBuilt(
  () => import("../dist/stream.js"),
  [
    "encodeStream",
    "decodeStream",
    "encodeFrames",
    "decodeFrames",
    "createEncoder",
    "createDecoder",
    "connect",
  ],
);

const quick = process.env.BENCH_QUICK === "1";
const ROUNDS = quick ? 1 : Number(process.env.BENCH_ROUNDS) || 5;
const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * What the in-process consumer does with the values: `collect` (default) keeps every decoded value until
 * the run ends, as a consumer that gathers them all; `each` (BENCH_CONSUME=each) looks at each value
 * and lets it go, as a consumer that handles values as they arrive. Collecting 100,000 records or a
 * million small objects makes V8 promote the whole decoded graph to its old generation during the run:
 * that GC work is the same for every implementation and is most of the time of the `[100 objects]` case,
 * and it is what varies most between runs on a shared machine.
 */
const CONSUME = process.env.BENCH_CONSUME === "each" ? "each" : "collect";

/** The values a run delivered: their count, the first and the last (and all of them when collecting). */
class Sink {
  n = 0;
  first = undefined;
  last = undefined;
  all = CONSUME === "collect" ? [] : null;
  push(value) {
    if (this.n++ === 0) this.first = value;
    this.last = value;
    if (this.all !== null) this.all.push(value);
  }
}

/** Small records as an RPC or log stream carries them: one shape, a Date, a nested object, an array. */
function records(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push({
      id: i,
      name: `user-${i}`,
      email: `user${i}@example.com`,
      active: i % 3 !== 0,
      score: ((i * 7919) % 1000) / 10,
      createdAt: new Date(1_700_000_000_000 + i * 60_000),
      address: { city: i % 2 ? "Springfield" : "Shelbyville", zip: 10000 + (i % 9000) },
      tags: i % 2 ? ["a", "b"] : ["c"],
    });
  }
  return out;
}

/** JSON data only (for NDJSON and JSON IPC, which would turn a Date into a string). */
function jsonRecords(n) {
  return records(n).map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

const hundred = getCase("[100 objects]").value;

/**
 * Allocation floors: each case's values built again by hand-written JavaScript (object literals, the
 * strings shared with the originals, as a decoder that shares repeated strings gives them) and handed to
 * the same consumer. No bytes, no parsing: what making and keeping the decoded values costs the heap
 * (allocation, page faults, GC promotion of everything kept) before any codec runs. Every decoder in a
 * case pays at least this; with the default consumer (collect) it is most of the [100 objects] case.
 */
function rebuildRecord(r) {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    active: r.active,
    score: r.score,
    createdAt: new Date(r.createdAt.getTime()),
    address: { city: r.address.city, zip: r.address.zip },
    tags: r.tags.length === 2 ? [r.tags[0], r.tags[1]] : [r.tags[0]],
  };
}
function rebuildHundred(list) {
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const o = list[i];
    out[i] = { id: o.id, name: o.name, active: o.active };
  }
  return out;
}

/**
 * The cases. Their values are made on first use (the same deterministic data in every process): the
 * parent of the fresh-process runs never builds them, each child builds only its own case's.
 */
function makeCase(name, n, make, makeJson, rebuild) {
  let values;
  let json;
  return {
    name,
    get values() {
      values ??= make(n);
      return values;
    },
    get json() {
      json ??= makeJson(n);
      return json;
    },
    rebuild,
  };
}

const cases = [
  makeCase("100,000 records", quick ? 10_000 : 100_000, records, jsonRecords, rebuildRecord),
  makeCase(
    "10,000 × [100 objects]",
    quick ? 1000 : 10_000,
    (n) => Array.from({ length: n }, () => hundred),
    (n) => Array.from({ length: n }, () => hundred),
    rebuildHundred,
  ),
];

// ---------------------------------------------------------------------------------------------------
// In-process implementations: values in, values out, through each library's stream classes.

function webSource(values) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      // Enqueue in small batches: a source that produces values as fast as the pipe takes them.
      for (let n = 0; n < 64 && i < values.length; n++) controller.enqueue(values[i++]);
      if (i === values.length) controller.close();
    },
  });
}

/** The same values in arrays of 64 (for `batch: true`). */
function webBatches(values) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      controller.enqueue(values.slice(i, i + 64));
      i += 64;
      if (i >= values.length) controller.close();
    },
  });
}

async function drainBatches(readable) {
  const out = new Sink();
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    for (let i = 0; i < value.length; i++) out.push(value[i]);
  }
}

async function drainWeb(readable) {
  const out = new Sink();
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function drainNode(readable) {
  const out = new Sink();
  for await (const value of readable) out.push(value);
  return out;
}

const ndjsonEncoder = new TextEncoder();

/** NDJSON over WHATWG streams: JSON.stringify + LF out, split on LF + JSON.parse in. */
function ndjsonEncode() {
  return new TransformStream({
    transform(value, controller) {
      controller.enqueue(ndjsonEncoder.encode(`${JSON.stringify(value)}\n`));
    },
  });
}
function ndjsonDecode() {
  const decoder = new TextDecoder();
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const text = rest + decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let lf = text.indexOf("\n"); lf >= 0; lf = text.indexOf("\n", start)) {
        if (lf > start) controller.enqueue(JSON.parse(text.slice(start, lf)));
        start = lf + 1;
      }
      rest = text.slice(start);
    },
    flush(controller) {
      if (rest.length > 0) controller.enqueue(JSON.parse(rest));
    },
  });
}

/** NDJSON over Node streams, as a Node program would write it: the same work in Node Transforms. */
function ndjsonNodeEncode() {
  return new Transform({
    writableObjectMode: true,
    transform(value, _encoding, callback) {
      callback(null, `${JSON.stringify(value)}\n`);
    },
  });
}
function ndjsonNodeDecode() {
  const decoder = new StringDecoder("utf8");
  let rest = "";
  return new Transform({
    readableObjectMode: true,
    transform(chunk, _encoding, callback) {
      const text = rest + decoder.write(chunk);
      let start = 0;
      for (let lf = text.indexOf("\n"); lf >= 0; lf = text.indexOf("\n", start)) {
        if (lf > start) this.push(JSON.parse(text.slice(start, lf)));
        start = lf + 1;
      }
      rest = text.slice(start);
      callback();
    },
    flush(callback) {
      if (rest.length > 0) this.push(JSON.parse(rest));
      callback();
    },
  });
}

/** Values from `source` through Node streams `transforms` into a for-await consumer. */
async function nodePipeline(source, ...transforms) {
  const last = transforms.at(-1);
  const collected = drainNode(last);
  await pipeline(source, ...transforms);
  return collected;
}

/**
 * The synchronous core without stream plumbing: frames batched into 64 KiB chunks by the caller, each
 * chunk handed to `onChunk` (by default decoded at once into `out`).
 */
function structuraFrames(values, onChunk = null) {
  const encoder = stream.createEncoder();
  const decoder = onChunk === null ? stream.createDecoder() : null;
  const out = new Sink();
  let parts = [];
  let bytes = 0;
  const flush = () => {
    const chunk = new Uint8Array(bytes);
    let at = 0;
    for (const p of parts) {
      chunk.set(p, at);
      at += p.length;
    }
    parts = [];
    bytes = 0;
    if (onChunk !== null) return onChunk(chunk);
    const got = decoder.push(chunk);
    for (let i = 0; i < got.length; i++) out.push(got[i]);
  };
  for (let i = 0; i < values.length; i++) {
    const frame = encoder.encode(values[i]);
    parts.push(frame);
    bytes += frame.length;
    if (bytes >= 65_536) flush();
  }
  if (bytes > 0) flush();
  decoder?.end();
  return out;
}

/** A case's frames in 64 KiB chunks, made once (outside any timed round) for the decode-only row. */
const chunkCache = new Map();
function chunksOf(c) {
  let chunks = chunkCache.get(c);
  if (chunks === undefined) {
    chunks = [];
    structuraFrames(c.values, (chunk) => chunks.push(chunk));
    chunkCache.set(c, chunks);
  }
  return chunks;
}

/** The decode half alone: the case's chunks (encoded before the round) into values. */
function structuraDecodeOnly(c) {
  const chunks = chunksOf(c);
  const decoder = stream.createDecoder();
  const out = new Sink();
  for (let k = 0; k < chunks.length; k++) {
    const got = decoder.push(chunks[k]);
    for (let i = 0; i < got.length; i++) out.push(got[i]);
  }
  decoder.end();
  return out;
}

/** The allocation floor: the values built again by hand and kept (see `rebuildRecord`). */
function allocationFloor(c) {
  const out = new Sink();
  const { values, rebuild } = c;
  for (let i = 0; i < values.length; i++) out.push(rebuild(values[i]));
  return out;
}

function inProcess(c) {
  return [
    // web: WHATWG streams
    {
      name: "structura encodeStream → decodeStream",
      group: "web",
      label: "structura",
      run: () =>
        drainWeb(webSource(c.values).pipeThrough(stream.encodeStream()).pipeThrough(stream.decodeStream())),
      want: () => c.values,
    },
    {
      name: "structura encodeStream → decodeStream, batch: true",
      group: "web",
      label: "batched",
      run: () =>
        drainBatches(
          webBatches(c.values)
            .pipeThrough(stream.encodeStream({ batch: true }))
            .pipeThrough(stream.decodeStream({ batch: true })),
        ),
      want: () => c.values,
    },
    {
      name: "structura text (NDJSON-style) streams",
      group: "web",
      label: "text",
      run: () =>
        drainWeb(
          webSource(c.values)
            .pipeThrough(stream.encodeStream({ format: "text" }))
            .pipeThrough(stream.decodeStream({ format: "text" })),
        ),
      want: () => c.values,
    },
    {
      name: "NDJSON over TransformStreams",
      group: "web",
      label: "ndjson",
      run: () => drainWeb(webSource(c.json).pipeThrough(ndjsonEncode()).pipeThrough(ndjsonDecode())),
      want: () => c.json,
    },
    {
      name: "floor: one identity TransformStream",
      group: "web",
      label: "floor",
      run: () => drainWeb(webSource(c.values).pipeThrough(new TransformStream())),
      want: () => c.values,
    },
    {
      // What any encoder → decoder pair of TransformStreams pays before it encodes a byte: the values
      // written into two streams in a row and read out of the second (two queues, two promises each).
      name: "floor: two identity TransformStreams in a row",
      group: "web",
      label: "floor ×2",
      run: () =>
        drainWeb(webSource(c.values).pipeThrough(new TransformStream()).pipeThrough(new TransformStream())),
      want: () => c.values,
    },
    // node: Node streams and async iterables
    {
      name: "structura Readable.from(encodeFrames(values)) → decodeFrames",
      group: "node",
      label: "structura",
      run: async () => {
        const out = new Sink();
        for await (const value of stream.decodeFrames(Readable.from(stream.encodeFrames(c.values))))
          out.push(value);
        return out;
      },
      want: () => c.values,
    },
    {
      name: "structura, values from an object-mode Readable",
      group: "node",
      label: "from readable",
      run: async () => {
        const source = Readable.from(c.values, { objectMode: true });
        const out = new Sink();
        for await (const value of stream.decodeFrames(Readable.from(stream.encodeFrames(source))))
          out.push(value);
        return out;
      },
      want: () => c.values,
    },
    {
      name: "msgpackr PackrStream → UnpackrStream",
      group: "node",
      label: "msgpackr",
      run: () =>
        nodePipeline(Readable.from(c.values, { objectMode: true }), new PackrStream(), new UnpackrStream()),
      want: () => c.values,
    },
    {
      name: "NDJSON over Node Transforms",
      group: "node",
      label: "ndjson",
      run: () =>
        nodePipeline(Readable.from(c.json, { objectMode: true }), ndjsonNodeEncode(), ndjsonNodeDecode()),
      want: () => c.json,
    },
    {
      name: "floor: one identity object-mode PassThrough",
      group: "node",
      label: "floor",
      run: () =>
        nodePipeline(Readable.from(c.values, { objectMode: true }), new PassThrough({ objectMode: true })),
      want: () => c.values,
    },
    // no stream at all
    {
      name: "structura createEncoder/createDecoder (64 KiB chunks)",
      group: "sync",
      label: "frames",
      run: async () => structuraFrames(c.values),
      want: () => c.values,
    },
    {
      name: "structura createDecoder alone (chunks encoded before)",
      group: "sync",
      label: "decode only",
      run: async () => structuraDecodeOnly(c),
      want: () => c.values,
    },
    {
      // The writer's share of a round: every value encoded into 64 KiB chunks that are let go.
      name: "structura createEncoder alone (chunks let go)",
      group: "sync",
      label: "encode only",
      run: async () => {
        let n = 0;
        structuraFrames(c.values, () => n++);
        return { n: c.values.length, first: c.values[0], last: c.values.at(-1), chunks: n };
      },
      want: () => c.values,
    },
    {
      name: "floor: the values built by hand in JS and kept, no bytes",
      group: "sync",
      label: "alloc floor",
      run: async () => allocationFloor(c),
      want: () => c.values,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Between processes: a Node parent, a Node child that echoes every value.

const peerLib = path.join(here, "..", "dist", "stream.js");

async function structuraProcess(values) {
  const child = spawn(process.execPath, [path.join(here, "workers", "stream-echo.mjs"), peerLib], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const connection = stream.connect(child.stdout, child.stdin);
  const out = [];
  const reading = (async () => {
    for await (const value of connection) {
      out.push(value);
      if (out.length === values.length) break;
    }
  })();
  for (let i = 0; i < values.length; i++) await connection.send(values[i]);
  await reading;
  await connection.close();
  await once(child, "exit");
  return out;
}

async function forkProcess(values, serialization) {
  const child = fork(path.join(here, "workers", "ipc-echo.mjs"), [], { serialization, stdio: "inherit" });
  const out = [];
  const done = new Promise((resolve) => {
    child.on("message", (value) => {
      out.push(value);
      if (out.length === values.length) resolve();
    });
  });
  await once(child, "spawn");
  for (let i = 0; i < values.length; i++) {
    // Honour the channel's backpressure as a careful sender would.
    if (!child.send(values[i])) await new Promise((r) => setImmediate(r));
  }
  await done;
  child.disconnect();
  await once(child, "exit");
  return out;
}

function betweenProcesses(c) {
  return [
    {
      name: "structura connect() over the child's stdio",
      label: "structura",
      run: () => structuraProcess(c.values),
      want: () => c.values,
    },
    {
      name: 'Node fork IPC, serialization: "advanced"',
      label: "advanced",
      run: () => forkProcess(c.values, "advanced"),
      want: () => c.values,
    },
    {
      name: "Node fork IPC, JSON",
      label: "json ipc",
      run: () => forkProcess(c.json, "json"),
      want: () => c.json,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------

/** `out`: a Sink (in process) or an array (between processes). */
function checked(out, want) {
  // A Sink, an array, or (the encoder alone) { n, first, last } of the values it encoded.
  const summary = out instanceof Sink || !Array.isArray(out);
  const n = summary ? out.n : out.length;
  const first = summary ? out.first : out[0];
  const last = summary ? out.last : out.at(-1);
  if (n !== want.length) return `${n} values instead of ${want.length}`;
  if (!isDeepStrictEqual(first, want[0]) || !isDeepStrictEqual(last, want.at(-1))) return "wrong values";
  return true;
}

/**
 * One implementation's timed runs in this process: `runs` times a forced GC, then one run timed (wall,
 * CPU of the process, minor page faults). The result is dropped inside the promise chain: `await
 * impl.run()` would leave it in this suspended function's register until the next run's result
 * replaced it, so the forced GC before the next run kept the last run's values alive (55 MB for
 * [100 objects]: 132 instead of 78 MB of heap at the start of every row but the floors'; --trace-gc).
 */
async function timeRuns(impl, runs, into) {
  for (let k = 0; k < runs; k++) await timeOnce(impl, into);
}

async function timeOnce(impl, into) {
  globalThis.gc?.();
  const faults = minorFaults();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await impl.run().then(drop);
  into.times.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  into.cpu.push((used.user + used.system) / 1000);
  into.faults.push(minorFaults() - faults);
}

/** Checks an implementation's result once (also its warm-up): true, or why it is not usable. */
async function verdictOf(impl) {
  try {
    return checked(await impl.run(), impl.want());
  } catch (error) {
    return String(error?.message ?? error);
  }
}

/**
 * In a child (BENCH_STREAM_CHILD="<case>|<group>/<label>"): the one implementation, checked once (its
 * warm-up), then timed INNER times; the samples go to stdout as one JSON line after RESULT_MARK.
 */
const CHILD = process.env.BENCH_STREAM_CHILD;
const RESULT_MARK = "@@stream-bench-result ";
/** Timed runs per fresh process (after the untimed check run). */
const INNER = Math.max(1, Number(process.env.BENCH_INNER) || 2);
/** In-process rows each in fresh processes (default), or all in this one (BENCH_FRESH=0, the old way). */
const FRESH = process.env.BENCH_FRESH !== "0";

const keyOf = (impl) => `${impl.group}/${impl.label}`;

async function runChild() {
  const bar = CHILD.indexOf("|");
  const c = cases.find((x) => x.name === CHILD.slice(0, bar));
  const impl = c && inProcess(c).find((i) => keyOf(i) === CHILD.slice(bar + 1));
  if (impl === undefined) throw new Error(`no such row: ${CHILD}`);
  if (process.env.BENCH_WARM_WEB === "1") await warmWebStreams();
  const verdict = await verdictOf(impl);
  const out = { verdict, times: [], cpu: [], faults: [] };
  if (verdict === true) await timeRuns(impl, INNER, out);
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(out)}\n`);
}

/**
 * BENCH_WARM_WEB=1: a small source → TransformStream → TransformStream → reader pipeline, stopped by
 * backpressure and kept alive for the whole process, in every row's process. Every timed run follows a
 * forced full GC, which (once the previous run's streams have died) frees the hidden classes of Node's
 * WHATWG stream objects and with them the engine's optimized stream code, so each run of a web row
 * re-tiers that code (structura's encodeStream/decodeStream keep such a pipeline themselves since
 * strm11; NDJSON's row and the floors do not). With this set, every row runs with that code kept
 * optimized: what the rows cost in a process where streams are always alive. The default (unset) is
 * the verdict's setting: each row as it runs after a full GC with no other stream alive.
 */
async function warmWebStreams() {
  const item = {};
  const source = new ReadableStream({ pull: (controller) => controller.enqueue(item) });
  const reader = source
    .pipeThrough(new TransformStream({ transform: (_, controller) => controller.enqueue(new Uint8Array(1)) }))
    .pipeThrough(new TransformStream({ transform: (_, controller) => controller.enqueue(item) }))
    .getReader();
  for (let i = 0; i < 8; i++) await reader.read();
  const idle = new ReadableStream();
  const stalled = idle.pipeThrough(new TransformStream()).pipeThrough(new TransformStream()).getReader();
  globalThis.benchWarmWebStreams = [source, reader, idle, stalled, stalled.read()];
}

/** One fresh process for one row of a case: its samples, or why it is not usable. */
function runFresh(c, impl) {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_STREAM_CHILD: `${c.name}|${keyOf(impl)}` },
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  const line = child.stdout?.split("\n").find((l) => l.startsWith(RESULT_MARK));
  if (child.status !== 0 || line === undefined) {
    return { verdict: `the child process failed (status ${child.status}, ${child.signal ?? "no signal"})` };
  }
  return JSON.parse(line.slice(RESULT_MARK.length));
}

/**
 * Samples for every row of a case. Fresh (in process, default): each round starts one fresh process
 * per row, the rows' order rotated from round to round, and each process times its row INNER times
 * after one untimed check run: no row inherits another's heap, fresh pages or JIT state, and whatever
 * the machine does at one moment is spread over all rows. Otherwise (between processes, or
 * BENCH_FRESH=0) all rows run in this process, rotated the same way, one run each per round.
 */
async function sample(c, impls, fresh) {
  const live = [];
  if (fresh) {
    const all = impls.map((impl) => ({ ...impl, times: [], cpu: [], faults: [], failed: null }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < all.length; k++) {
        const impl = all[(round + k) % all.length];
        if (impl.failed !== null) continue;
        const got = runFresh(c, impl);
        if (got.verdict !== true) {
          impl.failed = got.verdict;
          continue;
        }
        impl.times.push(...got.times);
        impl.cpu.push(...got.cpu);
        impl.faults.push(...got.faults);
      }
    }
    for (const impl of all) {
      if (impl.failed !== null) console.log(`  ${impl.name}: n/a (${impl.failed})`);
      else live.push(impl);
    }
    return live;
  }
  for (const impl of impls) {
    const verdict = await verdictOf(impl);
    if (verdict !== true) console.log(`  ${impl.name}: n/a (${verdict})`);
    else live.push({ ...impl, times: [], cpu: [], faults: [] });
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round: whatever one implementation leaves behind (heap, caches, a busy
    // neighbour process) does not always land on the same next one.
    for (let k = 0; k < live.length; k++) {
      const impl = live[(round + k) % live.length];
      await timeOnce(impl, impl);
    }
  }
  return live;
}

/** BENCH_ROWS: the in-process rows to run, as groups (`node`) or rows (`web/floor ×2`); all by default. */
const ROWS = process.env.BENCH_ROWS ? process.env.BENCH_ROWS.split(",").map((r) => r.trim()) : null;
const rowWanted = (impl) => ROWS === null || ROWS.includes(impl.group) || ROWS.includes(keyOf(impl));

async function measure(name, c, all) {
  if (!matchesFilter(name)) return;
  const impls = name.startsWith("in process") ? all.filter(rowWanted) : all;
  console.log(`\n${name}`);
  const inProcess = name.startsWith("in process");
  const live = await sample(c, impls, inProcess && FRESH);
  // Ratios against the structura row of the same group (stream family); rows without a structura
  // row in their group (the synchronous core) against the headline (node) structura row.
  const baseOf = (group) =>
    live.find((i) => i.group === group && i.label === "structura") ??
    live.find((i) => i.group === "node" && i.label === "structura") ??
    live.find((i) => i.label === "structura");
  let group = null;
  for (const impl of live) {
    if (inProcess && impl.group !== group) {
      group = impl.group;
      console.log(`  ${GROUP_TITLES[group] ?? group}`);
    }
    const base = baseOf(impl.group);
    const m = mean(impl.times);
    const med = median(impl.times);
    const cpu = median(impl.cpu);
    const faults = median(impl.faults);
    const ratio = base
      ? `${formatRatio(med / median(base.times))} (means ${formatRatio(m / mean(base.times))}${inProcess ? `, CPU ${formatRatio(cpu / median(base.cpu))}` : ""})`
      : "";
    console.log(
      `  ${impl.name.padEnd(62)} median ${formatTime(med * 1e6).padStart(9)}  mean ${formatTime(m * 1e6).padStart(9)}${inProcess ? `  CPU ${formatTime(cpu * 1e6).padStart(9)}` : ""}${inProcess && faults >= 0 ? `  faults ${String(Math.round(faults)).padStart(6)}` : ""}  ${impl === base ? "(baseline)" : `${ratio} structura's time`}`,
    );
    results.push({
      case: name,
      group: impl.group,
      impl: impl.label,
      meanMs: m,
      medianMs: med,
      cpuMs: cpu,
      faults,
    });
  }
}

function drop() {}

/**
 * The process's minor page faults so far (-1 where the runtime does not count them). A row's median is
 * printed beside its CPU time: a fault is a fresh page of memory touched for the first time, and how
 * many of them a row pays depends on what the heap kept mapped from the rows before it (40 MB of fresh
 * pages cost a [100 objects] round 100-170 ms of system time on the 2-core VM; 11 MB in a run of two
 * rows), which is most of why one build's row moves between runs.
 */
function minorFaults() {
  return typeof process.resourceUsage === "function" ? process.resourceUsage().minorPageFault : -1;
}

const GROUP_TITLES = {
  web: "web: WHATWG streams (Deno, browsers, and Node where WHATWG streams are wanted)",
  node: "node: Node streams and async iterables (headline: the form a Node program uses)",
  sync: "no stream: the synchronous frame encoder and decoder (64 KiB chunks), the decoder alone, the encoder alone, the allocation floor",
};

function mean(t) {
  return t.reduce((a, b) => a + b, 0) / t.length;
}

/** The median (the mean of the middle two for an even count). */
function median(t) {
  const sorted = [...t].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const results = [];
if (CHILD !== undefined) {
  await runChild();
  process.exit(0);
}
console.log("structura · stream benchmark");
console.log(
  `runtime:  ${isBun ? "bun" : "node"} ${runtime.version} · cpu: ${machine.cpu} × ${machine.cores}`,
);
console.log(
  FRESH
    ? `rounds:   in process, ${ROUNDS} rounds; each round runs every row in a fresh process of its own (order rotated), which checks it once untimed and then times it ${INNER}× (BENCH_INNER): ${ROUNDS * INNER} samples a row; times include GC (BENCH_FRESH=0: all rows in this process)`
    : `rounds:   ${ROUNDS} per implementation, all in this process, interleaved and rotated; times include GC`,
);
console.log(
  `consumer: ${CONSUME === "collect" ? "collects every decoded value (BENCH_CONSUME=each: handles each and lets it go)" : "handles each decoded value and lets it go (BENCH_CONSUME=each)"}`,
);
console.log(
  `load:     ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (1, 5, 15 min)`,
);
for (const c of cases) await measure(`in process: ${c.name}`, c, inProcess(c));
if (!isBun) for (const c of cases) await measure(`process to process: ${c.name}`, c, betweenProcesses(c));

// Targets (issue: Node, medians; in process ≥ 1.5× NDJSON and ≥ msgpackr's stream classes; ≥ 2× advanced IPC).
console.log(`\ntargets (medians; means beside; in process the node group is the headline):`);
const find = (c, group, impl) => results.find((r) => r.case === c && r.group === group && r.impl === impl);
for (const c of cases) {
  const lines = [
    [`in process: ${c.name}`, "node", "ndjson", 1.5],
    [`in process: ${c.name}`, "node", "msgpackr", 1],
    // The same source as msgpackr's row (an object-mode Readable), not an array.
    [`in process: ${c.name}`, "node", "msgpackr", 1, "from readable"],
    [`in process: ${c.name}`, "web", "ndjson", 1.5],
    // msgpackr has no WHATWG form: its Node streams against structura's WHATWG ones, across families.
    [`in process: ${c.name}`, ["web", "node"], "msgpackr", 1],
    [`process to process: ${c.name}`, undefined, "advanced", 2],
  ];
  for (const [name, groups, peer, want, row = "structura"] of lines) {
    const [ours, theirs] = Array.isArray(groups) ? groups : [groups, groups];
    const s = find(name, ours, row);
    const p = find(name, theirs, peer);
    if (s === undefined || p === undefined) continue;
    const r = p.medianMs / s.medianMs;
    const cpu =
      s.cpuMs > 0 && name.startsWith("in process") ? `, CPU ${(p.cpuMs / s.cpuMs).toFixed(2)}×` : "";
    const which =
      ours === undefined
        ? ""
        : ours !== theirs
          ? ` [structura ${ours} vs ${theirs}]`
          : row === "structura"
            ? ` [${ours}]`
            : ` [${ours}, structura ${row}]`;
    console.log(
      `  ${r >= want ? "PASS" : "MISS"} ${name}${which}: ${r.toFixed(2)}× ${peer} (means ${(p.meanMs / s.meanMs).toFixed(2)}×${cpu}; target ≥ ${want}×)`,
    );
    if (ours === "node" && theirs === "node" && peer === "ndjson" && row === "structura") {
      // The node row's floors: making and keeping the decoded values (the allocation floor: every
      // decoder pays it, before a byte is read) and moving them through one identity PassThrough.
      const alloc = find(name, "sync", "alloc floor");
      const pass = find(name, "node", "floor");
      const budget = p.medianMs / want;
      const parts = [];
      if (alloc !== undefined) {
        parts.push(
          `the values built by hand and kept take ${formatTime(alloc.medianMs * 1e6)} (CPU ${formatTime(alloc.cpuMs * 1e6)}), ${(alloc.medianMs / budget).toFixed(2)} of the ${formatTime(budget * 1e6)} that ${want}× ${peer} leaves structura; its node row is ${formatTime((s.medianMs - alloc.medianMs) * 1e6)} above that floor (CPU ${formatTime((s.cpuMs - alloc.cpuMs) * 1e6)})`,
        );
      }
      const dec = find(name, "sync", "decode only");
      const enc = find(name, "sync", "encode only");
      if (dec !== undefined && enc !== undefined) {
        parts.push(
          `the decoder alone (values kept) ${formatTime(dec.medianMs * 1e6)} (CPU ${formatTime(dec.cpuMs * 1e6)}), the encoder alone ${formatTime(enc.medianMs * 1e6)} (CPU ${formatTime(enc.cpuMs * 1e6)})`,
        );
      }
      if (pass !== undefined) {
        parts.push(
          `one identity PassThrough alone ${formatTime(pass.medianMs * 1e6)} (CPU ${formatTime(pass.cpuMs * 1e6)})`,
        );
      }
      if (parts.length > 0) console.log(`       floors: ${parts.join("; ")}`);
    }
    if (ours === "web" && theirs === "node") {
      // The WHATWG form's floor: any encoder → decoder pair of TransformStreams moves every value
      // through two of them, before a byte is encoded.
      const floor = find(name, "web", "floor ×2");
      if (floor !== undefined) {
        console.log(
          `       floor: two identity TransformStreams alone take ${formatTime(floor.medianMs * 1e6)} (CPU ${formatTime(floor.cpuMs * 1e6)}: ${(floor.cpuMs / p.cpuMs).toFixed(2)}× ${peer}'s CPU; wall ${(floor.medianMs / p.medianMs).toFixed(2)}× ${peer}'s time, ${(floor.medianMs / s.medianMs).toFixed(2)} of structura's web row); ${s.medianMs > floor.medianMs ? `structura's web row above that floor ${formatTime((s.medianMs - floor.medianMs) * 1e6)}` : "structura's web row at that floor"}, ${peer}'s whole row ${formatTime(p.medianMs * 1e6)}${p.medianMs < floor.medianMs ? ": floor-bound, no WHATWG codec can reach it" : ""}`,
        );
      }
    }
  }
}
console.log(
  `load at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
