// Text-format benchmark: structura `stringify`/`parse` against flatted, devalue,
// @ungap/structured-clone/json, superjson and seroval (its JSON form) in one process, with
// JSON.stringify/JSON.parse on the acyclic equivalent of each dataset as the floor.
//
//   npm run build && node --expose-gc bench/text.mjs        (or: npm run bench -- text)
//   BENCH_FILTER=vitest BENCH_QUICK=1 node bench/text.mjs
//   BENCH_LIBS=flatted,devalue,ungap node --expose-gc bench/text.mjs   only those peers (by label), with
//     structura and the JSON floor always measured: superjson and seroval take seconds a call on the
//     real blob, which on a busy machine makes a full run last half an hour
//
// Datasets:
// - "vitest blob (real)": a blob report written by Vitest itself (`vitest run --reporter=blob`) over a
//   generated project of 500 test files × 100 tests (bench/vitest-blob/generate.mjs), read back the way
//   `vitest --merge-reports` reads it (bench/vitest-blob/read.mjs): the value is the tuple
//   `[version, files, errors, moduleKeys, coverage, executionTime]` Vitest's own flatted `parse` returns.
//   The blob is generated once into bench/.cache/vitest-blob/ (ignored by git; a few minutes, announced
//   on stderr) when it is missing or was made by another generator or Vitest version.
// - "vitest report (synthetic)" (bench/data/vitest-report.mjs): a Vitest-like report built in memory
//   (500 files × 100 tests, cyclic), an array of flat records, and a highly shared graph.
// Beside each case, the engine floor under structura's figure: JSON.stringify writing structura's own
// text from a ready tree, and JSON.parse reading it (the targets print what the floor alone would score).
// Each output is checked once by parsing it back with the same library; an implementation that throws
// or loses data is shown as n/a with the reason. Medians and means are both printed: the means count
// every sample, garbage collections included, as a user running one call after another would see.

import { parse as ungapParse, stringify as ungapStringify } from "@ungap/structured-clone/json";
import * as devalue from "devalue";
import * as flatted from "flatted";
import { fromJSON as serovalFromJSON, toJSON as serovalToJSON } from "seroval";
import SuperJSON from "superjson";
import { acyclicReport, records, recordsCheck, sharedGraph, vitestReport } from "./data/vitest-report.mjs";
import { createSuite, formatRatio, loadBuilt, matchesFilter, sizeColumns, sizes } from "./lib/harness.mjs";
import { ensureBlob } from "./vitest-blob/generate.mjs";
import { acyclicBlob, blobSummary, checkBlob, readVitestBlob } from "./vitest-blob/read.mjs";

const { stringify, parse } = await loadBuilt(() => import("../dist/text.js"), ["stringify", "parse"]);

const allLibs = [
  { name: "structura", stringify: (v) => stringify(v), parse: (s) => parse(s) },
  { name: "flatted", stringify: (v) => flatted.stringify(v), parse: (s) => flatted.parse(s) },
  { name: "devalue", stringify: (v) => devalue.stringify(v), parse: (s) => devalue.parse(s) },
  {
    name: "@ungap/structured-clone/json",
    label: "ungap",
    stringify: (v) => ungapStringify(v),
    parse: (s) => ungapParse(s),
  },
  { name: "superjson", stringify: (v) => SuperJSON.stringify(v), parse: (s) => SuperJSON.parse(s) },
  {
    name: "seroval (toJSON)",
    label: "seroval",
    stringify: (v) => JSON.stringify(serovalToJSON(v)),
    parse: (s) => serovalFromJSON(JSON.parse(s)),
  },
];

const wanted = (process.env.BENCH_LIBS ?? "")
  .split(",")
  .map((x) => x.trim())
  .filter(Boolean);
const libs = allLibs.filter(
  (l) => l.name === "structura" || wanted.length === 0 || wanted.includes(l.label ?? l.name),
);

// ---------------------------------------------------------------------------------------------------
// checks: the data must come back (counts, values, and for cyclic data, the back-references)

function checkReport(out, cyclic) {
  const files = out?.[1];
  if (!Array.isArray(files) || files.length === 0) return "wrong result (no files)";
  let tests = 0;
  let errors = 0;
  for (const file of files) {
    if (cyclic && file.file !== file) return "wrong result (file.file is not the file)";
    for (const suite of file.tasks) {
      if (cyclic && (suite.file !== file || suite.suite !== file))
        return "wrong result (suite back-reference)";
      for (const test of suite.tasks) {
        tests++;
        if (cyclic && test.suite !== suite) return "wrong result (test.suite back-reference)";
        if (typeof test.result?.duration !== "number") return "wrong result (duration)";
        if (test.result.errors) errors += test.result.errors.length;
      }
    }
  }
  if (tests !== expectedTests) return `wrong result (${tests} tests, expected ${expectedTests})`;
  if (errors !== expectedErrors) return `wrong result (${errors} errors, expected ${expectedErrors})`;
  return true;
}

