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
// Parse floors (floors.mjs; what bounds parse, each a complete result, checked by `node
// bench/vitest-blob/floors.mjs --check`): "floor" JSON.parse of structura's text alone; "ideal v3"
// JSON.parse of it plus a hydration of format v3 written by hand for this blob's shapes (constructors
// compiled before timing, no checks, only the object and long-string tables the format needs);
// "ideal pw" the same hydration with the text read piecewise, as structura's reader does; "dv floor"
// JSON.parse of devalue's text alone; "dv ideal" JSON.parse of it plus the least hydration of devalue's
// format. No row parses its input before the call (a parse before it would hand the call a grown heap).
// `FRESH_OPS=parse` (or `stringify`) runs one half only.
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
  const { idealDevalue, idealV3, shapeTableOf } = await import("./floors.mjs");
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
    if (op === "stringify") {
      const tree = JSON.parse(ours);
      fn = () => flat(JSON.stringify(tree));
    } else {
      // No JSON.parse before the call: it would hand the call a grown heap whose pages are touched.
      const input = flat(ours);
      fn = () => JSON.parse(input);
    }
  } else if (lib === "ideal v3") {
    // JSON.parse of our text + the least hydration of format v3 (floors.mjs), compiled before timing.
    const input = flat(text.stringify(value));
    const { hydrate } = idealV3(shapeTableOf(input));
    fn = () => hydrate(JSON.parse(input));
  } else if (lib === "ideal pw") {
    // The same hydration with the text read piecewise, as structura's spine.ts does (floors.mjs).
    const input = flat(text.stringify(value));
    const { pw } = idealV3(shapeTableOf(input));
    fn = () => pw(input);
  } else if (lib === "dv floor") {
    // JSON.parse of devalue's text alone.
    const input = flat(devalue.stringify(value));
    fn = () => JSON.parse(input);
  } else if (lib === "dv ideal") {
    // JSON.parse of devalue's text + the least hydration of devalue's format (floors.mjs).
    const input = flat(devalue.stringify(value));
    fn = () => idealDevalue(input);
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
const rowsOf = {
  stringify: ["structura", "flatted", "devalue", "JSON", "floor", "floor+ids"],
  parse: ["structura", "flatted", "devalue", "JSON", "floor", "ideal v3", "ideal pw", "dv floor", "dv ideal"],
};
const ops = (process.env.FRESH_OPS ?? "stringify,parse").split(",");
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(
  `vitest blob, one call per fresh process, ${runs} processes per row; node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at start`,
);
const results = {};
for (const op of ops) {
  results[op] = {};
  // Interleaved: one process of each row in turn, so load changes touch every row alike.
  const rows = rowsOf[op];
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
const ratio = (r, a, b) => `${(r[a].wall / r[b].wall).toFixed(2)}× (${(r[a].cpu / r[b].cpu).toFixed(2)}×)`;
console.log("\ntargets (wall; cpu in brackets; the engine floor alone after it)");
for (const [op, other, factor] of [
  ["stringify", "flatted", 3],
  ["parse", "devalue", 2],
]) {
  const r = results[op];
  if (r === undefined) continue;
  line(
    `${op} ≥ ${factor}× faster than ${other}`,
    r[other].wall / r.structura.wall >= factor,
    `${ratio(r, other, "structura")}; floor ${ratio(r, other, "floor")}` +
      (r["floor+ids"] ? `; floor+ids ${ratio(r, other, "floor+ids")}` : "") +
      (r["ideal v3"] ? `; ideal v3 ${ratio(r, other, "ideal v3")}` : ""),
  );
}
for (const op of ops) {
  const r = results[op];
  line(
    `${op} within 2× of JSON (acyclic)`,
    r.structura.wall / r.JSON.wall <= 2,
    `${ratio(r, "structura", "JSON")} JSON's time; floor ${ratio(r, "floor", "JSON")}`,
  );
}
const r = results.parse;
if (r !== undefined) {
  // What bounds parse: each format's floor (JSON.parse of its text + the least hydration its format
  // needs, floors.mjs) against devalue itself, and structura's distance to its own format's floor.
  console.log("\nparse floors (devalue's time over the row's; structura's time over the row's)");
  for (const row of ["floor", "ideal v3", "ideal pw", "dv floor", "dv ideal"]) {
    console.log(
      `  ${row.padEnd(10)} devalue/row ${ratio(r, "devalue", row).padEnd(18)} structura/row ${ratio(r, "structura", row)}`,
    );
  }
}
