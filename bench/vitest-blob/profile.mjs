// Profile structura's text stringify/parse (or a peer's) on the real Vitest blob, and summarise where
// the time goes.
//
//   node bench/vitest-blob/profile.mjs stringify [runs]     (PROFILE_LIB=flatted|devalue for a peer)
//   node bench/vitest-blob/profile.mjs parse [runs]
//   PROFILE_COLD=1 node bench/vitest-blob/profile.mjs stringify 1   (the first call, no warm-up)
//   node bench/vitest-blob/profile.mjs --summary <file.cpuprofile> [top]
//
// The first two forms read the blob with Vitest's own parse (generating it if needed), run the
// operation once to warm up, then record a V8 CPU profile (node:inspector) of `runs` more calls only
// (default 5), write it to bench/.cache/prof/<lib>-<op>.cpuprofile (loadable in Chrome DevTools) and
// print the functions with the most self time, and self time by script. `--summary` prints the same for
// any .cpuprofile, e.g. one written by `node --cpu-prof`.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const args = process.argv.slice(2);

function summarise(profile, top) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  // timeDeltas[i] is the time *before* sample i (timeDeltas[0] runs from the profiler's start, which
  // includes setting it up), so sample i stands for the interval up to the next sample, as DevTools
  // counts it; the last sample for the interval up to endTime.
  let at = profile.startTime;
  const times = profile.timeDeltas.map((d) => (at += d));
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (i + 1 < times.length ? times[i + 1] : profile.endTime) - times[i];
    total += dt;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const byFunction = new Map();
  const byScript = new Map();
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    // url "" with a name: code structura compiles at run time (new Function: record writers, fillers)
    const script = f.url
      ? path.basename(f.url)
      : f.functionName && !f.functionName.startsWith("(")
        ? "(compiled at run time)"
        : "(native)";
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
}

if (args[0] === "--summary") {
  summarise(JSON.parse(readFileSync(args[1], "utf8")), Number(args[2]) || 25);
  process.exit(0);
}

const op = args[0] === "parse" ? "parse" : "stringify";
const runs = Number(args[1]) || 5;
const lib = process.env.PROFILE_LIB ?? "structura";

const { cacheDir, ensureBlob, blobPath } = await import("./generate.mjs");
const { vitestBlobFunctions } = await import("./read.mjs");
await ensureBlob();
const value = (await vitestBlobFunctions()).parse(readFileSync(blobPath, "utf8"));

let stringify;
let parse;
if (lib === "structura") ({ stringify, parse } = await import("../../dist/text.js"));
else if (lib === "flatted") ({ stringify, parse } = await import("flatted"));
else if (lib === "devalue") ({ stringify, parse } = await import("devalue"));
else throw new Error(`PROFILE_LIB: structura, flatted or devalue, not ${lib}`);

// Flat, as a text read from a file is (stringify returns a rope; see fresh.mjs).
const text = stringify(value);
text.charCodeAt(0);
// PROFILE_COLD=1: no warm-up call (the first call of a process, as fresh.mjs measures it; the profile
// then also holds the compiles of the first call).
const cold = process.env.PROFILE_COLD === "1";
let keep = cold ? text : op === "parse" ? parse(text) : text; // warm-up call

const session = new Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
await post("Profiler.enable");
await post("Profiler.setSamplingInterval", { interval: 500 });
await post("Profiler.start");
const started = performance.now();
for (let i = 0; i < runs; i++) keep = op === "parse" ? parse(text) : stringify(value);
const ms = (performance.now() - started) / runs;
const { profile } = await post("Profiler.stop");
session.disconnect();

const dir = path.join(cacheDir, "..", "prof");
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${lib}-${op}.cpuprofile`);
writeFileSync(file, JSON.stringify(profile));
console.log(`${lib} ${op}: ${ms.toFixed(1)} ms a call over ${runs} calls (${typeof keep}); profile: ${file}`);
summarise(profile, 25);
