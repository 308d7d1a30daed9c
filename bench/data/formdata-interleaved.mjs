// The multipart throughput cases of bench/formdata.mjs in one process, the parsers interleaved run
// by run, timed in CPU time (process.cpuUsage). A cross-check of the per-parser child processes,
// whose figures swing 2-3× from run to run on a loaded machine (the same parser, 17 to 51 ms of CPU
// for the 100 MB body): here every parser meets the same conditions in turn, so the ratios hold
// even when the absolute figures do not. Every run still meets a new boundary (a rotation of
// prebuilt bodies: 8 per kind, 2 for the 100 MB body). No peak memory here (see formdata-mem.mjs).
//
//   npm run build && node --expose-gc bench/data/formdata-interleaved.mjs [rounds]

import { loadBuilt } from "../lib/harness.mjs";
import { bodies, FLOOR, floorParse, inputsOf, makeParsers } from "./formdata-cases.mjs";

const structura = await loadBuilt(
  () => import("../../dist/formdata.js"),
  ["encodeFormData", "parseFormData", "parseMultipart"],
);
const rounds = Number(process.argv[2] ?? 15);
const all = { ...makeParsers(structura), [FLOOR]: floorParse };
// Response.formData() takes seconds on the 100 MB body and is far behind everywhere: left out.
delete all["Response.formData()"];

const fmt = (ms) => `${ms.toFixed(2)} ms`.padStart(10);
for (const bodyName of Object.keys(bodies)) {
  const parsers = { ...all };
  // busboy and @fastify/busboy take 0.1-1 s on 10,000 fields (see the main benchmark): left out there.
  if (bodyName.startsWith("10,000")) {
    delete parsers.busboy;
    delete parsers["@fastify/busboy"];
  }
  const inputs = inputsOf(bodyName, bodyName.startsWith("100 MB") ? 2 : 8);
  for (const parse of Object.values(parsers)) await parse(inputs.next());
  const times = Object.fromEntries(Object.keys(parsers).map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, parse] of Object.entries(parsers)) {
      const input = inputs.next();
      const start = process.cpuUsage();
      await parse(input);
      const used = process.cpuUsage(start);
      times[name].push((used.user + used.system) / 1000);
    }
  }
  console.log(`${bodyName} (CPU time per run, ${rounds} interleaved rounds)`);
  const rows = Object.entries(times).map(([name, t]) => {
    const sorted = [...t].sort((a, b) => a - b);
    return {
      name,
      min: sorted[0],
      p50: sorted[sorted.length >> 1],
      avg: t.reduce((a, b) => a + b, 0) / t.length,
    };
  });
  const ours = rows.filter((r) => r.name.startsWith("structura"));
  const best = (list, key) => list.reduce((a, b) => (a[key] <= b[key] ? a : b));
  for (const r of rows)
    console.log(`  ${r.name.padEnd(42)} min ${fmt(r.min)}  median ${fmt(r.p50)}  mean ${fmt(r.avg)}`);
  const peers = rows.filter((r) => !r.name.startsWith("structura") && r.name !== FLOOR);
  for (const key of ["p50", "avg"]) {
    const o = best(ours, key);
    const p = best(peers, key);
    console.log(
      `  best peer / structura (${key === "p50" ? "medians" : "means"}): ${(p[key] / o[key]).toFixed(2)}× (${p.name} vs ${o.name})`,
    );
  }
}
console.log(`(${process.release.name} ${process.versions.node})`);
