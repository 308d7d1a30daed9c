// Compat-module benchmark: structura/compat/devalue against devalue and structura/compat/ungap (+ /json)
// against @ungap/structured-clone, each pair in one process on the same data, in both directions.
//
//   npm run build && node --expose-gc bench/text.compat.mjs      (or: npm run bench -- text.compat)
//   BENCH_FILTER=records BENCH_QUICK=1 node bench/text.compat.mjs
//
// Datasets: the Vitest-like report (500 files × 100 tests, cyclic; bench/data/vitest-report.mjs) and the
// record array (20,000 flat records). Each case measures the compat module ("structura") against the
// library it replaces, each reading what it wrote itself. Rows marked "reads <peer>'s" measure the
// compat module reading the peer's own output (the migration path), against the peer reading it.
// `uneval` is measured one way (its output is evaluated, not parsed). Every output is checked once.

import ungapClone, {
  deserialize as ungapDeserialize,
  serialize as ungapSerialize,
} from "@ungap/structured-clone";
import { parse as ungapParse, stringify as ungapStringify } from "@ungap/structured-clone/json";
import * as devalue from "devalue";
import { records, recordsCheck, vitestReport } from "./data/vitest-report.mjs";
import { createSuite, formatRatio, loadBuilt, matchesFilter, sizeColumns, sizes } from "./lib/harness.mjs";

const compatDevalue = await loadBuilt(
  () => import("../dist/compat/devalue.js"),
  ["stringify", "parse", "uneval"],
);
const compatUngap = await loadBuilt(
  () => import("../dist/compat/ungap.js"),
  ["serialize", "deserialize", "default"],
);
const compatUngapJson = await loadBuilt(() => import("../dist/compat/ungap/json.js"), ["stringify", "parse"]);

// ---------------------------------------------------------------------------------------------------
// checks

const report = vitestReport();
let expectedTests = 0;
for (const file of report[1]) for (const suite of file.tasks) expectedTests += suite.tasks.length;
const recordData = records();

function checkReport(out) {
  const files = out?.[1];
  if (!Array.isArray(files) || files.length !== report[1].length) return "wrong result (files)";
  let tests = 0;
  for (const file of files) {
    if (file.file !== file) return "wrong result (file.file is not the file)";
    for (const suite of file.tasks) {
      if (suite.file !== file) return "wrong result (suite back-reference)";
      for (const test of suite.tasks) {
        tests++;
        if (test.suite !== suite) return "wrong result (test.suite back-reference)";
        if (typeof test.result?.duration !== "number") return "wrong result (duration)";
      }
    }
  }
  return tests === expectedTests ? true : `wrong result (${tests} tests)`;
}

const checkRecords = recordsCheck(recordData);

const datasets = [
  { name: "vitest report", value: report, check: checkReport },
  { name: "records", value: recordData, check: checkRecords },
];

// ---------------------------------------------------------------------------------------------------
// run

const suite = createSuite("text.compat", {
  title: "compat modules benchmark (devalue, @ungap/structured-clone)",
  timeMs: 2000,
  means: true,
});
suite.header();

const targetCases = [];

/** A pair: `ours` and `theirs` write (or read), checked by reading back with the matching reader. */
async function pair(caseName, peer, ours, theirs, options = {}) {
  if (!matchesFilter(caseName)) return;
  const impls = [
    { name: "structura", ...ours },
    { name: peer, ...theirs },
  ];
  await suite.case(caseName, impls, options);
  if (options.target !== false) targetCases.push([caseName, peer]);
}

/** A function computing `make()` once, on first call (texts of a dataset the filter leaves out are never made). */
function once(make) {
  let done = false;
  let result;
  return () => {
    if (!done) {
      result = make();
      done = true;
    }
    return result;
  };
}