function checkGraph(out) {
  const nodes = out?.nodes;
  if (!Array.isArray(nodes) || nodes.length !== graphData.nodes.length) return "wrong result (nodes)";
  if (out.root !== nodes[0]) return "wrong result (root is not shared)";
  for (let i = 0; i < nodes.length; i += 97) {
    const edge = nodes[i].edges[3];
    if (nodes[edge.id] !== edge) return "wrong result (edges not shared)";
    if (nodes[i].tag !== out.tags[i % out.tags.length]) return "wrong result (tags not shared)";
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// data

const report = vitestReport();
const reportJson = acyclicReport();
let expectedTests = 0;
let expectedErrors = 0;
for (const file of report[1]) {
  for (const suite of file.tasks) {
    for (const test of suite.tasks) {
      expectedTests++;
      if (test.result.errors) expectedErrors += test.result.errors.length;
    }
  }
}
const recordData = records();
const checkRecords = recordsCheck(recordData);
const graphData = sharedGraph();
const graphJson = {
  nodes: graphData.nodes.map((n) => ({
    id: n.id,
    label: n.label,
    tag: n.tag.name,
    edges: n.edges.map((e) => e.id),
  })),
  tags: graphData.tags,
  root: 0,
};

const BLOB = "vitest blob (real)";
// One name for both floors, so that the summary shows them in one column: in a stringify case it is
// JSON.stringify of structura's tree, in a parse case JSON.parse of structura's text.
const FLOOR = "floor: native JSON on structura's text";
const SYNTHETIC = "vitest report (synthetic)";

/** The real blob's dataset, generating the blob first if needed; undefined when filtered out. */
async function blobDataset() {
  if (!matchesFilter(`${BLOB} · stringify`) && !matchesFilter(`${BLOB} · parse`)) return undefined;
  const meta = await ensureBlob();
  const { text, value, chunk } = await readVitestBlob();
  const summary = blobSummary(value);
  const json = acyclicBlob(value);
  console.log(
    `${BLOB}: ${text.length} chars written by vitest ${value[0]} (generated in ${meta.seconds} s), read with parse() of ${chunk}`,
  );
  console.log(
    `  ${summary.files} files, ${summary.suites} suites, ${summary.tests} tests (${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped, ${summary.todo} todo), ${summary.failedFiles} files failed to load, ${summary.taskErrors} errors on tasks (causes and aggregated errors included), ${summary.logs} console entries, ${summary.modules} module-graph entries`,
  );
  console.log("");
  return {
    name: BLOB,
    value,
    json,
    check: (out) => checkBlob(out, summary, true),
    jsonCheck: (out) => checkBlob(out, summary, false),
  };
}

const realBlob = await blobDataset();

const datasets = [
  ...(realBlob ? [realBlob] : []),
  {
    name: SYNTHETIC,
    value: report,
    json: reportJson,
    check: (out) => checkReport(out, true),
    jsonCheck: (out) => checkReport(out, false),
  },
  { name: "records", value: recordData, json: recordData, check: checkRecords, jsonCheck: checkRecords },
  { name: "shared graph", value: graphData, json: graphJson, check: checkGraph, jsonCheck: () => true },
];

// ---------------------------------------------------------------------------------------------------
// run

// The report's cases take 0.1 to 4 s a call: 2 s per measurement gives structura and the peers near it
// about ten samples each (400 ms gave three or four, whose median moved by 30 % between runs).
const suite = createSuite("text", {
  title: "text format benchmark (stringify / parse)",
  timeMs: 2000,
  means: true,
});
suite.header();

for (const d of datasets) {
  // a dataset BENCH_FILTER leaves out is not even encoded (the reports take seconds a library)
  if (!matchesFilter(`${d.name} · stringify`) && !matchesFilter(`${d.name} · parse`)) continue;
  const texts = new Map();
  const stringifyImpls = [];
  const parseImpls = [];
  for (const lib of libs) {
    let text;
    try {
      text = lib.stringify(d.value);
    } catch (error) {
      const skip = `throws ${error?.name ?? "error"}: ${String(error?.message ?? error).slice(0, 60)}`;
      stringifyImpls.push({ name: lib.name, label: lib.label, skip });
      parseImpls.push({ name: lib.name, label: lib.label, skip });
      continue;
    }
    texts.set(lib.name, text);
    const extra = sizes(text);
    stringifyImpls.push({
      name: lib.name,
      label: lib.label,
      extra,
      fn: () => lib.stringify(d.value),
      check: () => d.check(lib.parse(text)),
    });
    parseImpls.push({ name: lib.name, label: lib.label, extra, fn: () => lib.parse(text), check: d.check });
  }
  // The engine floors under structura's figures: the native serializer writing structura's very text
  // from a ready JSON tree (the tree the writer builds, got back by JSON.parse), and the native parser
  // reading that text. The writer and reader add only their walk (numbering, shapes, references) to
  // these, so a target a floor already misses cannot be met by the walk.
  const ours = texts.get("structura");
  if (ours !== undefined) {
    const tree = JSON.parse(ours);
    stringifyImpls.push({
      name: FLOOR,
      label: "floor",
      extra: sizes(ours),
      fn: () => JSON.stringify(tree),
    });
    parseImpls.push({ name: FLOOR, label: "floor", extra: sizes(ours), fn: () => JSON.parse(ours) });
  }
  const jsonText = JSON.stringify(d.json);
  stringifyImpls.push({
    name: "JSON (acyclic equivalent)",
    label: "JSON",
    extra: sizes(jsonText),
    fn: () => JSON.stringify(d.json),
  });
  parseImpls.push({
    name: "JSON (acyclic equivalent)",
    label: "JSON",
    extra: sizes(jsonText),
    fn: () => JSON.parse(jsonText),
    check: d.jsonCheck,
  });
  d.texts = texts;
  d.jsonBytes = sizes(jsonText);
  await suite.case(`${d.name} · stringify`, stringifyImpls, { columns: sizeColumns });
  await suite.case(`${d.name} · parse`, parseImpls, { columns: sizeColumns });
}

// ---------------------------------------------------------------------------------------------------
// targets (Node, medians; the means' ratio is shown beside)

const JSON_NAME = "JSON (acyclic equivalent)";

function meanRatio(caseName, a, b) {
  const x = suite.mean(caseName, a);
  const y = suite.mean(caseName, b);
  return x === undefined || y === undefined ? "" : `; means: ${formatRatio(x / y)}`;
}

/** The engine floor of a case (see FLOOR), by median, or undefined. */
function floorOf(caseName) {
  return suite.median(caseName, FLOOR);
}

function faster(caseName, other, factor) {
  return () => {
    const ours = suite.median(caseName, "structura");
    const theirs = suite.median(caseName, other);
    if (ours === undefined || theirs === undefined) return { status: "SKIP", detail: "not measured" };
    const ratio = theirs / ours;
    const floor = floorOf(caseName);
    return {
      status: ratio >= factor ? "PASS" : "MISS",
      detail:
        `${formatRatio(ratio)} faster than ${other}${meanRatio(caseName, other, "structura")}` +
        (floor === undefined ? "" : `; engine floor alone: ${formatRatio(theirs / floor)}`),
    };
  };
}

function withinOf(caseName, factor) {
  return () => {
    const ours = suite.median(caseName, "structura");
    const json = suite.median(caseName, JSON_NAME);
    if (ours === undefined || json === undefined) return { status: "SKIP", detail: "not measured" };
    const ratio = ours / json;
    const floor = floorOf(caseName);
    return {
      status: ratio <= factor ? "PASS" : "MISS",
      detail:
        `${ratio.toFixed(2)}× JSON's time${meanRatio(caseName, "structura", JSON_NAME)}` +
        (floor === undefined ? "" : `; engine floor alone: ${(floor / json).toFixed(2)}×`),
    };
  };
}

function size(dataset, key, other) {
  return () => {
    const d = datasets.find((x) => x.name === dataset);
    const ours = d?.texts?.get("structura");
    const theirs = d?.texts?.get(other);
    if (ours === undefined || theirs === undefined) return { status: "SKIP", detail: "not measured" };
    const a = sizes(ours)[key];
    const b = sizes(theirs)[key];
    return {
      status: a <= b ? "PASS" : "MISS",
      detail: `${a} vs ${b} ${key} (${((a / b) * 100).toFixed(1)}%)`,
    };
  };
}

// issue 15: on the real Vitest blob
suite.target(`${BLOB}: stringify ≥ 3× faster than flatted`, faster(`${BLOB} · stringify`, "flatted", 3));
suite.target(`${BLOB}: parse ≥ 2× faster than devalue`, faster(`${BLOB} · parse`, "devalue", 2));
suite.target(`${BLOB}: stringify within 2× of JSON (acyclic)`, withinOf(`${BLOB} · stringify`, 2));
suite.target(`${BLOB}: parse within 2× of JSON (acyclic)`, withinOf(`${BLOB} · parse`, 2));
suite.target(
  `${BLOB}: bytes ≤ @ungap/structured-clone/json`,
  size(BLOB, "bytes", "@ungap/structured-clone/json"),
);
suite.target(`${BLOB}: gzip bytes ≤ flatted`, size(BLOB, "gzip", "flatted"));

// the earlier targets, on the synthetic report
const S = SYNTHETIC;
suite.target(`${S}: stringify ≥ 2× faster than flatted`, faster(`${S} · stringify`, "flatted", 2));
suite.target(`${S}: parse ≥ 2× faster than devalue`, faster(`${S} · parse`, "devalue", 2));
suite.target(`${S}: bytes ≤ @ungap/structured-clone/json`, size(S, "bytes", "@ungap/structured-clone/json"));
suite.target(`${S}: gzip bytes ≤ flatted`, size(S, "gzip", "flatted"));
suite.target(`${S}: stringify within 2× of JSON (acyclic)`, withinOf(`${S} · stringify`, 2));
suite.target(`${S}: parse within 2× of JSON (acyclic)`, withinOf(`${S} · parse`, 2));

suite.finish();
