// Profile structura's text stringify/parse (or a peer's) on the real Vitest blob, and summarise where
// the time goes.
//
//   node --cpu-prof --cpu-prof-dir=bench/.cache/prof bench/vitest-blob/profile.mjs stringify [runs]
//   node --cpu-prof --cpu-prof-dir=bench/.cache/prof bench/vitest-blob/profile.mjs parse [runs]
//   node bench/vitest-blob/profile.mjs --summary bench/.cache/prof/<file>.cpuprofile [top]
//
// The first form runs the operation `runs` times (default 20) after reading the blob (generating it if
// needed); the second prints the functions with the most self time, and self time by script.

import { readFileSync } from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);

if (args[0] === "--summary") {
  const profile = JSON.parse(readFileSync(args[1], "utf8"));
  const top = Number(args[2]) || 25;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const byFunction = new Map();
  const byScript = new Map();
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    const script = f.url ? path.basename(f.url) : "(native)";
    const key = `${f.functionName || "(anonymous)"}  ${script}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byScript.set(script, (byScript.get(script) ?? 0) + us);
  }
  const show = (map, n) => {
    for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n))
      console.log(
        `  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`,
      );
  };
  console.log(`total ${(total / 1000).toFixed(0)} ms sampled\nself time by function:`);
  show(byFunction, top);
  console.log("self time by script:");
  show(byScript, 10);
  process.exit(0);
}

const op = args[0] ?? "stringify";
const runs = Number(args[1]) || 20;
const lib = process.env.PROFILE_LIB ?? "structura";

const { ensureBlob } = await import("./generate.mjs");
const { readVitestBlob } = await import("./read.mjs");
await ensureBlob();
const { value } = await readVitestBlob();

let stringify;
let parse;
if (lib === "structura") ({ stringify, parse } = await import("../../dist/text.js"));
else if (lib === "flatted") ({ stringify, parse } = await import("flatted"));
else if (lib === "devalue") ({ stringify, parse } = await import("devalue"));
else throw new Error(`PROFILE_LIB: structura, flatted or devalue, not ${lib}`);

const text = stringify(value);
const started = performance.now();
let keep;
for (let i = 0; i < runs; i++) keep = op === "parse" ? parse(text) : stringify(value);
const ms = (performance.now() - started) / runs;
console.log(`${lib} ${op}: ${ms.toFixed(1)} ms a call over ${runs} calls (${typeof keep})`);
