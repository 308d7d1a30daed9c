// The real Vitest blob measured the way Vitest uses it: one call in a fresh process (the blob reporter
// writes once per run, merge-reports reads each blob once), cold code and a young heap included, GC
// included. Every sample is its own child process; wall time and CPU time (user + system of the whole
// process during the call, GC helper threads included: steadier than wall time on a shared machine)
// are both printed, as medians over the processes, with the issue-15 targets on each.
//
//   npm run build && node bench/vitest-blob/fresh.mjs [runs]        (default 5 processes per row)
//
// Rows: structura, flatted, devalue, JSON on the acyclic equivalent, the engine floors under
// structura (JSON.stringify writing structura's text from a ready tree; JSON.parse reading it) and, for
// stringify, "floor+ids": that floor plus numbering every object in an identity Map, the least any
// writer that keeps shared references with a Map does (flatted does it too, for strings as well).
//
// "Fresh memory" is the median count of minor page faults during the call, × 4 KiB: memory the process
// touched for the first time (new heap pages, the text, tables). On the 2-core VM where these figures
// were taken a fault costs tens of µs (system time): fresh memory is a large share of every row's time.
//
// Flat strings in, flat strings out, as users have them: the blob reporter writes the text to a file
// and merge-reports reads it from one. A large result of JSON.stringify is not flat: V8 builds it in
// parts (up to 16 K characters each) joined as a rope, and so does structura's stringify (its pieces
// concatenated). V8 flattens a rope at the first read (writing it to a file, parsing it): a copy of the
// whole text into a fresh allocation, 100-250 ms for the 21.5 M characters here on this machine, whose
// first touch of fresh memory is slow (a 21.5 MB Uint8Array's first fill alone takes 140-250 ms, its
// second ~1 ms). So every stringify row, the engine floors and JSON included, is timed up to a
// flattened result, and every parse row is given a flat text: the copy is charged to the writer that
// made the rope, never to a reader, alike for every row.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);

if (process.argv[2] === "--child") {
  const [, , , op, lib] = process.argv;
  const { blobPath } = await import("./generate.mjs");
  const { acyclicBlob, vitestBlobFunctions } = await import("./read.mjs");
  const value = (await vitestBlobFunctions()).parse(readFileSync(blobPath, "utf8"));
  const text = await import("../../dist/text.js");
  const flatted = await import("flatted");
  const devalue = await import("devalue");
  const libs = { structura: text, flatted, devalue };
  let fn;
  if (lib === "floor+ids") {
    const ours = text.stringify(value);
    const tree = JSON.parse(ours);
    const objects = objectsOf(value);
    fn = () => {
      const ids = new Map();
      for (let i = 0; i < objects.length; i++) if (ids.get(objects[i]) === undefined) ids.set(objects[i], i);
      return flat(JSON.stringify(tree));
    };
  } else if (lib === "floor") {
    const ours = text.stringify(value);
    const tree = JSON.parse(ours);
    const input = flat(ours);
    fn = op === "stringify" ? () => flat(JSON.stringify(tree)) : () => JSON.parse(input);
  } else if (lib === "JSON") {
    const acyclic = acyclicBlob(value);
    const json = flat(JSON.stringify(acyclic));
    fn = op === "stringify" ? () => flat(JSON.stringify(acyclic)) : () => JSON.parse(json);
  } else {
    const { stringify, parse } = libs[lib];
    const input = op === "stringify" ? value : flat(stringify(value));
    fn = op === "stringify" ? () => flat(stringify(input)) : () => parse(input);
  }
  const f0 = process.resourceUsage().minorPageFault;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = fn();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const faults = process.resourceUsage().minorPageFault - f0;
  if (out === undefined) throw new Error("no result");
  // The text's length in characters (stringify rows): what the row's floor has to write or read.
  const chars = typeof out === "string" ? out.length : undefined;
  process.stdout.write(JSON.stringify({ wall, cpu: (cpu.user + cpu.system) / 1000, faults, chars }));
  process.exit(0);
}

