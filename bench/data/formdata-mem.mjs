// Child process of bench/formdata.mjs (kept in bench/data/ so that bench/run.mjs does not take it
// for a benchmark of its own): one implementation per process, so that its high-water mark
// (VmHWM in /proc/self/status) and its JIT state belong to it alone. (In one process, parsers that
// share Node's stream internals slow each other down, and a forced GC makes V8 drop the compiled
// code of whatever is not running, so timings would depend on the order of the parsers.)
//
//   node --expose-gc bench/data/formdata-mem.mjs parse "<body>" "<parser>" [runs]
//   node --expose-gc bench/data/formdata-mem.mjs blob "<encoder>"
//
// Prints one JSON line: { baseline, peak, extra, times, cpuTimes } (bytes / ms). Memory first: after a GC, the
// high-water mark is reset (writing 5 to /proc/self/clear_refs; where that is not allowed, the
// resident set at that point stands in), `baseline` is the resident set with the input in memory,
// one operation runs, and `extra` = peak - baseline. Then the timing: warm-up runs (at least 3 and
// half a second) and `runs` timed runs, with no forced GC in between (a forced full GC makes V8 drop compiled code, and the
// runs after it would measure JIT warm-up).

import { readFileSync, writeFileSync } from "node:fs";
import { FormDataEncoder } from "form-data-encoder";
import { isBun, loadBuilt } from "../lib/harness.mjs";
import { FLOOR, floorParse, inputsOf, makeParsers } from "./formdata-cases.mjs";

const structura = await loadBuilt(
  () => import("../../dist/formdata.js"),
  ["encodeFormData", "parseFormData", "parseMultipart"],
);

const VM_RSS = /VmRSS:\s+(\d+) kB/;
const VM_HWM = /VmHWM:\s+(\d+) kB/;

function status() {
  const text = readFileSync("/proc/self/status", "utf8");
  return { rss: Number(VM_RSS.exec(text)[1]) * 1024, hwm: Number(VM_HWM.exec(text)[1]) * 1024 };
}

async function settle() {
  for (let i = 0; i < 3; i++) {
    if (isBun) globalThis.Bun.gc(true);
    else globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reset the high-water mark; returns the resident set to measure from. */
function resetPeak() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // not permitted: the peak then also covers what happened before (reported as such)
  }
  return status().rss;
}

/**
 * `prepare()` makes the input of one run (untimed, before the run: a body with a new boundary);
 * `operation(input)` is the run.
 */
async function measure(prepare, operation, runs) {
  let input = prepare();
  await settle();
  const baseline = resetPeak();
  const started = performance.now();
  const result = await operation(input);
  const first = performance.now() - started;
  const { hwm } = status();
  const times = [first];
  // CPU time of the process per run (all its threads: GC helpers count), beside the wall-clock time:
  // on a loaded machine a run that outlasts its time slice waits for a core, and its wall-clock time
  // then measures the other processes (see the note in bench/formdata.mjs).
  const cpuTimes = [];
  if (runs > 1) {
    times.length = 0;
    // Warm-up: at least 3 runs and half a second, so every parser is measured with optimized code.
    const warmUntil = performance.now() + 500;
    for (let i = 0; i < 3 || performance.now() < warmUntil; i++) await operation(prepare());
    for (let i = 0; i < runs; i++) {
      input = null;
      input = prepare();
      const cpu = process.cpuUsage();
      const t = performance.now();
      await operation(input);
      times.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      cpuTimes.push((used.user + used.system) / 1000);
    }
  }
  return { baseline, peak: hwm, extra: Math.max(0, hwm - baseline), times, cpuTimes, result };
}

const BLOB_SIZE = 128 * 1024 * 1024;

async function drain(stream) {
  const reader = stream.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

const encoders = {
  "structura body.stream()": (form) => drain(structura.encodeFormData(form).body.stream()),
  "structura body.blob().stream()": (form) => drain(structura.encodeFormData(form).body.blob().stream()),
  "structura body.bytes()": async (form) => (await structura.encodeFormData(form).body.bytes()).length,
  "Response(formData).body": (form) => drain(new Response(form).body),
  "form-data-encoder": async (form) => {
    let bytes = 0;
    for await (const chunk of new FormDataEncoder(form).encode()) bytes += chunk.length;
    return bytes;
  },
};

const [mode, ...args] = process.argv.slice(2);
let outcome;
if (mode === "parse") {
  const [bodyName, parserName, runs = "7"] = args;
  // Every run parses a body with a boundary of its own (see inputsOf in formdata-cases.mjs).
  const inputs = inputsOf(bodyName);
  const parse = parserName === FLOOR ? floorParse : makeParsers(structura)[parserName];
  outcome = await measure(
    () => inputs.next(),
    (input) => parse(input),
    Number(runs),
  );
} else if (mode === "blob") {
  const [encoderName] = args;
  // One 128 MB part, as `new Blob([bytes])` makes it; the source array is dropped before measuring.
  let bytes = new Uint8Array(BLOB_SIZE).fill(0x61);
  const blob = new Blob([bytes]);
  bytes = null;
  const form = new FormData();
  form.append("file", blob, "big.bin");
  outcome = await measure(
    () => form,
    (f) => encoders[encoderName](f),
    1,
  );
  outcome.blobSize = BLOB_SIZE;
} else {
  console.error("usage: formdata-mem.mjs parse <body> <parser> | blob <encoder>");
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(outcome)}\n`);
