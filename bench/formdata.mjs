// FormData <-> multipart/form-data benchmark: structura/formdata against the runtime's own Response,
// form-data-encoder, formdata-node, busboy, @fastify/busboy, @mjackson/multipart-parser and multipasta.
//
//   npm run build && node --expose-gc bench/formdata.mjs     (or: npm run bench -- formdata)
//   bun bench/formdata.mjs                                   (the same cases against Bun's Response)
//   BENCH_QUICK=1 BENCH_FILTER=small node --expose-gc bench/formdata.mjs
//
// Cases:
// 1. Bun's bench/snippets/form-data.mjs on the same two-entry form (foo=bar, baz=Blob["foo","bar",
//    "baz"]): FormData.append (native only), encoding to complete bytes, parsing its fixed one-field
//    body, and the round trip. Plus the same form with a string instead of the Blob, and a parse of
//    the two-entry body (which has to make a File).
// 2. Parsing throughput and peak memory on a 100 MB body of four 25 MB files and on 10,000 small
//    fields, every parser fed the same 64 KiB chunks through a Node Readable (Response.formData()
//    gets the whole buffer, its fastest path). Peak memory (VmHWM) is measured in a child process
//    per parser: bench/data/formdata-mem.mjs.
// 3. Encoding a 128 MB Blob and reading the body out, peak memory above the Blob (child process).
//
// The shared harness (bench/lib/harness.mjs) measures synchronous functions; every operation here
// is asynchronous (Response, Blob reads, streams), so this script drives mitata's measure() itself,
// with the harness's calibration idea (batch sized to ~2 ms samples, interleaved rounds), prints the
// same kind of tables, and hands its cases and targets to the harness for the summary and JSON.

import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FormDataEncoder } from "form-data-encoder";
import { Blob as NodeFormBlob, FormData as NodeFormData } from "formdata-node";
import { measure } from "mitata";
import {
  BOUNDARY_SHAPES,
  bodies,
  checkSummary,
  contentTypeOf,
  FLOOR,
  floorParse,
  inputsOf,
  makeBoundaries,
  makeParsers,
} from "./data/formdata-cases.mjs";
import {
  createSuite,
  formatBytes,
  formatRatio,
  formatTime,
  isBun,
  loadBuilt,
  matchesFilter,
  runtime,
  settings,
} from "./lib/harness.mjs";

const structura = await loadBuilt(
  () => import("../dist/formdata.js"),
  ["encodeFormData", "parseFormData", "parseMultipart"],
);
const { encodeFormData, parseFormData } = structura;

const here = path.dirname(fileURLToPath(import.meta.url));
const suite = createSuite("formdata", {
  title: "formdata benchmark (FormData <-> multipart/form-data)",
  means: true,
});
suite.header();

const ROUNDS = settings.quick ? 2 : 4;
const native = isBun ? "bun" : "node";

// ---------------------------------------------------------------------------------------------------
// measuring asynchronous operations

const nowNs = () => performance.now() * 1e6;

/** Warm `fn` up and estimate one call's cost (ns), awaiting each call. */
async function calibrate(fn) {
  const warmNs = settings.quick ? 20e6 : 150e6;
  let calls = 0;
  let start = nowNs();
  do {
    await fn();
    calls++;
  } while (nowNs() - start < warmNs && calls < 200_000);
  const probe = Math.max(1, Math.ceil(calls / 4));
  start = nowNs();
  for (let i = 0; i < probe; i++) await fn();
  return (nowNs() - start) / probe;
}

function statsOf(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[(q * (s.length - 1)) | 0];
  return {
    p50: at(0.5),
    avg: s.reduce((a, v) => a + v, 0) / s.length,
    min: s[0],
    p75: at(0.75),
    p99: at(0.99),
    max: s[s.length - 1],
    samples: s.length,
  };
}

function describeError(err) {
  const msg = err instanceof Error ? `${err.name}: ${err.message.split("\n")[0]}` : String(err);
  return `throws ${msg.length > 80 ? `${msg.slice(0, 77)}...` : msg}`;
}

