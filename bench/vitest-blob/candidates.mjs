// Text-format candidates for the real Vitest blob, measured before anything is built (issue 15): is there
// a format in which JSON.parse does most of the work that would meet both the parse target (≥ 2× faster
// than devalue) and the size targets (bytes ≤ @ungap's, gzip ≤ flatted's)?
//
//   npm run build && node bench/vitest-blob/candidates.mjs [runs]       (default 3 processes per row)
//
// Candidates, each written here from the value Vitest's own `parse` returns for the blob:
//
// - `v3`: structura's current text (records as `[shape, ...values]` against a shape table).
// - `objects`: the brief's first idea, a "native JSON tree": every plain object a JSON object with its
//   own keys, every array a JSON array, an object met again `"~<n>"` (numbered in pre-order), long
//   strings repeated as `"~s<n>"`, user strings starting with `~` escaped. So JSON.parse returns the final
//   objects and the reader is one walk that replaces the `~` strings in place (`readObjects` below: the
//   least such a reader does, with no checks at all).
// - `devalue`, `flatted`, `@ungap`: the peers' texts, for the size targets and devalue's parse time.
//
// Rows: for each text its UTF-8 size and gzip size (level 6), and in a fresh process per sample (cold
// code, young heap, GC included, as fresh.mjs measures) the CPU time of `JSON.parse` alone (the floor of
// any reader of that text) and of the whole read. A candidate is worth building only if its floor is
// under half of devalue's whole parse and its sizes are within the targets.

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const self = fileURLToPath(import.meta.url);
const { blobPath, cacheDir } = await import("./generate.mjs");
const dir = path.join(cacheDir, "candidates");

/** The `objects` candidate's writer (plain objects, arrays and scalars: all the blob holds). */
function writeObjects(value) {
  const ids = new Map();
  const longs = new Map();
  let next = 0;
  let nextLong = 0;
  const slot = (v) => {
    if (typeof v === "string") {
      if (v.length >= 64) {
        const n = longs.get(v);
        if (n !== undefined) return `~s${n}`;
        longs.set(v, nextLong++);
      }
      return v.charCodeAt(0) === 126 ? `~${v}` : v;
    }
    if (v === undefined) return "~u";
    if (typeof v !== "object" || v === null) return v;
    const id = ids.get(v);
    if (id !== undefined) return `~${id}`;
    ids.set(v, next++);
    if (Array.isArray(v)) return v.map(slot);
    const out = {};
    for (const k of Object.keys(v)) out[k] = slot(v[k]);
    return out;
  };
  return JSON.stringify(["structura:objects", slot(value)]);
}

/** The `objects` candidate's reader: JSON.parse, then one walk replacing `~` strings in place. */
function readObjects(text) {
  const top = JSON.parse(text);
  const objs = [];
  const longs = [];
  const str = (v) => {
    if (v.charCodeAt(0) !== 126) {
      longs.push(v);
      return v;
    }
    const c = v.charCodeAt(1);
    if (c === 126) {
      const s = v.slice(1);
      if (s.length >= 64) longs.push(s);
      return s;
    }
    if (c === 115) return longs[+v.slice(2)];
    if (c >= 48 && c <= 57) return objs[+v.slice(1)];
    return undefined;
  };
  const walk = (o) => {
    objs.push(o);
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const v = o[i];
        if (typeof v === "object" && v !== null) walk(v);
        else if (typeof v === "string" && (v.length >= 64 || v.charCodeAt(0) === 126)) o[i] = str(v);
      }
    } else {
      for (const k in o) {
        const v = o[k];
        if (typeof v === "object" && v !== null) walk(v);
        else if (typeof v === "string" && (v.length >= 64 || v.charCodeAt(0) === 126)) o[k] = str(v);
      }
    }
  };
  walk(top[1]);
  return top[1];
}

const texts = ["v3", "objects", "devalue"];
const file = (name) => path.join(dir, `${name}.txt`);

if (process.argv[2] === "--child") {
  const [, , , name, op] = process.argv;
  const text = readFileSync(file(name), "utf8");
  text.charCodeAt(0);
  let fn;
  if (op === "JSON.parse") fn = () => JSON.parse(text);
  else if (name === "v3") {
    const { parse } = await import("../../dist/text.js");
    fn = () => parse(text);
  } else if (name === "devalue") {
    const { parse } = await import("devalue");
    fn = () => parse(text);
  } else fn = () => readObjects(text);
  const c0 = process.cpuUsage();
  const out = fn();
  const cpu = process.cpuUsage(c0);
  if (out === undefined) throw new Error("no result");
  process.stdout.write(JSON.stringify((cpu.user + cpu.system) / 1000));
  process.exit(0);
}

const runs = Number(process.argv[2]) || 3;
mkdirSync(dir, { recursive: true });
const { vitestBlobFunctions } = await import("./read.mjs");
const flattedText = readFileSync(blobPath, "utf8");
const value = (await vitestBlobFunctions()).parse(flattedText);
const text = await import("../../dist/text.js");
const devalue = await import("devalue");
const { serialize } = await import("@ungap/structured-clone");
const written = {
  v3: text.stringify(value),
  objects: writeObjects(value),
  devalue: devalue.stringify(value),
  flatted: flattedText,
  "@ungap": JSON.stringify(serialize(value, { lossy: true })),
};
// The objects reader must give back the blob: same counts and back-references as the original.
const { blobSummary, checkBlob } = await import("./read.mjs");
const check = checkBlob(readObjects(written.objects), blobSummary(value), true);
if (check !== true) throw new Error(`objects candidate: ${check}`);
for (const name of texts) writeFileSync(file(name), written[name]);

console.log(
  `vitest blob text candidates; node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at start, ${runs} processes per cell`,
);
const samples = {};
for (let i = 0; i < runs; i++) {
  for (const name of texts) {
    for (const op of ["JSON.parse", "read"]) {
      const key = `${name} ${op}`;
      const out = execFileSync(process.execPath, [self, "--child", name, op]);
      (samples[key] ??= []).push(JSON.parse(out.toString()));
    }
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const devalueRead = median(samples["devalue read"]);
console.log(
  "\ntext       MiB (UTF-8)  gzip MiB   JSON.parse cpu ms   whole read cpu ms   devalue read / read",
);
for (const name of Object.keys(written)) {
  const bytes = Buffer.byteLength(written[name]);
  const gzip = gzipSync(written[name], { level: 6 }).length;
  const row = [
    name.padEnd(10),
    (bytes / 2 ** 20).toFixed(2).padStart(11),
    (gzip / 2 ** 20).toFixed(2).padStart(9),
  ];
  if (texts.includes(name)) {
    const floor = median(samples[`${name} JSON.parse`]);
    const read = median(samples[`${name} read`]);
    row.push(floor.toFixed(0).padStart(19), read.toFixed(0).padStart(19));
    row.push(`${(devalueRead / read).toFixed(2)}× (floor ${(devalueRead / floor).toFixed(2)}×)`.padStart(22));
  }
  console.log(row.join(" "));
}
const limit = (n) => Buffer.byteLength(written[n]);
const gz = (n) => gzipSync(written[n], { level: 6 }).length;
for (const name of ["v3", "objects"]) {
  console.log(
    `${name}: bytes ≤ @ungap's ${limit(name) <= limit("@ungap") ? "yes" : "NO"}, gzip ≤ flatted's ${gz(name) <= gz("flatted") ? "yes" : "NO"}`,
  );
}