for (const d of datasets) {
  const { value, check } = d;
  const cases = [
    "devalue stringify",
    "devalue parse",
    "devalue parse (reads devalue's text)",
    "devalue uneval",
    "ungap serialize",
    "ungap deserialize",
    "ungap deserialize (reads @ungap's output)",
    "ungap structuredClone({ json: true })",
    "ungap/json stringify",
    "ungap/json parse",
    "ungap/json parse (reads @ungap's text)",
  ];
  if (!cases.some((c) => matchesFilter(`${d.name} · ${c}`))) continue;
  // devalue
  const ourDevalue = once(() => compatDevalue.stringify(value));
  const theirDevalue = once(() => devalue.stringify(value));
  await pair(
    `${d.name} · devalue stringify`,
    "devalue",
    {
      fn: () => compatDevalue.stringify(value),
      check: () => check(compatDevalue.parse(ourDevalue())),
      get extra() {
        return sizes(ourDevalue());
      },
    },
    {
      fn: () => devalue.stringify(value),
      check: () => check(devalue.parse(theirDevalue())),
      get extra() {
        return sizes(theirDevalue());
      },
    },
    { columns: sizeColumns },
  );
  await pair(
    `${d.name} · devalue parse`,
    "devalue",
    { fn: () => compatDevalue.parse(ourDevalue()), check },
    { fn: () => devalue.parse(theirDevalue()), check },
  );
  await pair(
    `${d.name} · devalue parse (reads devalue's text)`,
    "devalue",
    { fn: () => compatDevalue.parse(theirDevalue()), check },
    { fn: () => devalue.parse(theirDevalue()), check },
    { target: false },
  );
  await pair(
    `${d.name} · devalue uneval`,
    "devalue",
    {
      fn: () => compatDevalue.uneval(value),
      get extra() {
        return sizes(compatDevalue.uneval(value));
      },
    },
    {
      fn: () => devalue.uneval(value),
      get extra() {
        return sizes(devalue.uneval(value));
      },
    },
    { columns: sizeColumns },
  );

  // @ungap/structured-clone: record arrays (serialize/deserialize)
  const ourRecords = once(() => compatUngap.serialize(value));
  const theirRecords = once(() => ungapSerialize(value));
  await pair(
    `${d.name} · ungap serialize`,
    "@ungap/structured-clone",
    {
      fn: () => compatUngap.serialize(value),
      check: () => check(compatUngap.deserialize(ourRecords())),
    },
    { fn: () => ungapSerialize(value), check: () => check(ungapDeserialize(theirRecords())) },
  );
  await pair(
    `${d.name} · ungap deserialize`,
    "@ungap/structured-clone",
    { fn: () => compatUngap.deserialize(ourRecords()), check },
    { fn: () => ungapDeserialize(theirRecords()), check },
  );
  await pair(
    `${d.name} · ungap deserialize (reads @ungap's output)`,
    "@ungap/structured-clone",
    { fn: () => compatUngap.deserialize(theirRecords()), check },
    { fn: () => ungapDeserialize(theirRecords()), check },
    { target: false },
  );
  await pair(
    `${d.name} · ungap structuredClone({ json: true })`,
    "@ungap/structured-clone",
    { fn: () => compatUngap.default(value, { json: true }), check },
    { fn: () => ungapClone(value, { json: true }), check },
  );

  // @ungap/structured-clone/json
  const ourJson = once(() => compatUngapJson.stringify(value));
  const theirJson = once(() => ungapStringify(value));
  await pair(
    `${d.name} · ungap/json stringify`,
    "@ungap/structured-clone",
    {
      fn: () => compatUngapJson.stringify(value),
      check: () => check(compatUngapJson.parse(ourJson())),
      get extra() {
        return sizes(ourJson());
      },
    },
    {
      fn: () => ungapStringify(value),
      check: () => check(ungapParse(theirJson())),
      get extra() {
        return sizes(theirJson());
      },
    },
    { columns: sizeColumns },
  );
  await pair(
    `${d.name} · ungap/json parse`,
    "@ungap/structured-clone",
    { fn: () => compatUngapJson.parse(ourJson()), check },
    { fn: () => ungapParse(theirJson()), check },
  );
  await pair(
    `${d.name} · ungap/json parse (reads @ungap's text)`,
    "@ungap/structured-clone",
    { fn: () => compatUngapJson.parse(theirJson()), check },
    { fn: () => ungapParse(theirJson()), check },
    { target: false },
  );
}

// ---------------------------------------------------------------------------------------------------
// targets (issue 19): each compat module at least as fast as the library it replaces, both directions

for (const [caseName, peer] of targetCases) {
  suite.target(`${caseName}: at least as fast as ${peer}`, () => {
    const ours = suite.median(caseName, "structura");
    const theirs = suite.median(caseName, peer);
    if (ours === undefined || theirs === undefined) return { status: "SKIP", detail: "not measured" };
    const m1 = suite.mean(caseName, "structura");
    const m2 = suite.mean(caseName, peer);
    const means = m1 === undefined || m2 === undefined ? "" : `; means: ${formatRatio(m2 / m1)}`;
    return {
      status: theirs / ours >= 1 ? "PASS" : "MISS",
      detail: `${formatRatio(theirs / ours)} faster than ${peer}${means}`,
    };
  });
}

suite.finish();