/** Print one case table: implementation, median, mean, extra columns, ratios against structura. */
function printCase(name, results, columns = []) {
  const base = results.find((r) => r.name.startsWith("structura"));
  const baseName = base?.name;
  const baseP50 = base?.stats?.p50;
  const baseAvg = base?.stats?.avg;
  for (const r of results) {
    if (r.stats && baseP50) r.ratio = r.stats.p50 / baseP50;
    if (r.stats && baseAvg) r.meanRatio = r.stats.avg / baseAvg;
  }
  const relOf = (ratio) => (ratio >= 1 ? `${formatRatio(ratio)} slower` : `${formatRatio(1 / ratio)} faster`);
  const headers = [
    "implementation",
    "median",
    "mean",
    ...columns.map((c) => c.label),
    "vs structura (medians)",
    "(means)",
  ];
  const rows = results.map((r) => {
    const extras = columns.map((c) => (r.extra?.[c.key] === undefined ? "" : c.format(r.extra[c.key])));
    if (!r.stats) return [r.name, "n/a", "", ...extras, r.error ?? "", ""];
    const isBase = r.name === baseName;
    const rel = isBase || r.ratio === undefined ? "baseline" : relOf(r.ratio);
    const meanRel = isBase || r.meanRatio === undefined ? "" : relOf(r.meanRatio);
    return [
      r.name,
      formatTime(r.stats.p50),
      formatTime(r.stats.avg),
      ...extras,
      r.note ? `${rel}  (${r.note})` : rel,
      meanRel,
    ];
  });
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) =>
    `  ${cells.map((c, i) => (i > 0 && i < cells.length - 2 ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join("  ")}`.trimEnd();
  console.log(name);
  console.log(line(headers));
  for (const row of rows) console.log(line(row));
  console.log("");
  // For the harness's summary and JSON report: the baseline entry under the name "structura".
  suite.cases.push({
    name,
    results: results.map((r) => (r.name === baseName ? { ...r, name: "structura" } : r)),
  });
}

/**
 * Check every implementation once, then measure them in interleaved rounds with mitata (batches
 * sized so one sample lasts ~2 ms), pooling the samples of all rounds.
 */
async function timeCase(name, impls, check) {
  if (!matchesFilter(name)) return null;
  const results = [];
  const runnable = [];
  for (const impl of impls) {
    const entry = { name: impl.name, label: impl.label ?? impl.name, note: impl.note };
    results.push(entry);
    try {
      const verdict = (impl.check ?? check)(await impl.fn());
      if (verdict !== true) {
        entry.error = verdict;
        continue;
      }
      runnable.push({ impl, entry, samples: [] });
    } catch (err) {
      entry.error = describeError(err);
    }
  }
  for (const r of runnable) {
    const perCall = Math.max(await calibrate(r.impl.fn), 1);
    r.batch = Math.min(4096, Math.max(1, Math.round((settings.quick ? 0.5e6 : 2e6) / perCall)));
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of runnable) {
      // No forced GC (mitata's `gc` option): a forced full GC makes V8 drop the compiled code of
      // functions that are not running, so every round would start with a JIT warm-up.
      const stats = await measure(r.impl.fn, {
        gc: false,
        min_cpu_time: (settings.timeMs * 1e6) / ROUNDS,
        min_samples: 3,
        max_samples: 10_000,
        batch_samples: r.batch,
        batch_unroll: 1,
      });
      for (const x of stats.samples) r.samples.push(x);
    }
  }
  for (const r of runnable) r.entry.stats = statsOf(r.samples);
  printCase(name, results);
  return results;
}

// ---------------------------------------------------------------------------------------------------
// 1. Bun's small-form cases

const latin1 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
const blob = new Blob(["foo", "bar", "baz"]);
const data = new FormData();
data.append("foo", "bar");
data.append("baz", blob);
/** The File the FormData holds for `blob`: what an encoder of `data` reads. */
const formFile = data.get("baz");
const stringData = new FormData();
stringData.append("foo", "bar");
stringData.append("baz", "foobarbaz");
const fdnData = new NodeFormData();
fdnData.append("foo", "bar");
fdnData.append("baz", new NodeFormBlob(["foo", "bar", "baz"]));

