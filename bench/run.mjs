// Run the capability benchmarks, one child process each, with the runtime running this script.
//
//   node bench/run.mjs              every bench/*.mjs that exists (clone, binary, text, formdata, channel)
//   node bench/run.mjs clone text   only those
//   bun bench/run.mjs clone         the same under Bun
//
// BENCH_FILTER, BENCH_QUICK, BENCH_TIME, BENCH_JSON and BENCH_MITATA are passed through (see
// bench/lib/harness.mjs). Under node the children get --expose-gc so measurements start from a clean heap.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(benchDir);
const isBun = typeof globalThis.Bun !== "undefined";

// Known capabilities run in this order; any other bench/*.mjs runs after them, alphabetically.
const ORDER = ["clone", "binary", "text", "formdata", "channel"];

const available = readdirSync(benchDir)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs")
  .map((f) => f.slice(0, -".mjs".length))
  .sort((a, b) => {
    const ia = ORDER.indexOf(a);
    const ib = ORDER.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? ORDER.length : ia) - (ib === -1 ? ORDER.length : ib);
    return a.localeCompare(b);
  });

const BENCH_PREFIX = /^bench\//;
const MJS_SUFFIX = /\.mjs$/;
const requested = process.argv.slice(2).map((a) => a.replace(BENCH_PREFIX, "").replace(MJS_SUFFIX, ""));
const unknown = requested.filter((r) => !available.includes(r));
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(", ")} (available: ${available.join(", ") || "none"})`);
  process.exit(2);
}
const selected = requested.length > 0 ? requested : available;

if (!existsSync(path.join(root, "dist", "index.js"))) {
  console.error(
    "dist/index.js is missing: the benchmarks measure the built package. Run `npm run build` first.",
  );
  process.exit(1);
}

/** With several benchmarks and BENCH_JSON=file.json, give each its own file.json -> file.<name>.json. */
function jsonTarget(name) {
  const target = process.env.BENCH_JSON;
  if (!target?.endsWith(".json") || selected.length === 1) return target;
  return `${target.slice(0, -".json".length)}.${name}.json`;
}

const runtimeArgs = isBun ? [] : ["--expose-gc"];
const outcomes = [];

for (const name of selected) {
  const started = Date.now();
  const env = { ...process.env };
  const json = jsonTarget(name);
  if (json) env.BENCH_JSON = json;
  const child = spawnSync(process.execPath, [...runtimeArgs, path.join(benchDir, `${name}.mjs`)], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const status = child.error
    ? `failed to start: ${child.error.message}`
    : child.status === 0
      ? "ok"
      : `exit ${child.status ?? child.signal}`;
  outcomes.push({ name, status, seconds });
  if (selected.length > 1) console.log("");
}

if (selected.length > 1) {
  console.log("benchmarks:");
  for (const o of outcomes) console.log(`  ${o.name.padEnd(10)} ${o.status.padEnd(8)} ${o.seconds} s`);
}

process.exit(outcomes.every((o) => o.status === "ok") ? 0 : 1);
