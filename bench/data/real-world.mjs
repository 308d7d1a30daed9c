// Real-world and many-shape data for the clone and binary benchmarks: cases on which a last-shape cache
// or a per-shape compiled copier cannot hit on every object, so a benchmark cannot flatter.
//
// - `twitter.json` and `amazon_cellphones.ndjson`: public JSON corpora (simdjson's jsonexamples/). They
//   are not part of this repository. They are looked up in $STRUCTURA_BENCH_DATA (a folder), then in
//   ../shared/data/ beside the project root; when absent the case is left out with a message saying
//   where to get them.
// - 8 shapes interleaved: 1,000 records whose shape changes from one to the next (a-b-c-...-h-a-...).
// - 256 record types rotating: 1,024 records, each of 256 distinct key lists used 4 times.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const SOURCES = {
  "twitter.json": "https://github.com/simdjson/simdjson/raw/master/jsonexamples/twitter.json",
  "amazon_cellphones.ndjson":
    "https://github.com/simdjson/simdjson/raw/master/jsonexamples/amazon_cellphones.ndjson",
};

/** Folders searched for the corpora, in order. */
function dataFolders() {
  const env = process.env.STRUCTURA_BENCH_DATA;
  const folders = [];
  if (env) folders.push(path.resolve(env));
  folders.push(path.resolve(projectRoot, "..", "shared", "data"));
  return folders;
}

const warned = new Set();

/** The text of a corpus file, or undefined (with one message on stderr) when it cannot be found. */
function readCorpus(file) {
  for (const dir of dataFolders()) {
    const p = path.join(dir, file);
    if (existsSync(p)) return readFileSync(p, "utf8");
  }
  if (!warned.has(file)) {
    warned.add(file);
    console.error(
      `note: ${file} not found in ${dataFolders().join(" or ")}; its case is skipped.\n` +
        `      Download it from ${SOURCES[file]} into a folder and set STRUCTURA_BENCH_DATA to that folder.`,
    );
  }
  return undefined;
}

/** twitter.json parsed (632 KB, 1,264 objects, 25 key lists), or undefined when absent. */
export function twitter() {
  const text = readCorpus("twitter.json");
  return text === undefined ? undefined : JSON.parse(text);
}

/** amazon_cellphones.ndjson as an array of its 793 records, or undefined when absent. */
export function amazonCellphones() {
  const text = readCorpus("amazon_cellphones.ndjson");
  if (text === undefined) return undefined;
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** 1,000 records of 8 shapes, interleaved: no two neighbours share a shape. */
export function interleavedShapes(n = 1000) {
  const makers = [
    (i) => ({ id: i, name: `user-${i}`, active: i % 2 === 0 }),
    (i) => ({ id: i, title: `post ${i}`, body: "lorem ipsum dolor sit amet", likes: i * 3, draft: false }),
    (i) => ({ sku: `SKU-${i}`, price: i * 1.25, stock: i % 17, tags: ["a", "b"] }),
    (i) => ({ lat: i / 1000, lng: -i / 1000, label: null }),
    (i) => ({ orderId: i, customer: { id: i % 50, name: `c${i % 50}` }, total: i * 2.5, paid: true }),
    (i) => ({ event: "click", at: 1_700_000_000 + i, x: i % 800, y: i % 600, target: "#btn" }),
    (i) => ({ key: `k${i}`, value: `v${i}` }),
    (i) => ({ a: i, b: i + 1, c: i + 2, d: i + 3, e: i + 4, f: i + 5, g: "seven", h: [i, i] }),
  ];
  return Array.from({ length: n }, (_, i) => makers[i % makers.length](i));
}

/** 1,024 records of 256 distinct key lists (3–8 keys each), rotating: each shape recurs every 256. */
export function rotatingTypes(n = 1024, types = 256) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = i % types;
    const o = {};
    const width = 3 + (t % 6);
    for (let k = 0; k < width; k++) {
      const key = `t${t}_${k}`;
      o[key] = k % 3 === 0 ? i * k : k % 3 === 1 ? `s${i}` : k % 2 === 0;
    }
    out.push(o);
  }
  return out;
}

/** The real-world and many-shape cases, corpora first; cases whose corpus is absent are left out. */
export function realWorldCases() {
  const list = [];
  const tw = twitter();
  if (tw !== undefined) list.push({ name: "twitter.json", value: tw, json: true, cyclic: false });
  const amazon = amazonCellphones();
  if (amazon !== undefined)
    list.push({ name: "amazon_cellphones.ndjson", value: amazon, json: true, cyclic: false });
  list.push({ name: "8 shapes interleaved", value: interleavedShapes(), json: true, cyclic: false });
  list.push({ name: "256 types rotating", value: rotatingTypes(), json: true, cyclic: false });
  return list;
}