/**
 * An encoding of the small form is right if it carries both entries. The Blob's filename is not
 * checked: the standard says "blob" (structura, Node); Bun 1.4 writes `filename=""`.
 */
function checkSmallEncoding(withFile) {
  return (out) => {
    const text = latin1(out instanceof Uint8Array ? out : new Uint8Array(out));
    const field = text.includes('Content-Disposition: form-data; name="foo"\r\n\r\nbar\r\n');
    const second = withFile
      ? text.includes('name="baz"; filename=') &&
        text.includes("\r\nContent-Type: application/octet-stream\r\n\r\nfoobarbaz\r\n")
      : text.includes('name="baz"\r\n\r\nfoobarbaz\r\n');
    return field && second ? true : "wrong bytes";
  };
}

async function concatChunks(iterable) {
  const chunks = [];
  let n = 0;
  for await (const c of iterable) {
    chunks.push(c);
    n += c.length;
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// Bun's snippet parses this one-field body (its `formText`), with boundary "Form".
const fixedText = '--Form\r\nContent-Disposition: form-data; name="foo"\r\n\r\nbar\r\n--Form--\r\n';
const fixedBytes = new TextEncoder().encode(fixedText);
const fixedType = "multipart/form-data; boundary=Form";

// Real requests each carry a boundary of their own (and a parser may cache the last one it saw), so
// the parse cases take their bodies from a rotation of 256, each with a new boundary of one of the
// shapes browsers, undici and Bun generate (data/formdata-cases.mjs); every implementation gets the
// same sequence. The same-body row is kept as a secondary figure.
const ROTATION = 256;
const rotation = makeBoundaries(ROTATION, 0xf0e5);
const oneField = rotation.map((b) => ({
  bytes: new TextEncoder().encode(fixedText.replaceAll("Form", b)),
  type: contentTypeOf(b),
}));
const twoEntries = [];
for (const b of rotation) {
  twoEntries.push({
    bytes: await encodeFormData(data, { boundary: b }).body.bytes(),
    type: contentTypeOf(b),
  });
}
let turn = 0;
/** The next body of a rotation (one counter for all: each call meets a boundary of its own). */
const nextOf = (pool) => pool[turn++ & (ROTATION - 1)];

const checkFixed = (form) => (form?.get?.("foo") === "bar" ? true : "wrong result");
// The file's name is not checked: Bun 1.4 parses its own filename="" back as undefined.
const checkTwo = (form) =>
  form?.get?.("foo") === "bar" && form.get("baz")?.size === 9 ? true : "wrong result";

await timeCase(
  "FormData.append (native, as in Bun's snippet: new FormData + 2 appends)",
  [
    {
      name: `structura (uses the ${native} FormData)`,
      fn: () => {
        const f = new FormData();
        f.append("foo", "bar");
        f.append("baz", blob);
        return f;
      },
    },
  ],
  (f) => (f instanceof FormData ? true : "no FormData"),
);

const blobBodyLength = encodeFormData(data).length;
const encodeResults = await timeCase(
  "small form: encode to complete bytes",
  [
    { name: "structura encodeFormData().body.bytes()", fn: () => encodeFormData(data).body.bytes() },
    {
      name: `${native} new Response(formData).arrayBuffer()`,
      label: "Response",
      fn: () => new Response(data).arrayBuffer(),
    },
    { name: "form-data-encoder", fn: () => concatChunks(new FormDataEncoder(data).encode()) },
    // No encoder of this form can finish before the Blob's bytes are read: the floor is the cheapest
    // way the runtime gives them, each way timed alone (the targets take the fastest). The Blob is
    // the one in the form (FormData.append wraps it in a File), read the way an encoder would.
    {
      name: "floor: file.arrayBuffer() alone (reading the 9-byte File)",
      label: "floor",
      fn: () => formFile.arrayBuffer(),
      check: (out) => (out.byteLength === 9 ? true : "wrong size"),
    },
    ...(typeof blob.bytes === "function"
      ? [
          {
            name: "floor: file.bytes() alone",
            label: "floor",
            fn: () => formFile.bytes(),
            check: (out) => (out.byteLength === 9 ? true : "wrong size"),
          },
        ]
      : []),
    {
      name: "floor: file.stream() read to the end alone",
      label: "floor",
      fn: () => concatChunks(formFile.stream()),
      check: (out) => (out.byteLength === 9 ? true : "wrong size"),
    },
    {
      // Complete bytes are a fresh buffer of the body's length (Response's arrayBuffer() makes one
      // too), and on Node one of a few hundred bytes lives off the JS heap: the read and that
      // allocation together, the least any encoder of this form does.
      name: "floor + result: file.arrayBuffer(), then a new Uint8Array(body length) it is copied into",
      label: "floor+result",
      fn: () =>
        formFile.arrayBuffer().then((b) => {
          const out = new Uint8Array(blobBodyLength);
          out.set(new Uint8Array(b), blobBodyLength - 9 - 60);
          return out;
        }),
      check: (out) => (out.byteLength === blobBodyLength ? true : "wrong size"),
    },
    {
      name: "formdata-node + form-data-encoder",
      fn: () => concatChunks(new FormDataEncoder(fdnData).encode()),
    },
  ],
  checkSmallEncoding(true),
);

const stringBodyLength = encodeFormData(stringData).length;
const stringEncodeResults = await timeCase(
  "small form, string values only: encode to complete bytes",
  [
    {
      name: "structura encodeFormData().body.bytesSync()",
      fn: () => encodeFormData(stringData).body.bytesSync(),
    },
    {
      name: `${native} new Response(formData).arrayBuffer()`,
      label: "Response",
      fn: () => new Response(stringData).arrayBuffer(),
    },
    { name: "form-data-encoder", fn: () => concatChunks(new FormDataEncoder(stringData).encode()) },
    {
      // Complete bytes are a fresh ArrayBuffer (as Response's arrayBuffer() gives one), and Node
      // allocates one of a few hundred bytes off the JS heap at ~0.4 µs: the floor, timed alone.
      name: "floor: new Uint8Array(body length) alone (allocating the result)",
      label: "floor",
      fn: () => new Uint8Array(stringBodyLength),
      check: (out) => (out.length === stringBodyLength ? true : "wrong size"),
    },
  ],
  checkSmallEncoding(false),
);

const parseResults = await timeCase(
  "small form: parse only (Bun's one-field body), a new boundary per body",
  [
    {
      name: "structura parseFormData()",
      fn: () => {
        const b = nextOf(oneField);
        return parseFormData(b.bytes, b.type);
      },
    },
    {
      name: `${native} new Response(body).formData()`,
      label: "Response",
      fn: () => {
        const b = nextOf(oneField);
        return new Response(b.bytes, { headers: { "content-type": b.type } }).formData();
      },
    },
    {
      // What any parser that answers with a FormData pays, whatever it does with the bytes.
      name: "floor: new FormData() + append + Promise.resolve alone",
      label: "floor",
      fn: () => {
        const f = new FormData();
        f.append("foo", "bar");
        return Promise.resolve(f);
      },
    },
  ],
  checkFixed,
);

await timeCase(
  "small form: parse only, the same body and boundary every call (secondary)",
  [
    { name: "structura parseFormData()", fn: () => parseFormData(fixedBytes, fixedType) },
    {
      name: `${native} new Response(body).formData()`,
      label: "Response",
      fn: () => new Response(fixedBytes, { headers: { "content-type": fixedType } }).formData(),
    },
  ],
  checkFixed,
);

await timeCase(
  "small form: parse the two-entry body (makes a File), a new boundary per body",
  [
    {
      name: "structura parseFormData()",
      fn: () => {
        const b = nextOf(twoEntries);
        return parseFormData(b.bytes, b.type);
      },
    },
    {
      name: `${native} new Response(body).formData()`,
      label: "Response",
      fn: () => {
        const b = nextOf(twoEntries);
        return new Response(b.bytes, { headers: { "content-type": b.type } }).formData();
      },
    },
  ],
  checkTwo,
);

await timeCase(
  "small form: round trip (encode, then parse)",
  [
    {
      name: "structura encodeFormData() + parseFormData()",
      fn: async () => {
        const encoded = encodeFormData(data);
        return parseFormData(await encoded.body.bytes(), encoded.contentType);
      },
    },
    {
      name: `${native} new Response(formData).formData()`,
      label: "Response",
      fn: () => new Response(data).formData(),
    },
  ],
  checkTwo,
);

// ---------------------------------------------------------------------------------------------------
// 2. parsing throughput and peak memory

function child(args) {
  const runtimeArgs = isBun ? [] : ["--expose-gc"];
  const out = spawnSync(
    process.execPath,
    [...runtimeArgs, path.join(here, "data", "formdata-mem.mjs"), ...args],
    {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    },
  );
  if (out.status !== 0)
    return { error: (out.stderr || out.stdout || "child failed").trim().split("\n").pop() };
  try {
    return JSON.parse(out.stdout.trim().split("\n").pop());
  } catch {
    return { error: "child printed no result" };
  }
}

const throughput = {};

/** The entry of `list` with the least CPU time (`key`: "p50" or "avg"), or undefined. */
function fastestByCpu(list, key) {
  let best;
  for (const r of list) if (r.cpu && (best === undefined || r.cpu[key] < best.cpu[key])) best = r;
  return best;
}

for (const bodyName of Object.keys(bodies)) {
  const caseName = `parse ${bodyName}`;
  if (!matchesFilter(caseName)) continue;
  const { first } = inputsOf(bodyName, 1);
  const { body, expect, chunks } = first;
  const results = [];
  const runs = settings.quick ? 3 : 15;
  const parsers = { ...makeParsers(structura), [FLOOR]: floorParse };
  for (const [name, parse] of Object.entries(parsers)) {
    const entry = { name, label: name };
    results.push(entry);
    // Checked here; timed and measured in a child process of its own (see data/formdata-mem.mjs).
    try {
      const out = await parse(first);
      const verdict =
        name === FLOOR ? out.bytes === body.length || `read ${out.bytes} bytes` : checkSummary(out, expect);
      if (verdict !== true) {
        entry.error = verdict;
        continue;
      }
    } catch (err) {
      entry.error = describeError(err);
      continue;
    }
    const out = child(["parse", bodyName, name, String(runs)]);
    if (out.error) {
      entry.error = out.error;
      continue;
    }
    entry.stats = statsOf(out.times.map((ms) => ms * 1e6));
    entry.cpu = statsOf(out.cpuTimes.map((ms) => ms * 1e6));
    entry.extra = {
      mbps: body.length / 1e6 / (entry.stats.p50 / 1e9),
      cpuP50: entry.cpu.p50,
      cpuAvg: entry.cpu.avg,
      cpuRatio: undefined,
      peak: out.extra,
    };
  }
  // CPU time relative to structura's faster entry point, as the targets read it (see below).
  const cpuBase = fastestByCpu(
    results.filter((r) => r.name.startsWith("structura") && r.cpu),
    "p50",
  );
  for (const r of results) {
    if (r.cpu && cpuBase) r.extra.cpuRatio = r.cpu.p50 / cpuBase.cpu.p50;
  }
  printCase(`${caseName} (${formatBytes(body.length)} in ${chunks.length} chunks)`, results, [
    { key: "mbps", label: "MB/s", format: (v) => v.toFixed(0) },
    { key: "cpuP50", label: "CPU median", format: formatTime },
    { key: "cpuAvg", label: "CPU mean", format: formatTime },
    {
      key: "cpuRatio",
      label: "CPU vs structura",
      format: (v) => (v >= 1 ? `${formatRatio(v)} slower` : `${formatRatio(1 / v)} faster`),
    },
    { key: "peak", label: "peak memory", format: (v) => `+${formatBytes(v)}` },
  ]);
  throughput[bodyName] = results;
}

// ---------------------------------------------------------------------------------------------------
// 3. a 128 MB Blob through the encoder

const blobCase = "encode a 128 MB Blob and read the body out";
const blobResults = [];
if (matchesFilter(blobCase)) {
  const impls = [
    "structura body.stream()",
    "structura body.blob().stream()",
    "structura body.bytes()",
    "Response(formData).body",
    "form-data-encoder",
  ];
  for (const name of impls) {
    const entry = { name, label: name };
    const mem = child(["blob", name]);
    if (mem.error || mem.result < mem.blobSize) entry.error = mem.error ?? `read ${mem.result} bytes`;
    else {
      entry.stats = statsOf(mem.times.map((ms) => ms * 1e6));
      entry.extra = { peak: mem.extra, share: mem.extra / mem.blobSize };
    }
    blobResults.push(entry);
  }
  printCase(blobCase, blobResults, [
    { key: "peak", label: "peak above the Blob", format: (v) => `+${formatBytes(v)}` },
    { key: "share", label: "of 128 MB", format: (v) => `${(v * 100).toFixed(1)}%` },
  ]);
}

// ---------------------------------------------------------------------------------------------------
// targets (stated for Node; under Bun they compare against Bun's own Response)

/**
 * The issue's targets are read off the benchmark on Node. Under Bun the same lines are printed as
 * SKIP with the figure, for reference (Bun's Response is native code).
 */
function target(label, evaluate) {
  suite.target(label, () => {
    const verdict = evaluate();
    if (!isBun || verdict.status === "SKIP") return verdict;
    return { status: "SKIP", detail: `targets are for node; on bun: ${verdict.status} ${verdict.detail}` };
  });
}

/** The median of the fastest floor entry of a case (several ways to do what cannot be avoided). */
function fastestFloor(results) {
  let best;
  for (const r of results) {
    const p50 = r.label === "floor" ? r.stats?.p50 : undefined;
    if (p50 !== undefined && (best === undefined || p50 < best)) best = p50;
  }
  return best;
}

function ratioTarget(label, results, peerLabel, min) {
  target(label, () => {
    if (!results) return { status: "SKIP", detail: "case filtered out" };
    const ours = results.find((r) => r.name.startsWith("structura"))?.stats?.p50;
    const peer = results.find((r) => r.label === peerLabel)?.stats?.p50;
    if (!ours || !peer) return { status: "SKIP", detail: "not measured" };
    const ratio = peer / ours;
    const floor = fastestFloor(results);
    // The floor: what structura cannot avoid, timed alone; the ratio with it would be the best case.
    const floorNote = floor
      ? `; floor alone ${formatTime(floor)} (${formatRatio(peer / floor)} below Response), structura adds ${formatTime(Math.max(0, ours - floor))}`
      : "";
    return {
      status: ratio >= min ? "PASS" : "MISS",
      detail: `${formatRatio(ratio)} (${formatTime(ours)} vs ${formatTime(peer)}; need ${min}×${floorNote})`,
    };
  });
}

ratioTarget(
  `small form, string values only: encode ≥ 20× faster than ${native}'s Response`,
  stringEncodeResults,
  "Response",
  20,
);
target(`small form with a Blob: encode ≥ 10× faster than ${native}'s Response`, () => {
  const results = encodeResults;
  if (!results) return { status: "SKIP", detail: "case filtered out" };
  const ours = results.find((r) => r.name.startsWith("structura"))?.stats?.p50;
  const peer = results.find((r) => r.label === "Response")?.stats?.p50;
  const floor = fastestFloor(results);
  const withResult = results.find((r) => r.label === "floor+result")?.stats?.p50;
  if (!ours || !peer) return { status: "SKIP", detail: "not measured" };
  const ratio = peer / ours;
  // No encoder can beat the floor: what structura adds to it is the figure its own work decides.
  const floorNote = floor
    ? `; reading the Blob alone (the fastest floor row) takes ${formatTime(floor)}, ${formatRatio(peer / floor)} below Response; structura adds ${formatTime(Math.max(0, ours - floor))} to it, Response ${formatTime(peer - floor)}`
    : "";
  const resultNote = withResult
    ? `; read + the result's allocation ${formatTime(withResult)} (${formatRatio(peer / withResult)} below Response), structura adds ${formatTime(Math.max(0, ours - withResult))} to that`
    : "";
  return {
    status: ratio >= 10 ? "PASS" : "MISS",
    detail: `${formatRatio(ratio)} (${formatTime(ours)} vs ${formatTime(peer)}; need 10×${floorNote}${resultNote})`,
  };
});
ratioTarget(
  `small form parse, a new boundary per body, ≥ 20× faster than ${native}'s Response`,
  parseResults,
  "Response",
  20,
);

// The throughput targets read CPU time (process.cpuUsage in the child, per run): on a machine that
// other jobs load, a run longer than its time slice waits for a core, and its wall-clock time says
// more about the other jobs than about the parser (runs of 1.5 ms and of 40 ms alternate). On an idle
// machine the two agree, but for GC threads, which CPU time counts and wall-clock time overlaps.
const floorNote = (results, key) => {
  const floor = results.find((r) => r.name === FLOOR);
  return floor?.cpu ? `; floor (${FLOOR}) ${formatTime(floor.cpu[key])}` : "";
};

target("100 MB of files parsed ≥ 1.2× faster than @fastify/busboy (CPU medians)", () => {
  const results = throughput["100 MB, four 25 MB files"];
  if (!results) return { status: "SKIP", detail: "case filtered out" };
  const ours = results.find((r) => r.name === "structura parseMultipart")?.cpu?.p50;
  const peer = results.find((r) => r.name === "@fastify/busboy")?.cpu?.p50;
  if (!ours || !peer) return { status: "SKIP", detail: "not measured" };
  const ratio = peer / ours;
  return {
    status: ratio >= 1.2 ? "PASS" : "MISS",
    detail: `${formatRatio(ratio)} (${formatTime(ours)} vs ${formatTime(peer)})`,
  };
});

/** structura's faster entry point against the best peer, on CPU time (`key`: "p50" or "avg"). */
function bestPeerTarget(label, bodyName, min, key) {
  target(label, () => {
    const results = throughput[bodyName];
    if (!results) return { status: "SKIP", detail: "case filtered out" };
    const ours = fastestByCpu(
      results.filter((r) => r.name.startsWith("structura")),
      key,
    );
    const best = fastestByCpu(
      results.filter((r) => !r.name.startsWith("structura") && r.name !== FLOOR),
      key,
    );
    if (!ours || !best) return { status: "SKIP", detail: "not measured" };
    const ratio = best.cpu[key] / ours.cpu[key];
    return {
      status: ratio >= min ? "PASS" : "MISS",
      detail: `${formatRatio(ratio)}: ${ours.name} ${formatTime(ours.cpu[key])} vs ${best.name} ${formatTime(best.cpu[key])}${floorNote(results, key)}`,
    };
  });
}

bestPeerTarget(
  "10,000 small fields ≥ 5× faster than the best peer (CPU medians)",
  "10,000 small fields",
  5,
  "p50",
);
// Issue 20: on every body kind, on means (all runs, GC included).
for (const bodyName of Object.keys(bodies)) {
  bestPeerTarget(`${bodyName}: parsed ≥ 1.2× faster than the best peer (CPU means)`, bodyName, 1.2, "avg");
}

target("128 MB Blob encoded with < 10% extra peak memory", () => {
  const ours = blobResults.find((r) => r.name === "structura body.stream()");
  if (!ours?.extra) return { status: "SKIP", detail: ours?.error ?? "case filtered out" };
  return {
    status: ours.extra.share < 0.1 ? "PASS" : "MISS",
    detail: `+${formatBytes(ours.extra.peak)} (${(ours.extra.share * 100).toFixed(1)}%) reading body.stream()`,
  };
});

console.log(
  `(${runtime.name} ${runtime.version}; every multipart body parsed has a boundary of its own, the shapes of ${BOUNDARY_SHAPES.map(([n]) => n).join(", ")} in turn, e.g. ${makeBoundaries(4).join(", ")})`,
);
suite.finish();