/** `s`, flattened: reading a character makes V8 flatten a rope (a no-op on a flat string). */
function flat(s) {
  s.charCodeAt(0);
  return s;
}

/** Every object of the value graph once (depth first), for the identity-Map floor. */
function objectsOf(root) {
  const seen = new Set();
  const out = [];
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    out.push(v);
    for (const k of Object.keys(v)) stack.push(v[k]);
  }
  return out;
}

const runs = Number(process.argv[2]) || 5;
// The children read the cached blob; write it first on a machine that has none (as bench/text.mjs does).
await (await import("./generate.mjs")).ensureBlob();
const allRows = ["structura", "flatted", "devalue", "JSON", "floor", "floor+ids"];
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(
  `vitest blob, one call per fresh process, ${runs} processes per row; node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at start`,
);
const results = {};
for (const op of ["stringify", "parse"]) {
  results[op] = {};
  // Interleaved: one process of each row in turn, so load changes touch every row alike.
  const rows = op === "stringify" ? allRows : allRows.slice(0, -1);
  const samples = Object.fromEntries(rows.map((r) => [r, []]));
  for (let i = 0; i < runs; i++) {
    for (const lib of rows) {
      const out = execFileSync(process.execPath, [self, "--child", op, lib], { maxBuffer: 1 << 20 });
      samples[lib].push(JSON.parse(out.toString()));
    }
  }
  console.log(
    `\n${op}              wall median   cpu median   fresh memory (page faults × 4 KiB)${op === "stringify" ? "   text" : ""}`,
  );
  for (const lib of rows) {
    const wall = median(samples[lib].map((s) => s.wall));
    const cpu = median(samples[lib].map((s) => s.cpu));
    const mb = (median(samples[lib].map((s) => s.faults)) * 4096) / 2 ** 20;
    results[op][lib] = { wall, cpu };
    const chars = samples[lib][0].chars;
    console.log(
      `  ${lib.padEnd(10)} ${wall.toFixed(0).padStart(10)} ms ${cpu.toFixed(0).padStart(10)} ms ${mb.toFixed(0).padStart(10)} MiB` +
        (chars === undefined ? "" : `${(chars / 1e6).toFixed(2).padStart(32)} M chars`),
    );
  }
}

const line = (label, ok, detail) => console.log(`  ${ok ? "PASS" : "MISS"}  ${label.padEnd(44)} ${detail}`);
console.log("\ntargets (wall; cpu in brackets; the engine floor alone after it)");
for (const [op, other, factor] of [
  ["stringify", "flatted", 3],
  ["parse", "devalue", 2],
]) {
  const r = results[op];
  const f = (k) => r[other][k] / r.structura[k];
  const fl = (k) => r[other][k] / r.floor[k];
  line(
    `${op} ≥ ${factor}× faster than ${other}`,
    f("wall") >= factor,
    `${f("wall").toFixed(2)}× (${f("cpu").toFixed(2)}×); floor ${fl("wall").toFixed(2)}× (${fl("cpu").toFixed(2)}×)` +
      (r["floor+ids"]
        ? `; floor+ids ${(r[other].wall / r["floor+ids"].wall).toFixed(2)}× (${(r[other].cpu / r["floor+ids"].cpu).toFixed(2)}×)`
        : ""),
  );
}
for (const op of ["stringify", "parse"]) {
  const r = results[op];
  const f = (k) => r.structura[k] / r.JSON[k];
  const fl = (k) => r.floor[k] / r.JSON[k];
  line(
    `${op} within 2× of JSON (acyclic)`,
    f("wall") <= 2,
    `${f("wall").toFixed(2)}× JSON's time (${f("cpu").toFixed(2)}×); floor ${fl("wall").toFixed(2)}× (${fl("cpu").toFixed(2)}×)`,
  );
}
