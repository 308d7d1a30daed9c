import { prng } from "../lib/random.mjs";

// Datasets for the text-format benchmark (bench/text.mjs).
//
// vitestReport(): what Vitest's blob reporter writes: `[version, files, errors, moduleKeys, coverage,
// executionTime]`, where `files` are File tasks shaped after @vitest/runner's task types
// (packages/runner/src/types/tasks.ts): every task has `id`, `name`, `mode`, `meta`, `suite`, `file`,
// `result`, `location`, ...; suites have `tasks`; Test/Suite point back at their `suite` and `file`, the
// File points at itself (`file.file === file`), so the graph is cyclic. Results carry state, timings,
// hook states and, for failed tests, serialized errors (the runner sends plain objects, not Error
// instances) with long stack strings, parsed stack frames and diffs. Optional task fields that the
// runner leaves `undefined` are present as keys with value undefined, as in the runner's object literals;
// `meta` is a null-prototype object, as the runner creates it.
//
// acyclicReport(): the same data with back-references replaced by ids and undefined keys dropped: what
// plain JSON can carry, used for the JSON floor.
//
// records(): an array of flat records (JSON-compatible). sharedGraph(): a graph whose nodes are
// referenced from many places (heavy sharing and cycles).
//
// All data is deterministic (seeded PRNG).

const WORDS = [
  "renders",
  "handles",
  "parses",
  "returns",
  "throws",
  "updates",
  "the",
  "empty",
  "list",
  "user",
  "session",
  "token",
  "when",
  "invalid",
  "cache",
  "request",
  "response",
  "config",
  "nested",
  "value",
  "correctly",
  "timeout",
  "error",
  "state",
];

function sentence(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(" ");
}

function stackFor(rand, filepath, frames) {
  const lines = ["AssertionError: expected 'actual value' to deeply equal 'expected value'"];
  for (let i = 0; i < frames; i++) {
    const fn = i === 0 ? "" : `${WORDS[Math.floor(rand() * WORDS.length)]}Fn `;
    const file =
      i < 2
        ? filepath
        : `/home/ci/project/node_modules/@vitest/runner/dist/chunk-hooks.${Math.floor(rand() * 9)}.js`;
    lines.push(
      `    at ${fn}${i === 0 ? "" : "("}${file}:${1 + Math.floor(rand() * 900)}:${1 + Math.floor(rand() * 60)}${i === 0 ? "" : ")"}`,
    );
  }
  return lines.join("\n");
}

function serializedError(rand, filepath) {
  const stack = stackFor(rand, filepath, 12 + Math.floor(rand() * 20));
  const stacks = [];
  for (let i = 0; i < 3; i++) {
    stacks.push({
      method: i === 0 ? "" : `${WORDS[Math.floor(rand() * WORDS.length)]}Fn`,
      file: filepath,
      line: 1 + Math.floor(rand() * 400),
      column: 1 + Math.floor(rand() * 40),
    });
  }
  return {
    name: "AssertionError",
    message: `expected '${sentence(rand, 3)}' to deeply equal '${sentence(rand, 3)}'`,
    stack,
    stackStr: stack,
    stacks,
    showDiff: true,
    actual: `'${sentence(rand, 3)}'`,
    expected: `'${sentence(rand, 3)}'`,
    operator: "strictEqual",
    diff: `- Expected\n+ Received\n\n- ${sentence(rand, 4)}\n+ ${sentence(rand, 4)}`,
  };
}

/**
 * A Vitest-like blob report. `files` × `testsPerFile` tests (default 500 × 100 = 50,000), 2% failing.
 */
export function vitestReport({ files = 500, testsPerFile = 100, seed = 9549 } = {}) {
  const rand = prng(seed);
  const fileTasks = [];
  let startTime = 1_769_700_000_000;
  for (let f = 0; f < files; f++) {
    const filepath = `/home/ci/project/packages/pkg-${f % 37}/test/${sentence(rand, 2).replace(/ /g, "-")}-${f}.test.ts`;
    const fileId = String(1_000_000_000 + Math.floor(rand() * 1_000_000_000));
    const file = {
      id: fileId,
      name: filepath.slice("/home/ci/project/".length),
      type: "suite",
      mode: "run",
      filepath,
      tasks: [],
      meta: Object.create(null),
      projectName: "",
      file: undefined,
      suite: undefined,
      result: undefined,
      pool: "forks",
      collectDuration: 20 + rand() * 200,
      setupDuration: 1 + rand() * 30,
      prepareDuration: 5 + rand() * 50,
      environmentLoad: rand() * 10,
      importDurations: {},
      each: undefined,
      concurrent: undefined,
      shuffle: undefined,
    };
    file.file = file;
    const suiteCount = 2 + Math.floor(rand() * 3);
    const suites = [];
    for (let s = 0; s < suiteCount; s++) {
      const suite = {
        id: `${fileId}_${s}`,
        name: sentence(rand, 3),
        type: "suite",
        mode: "run",
        each: undefined,
        concurrent: undefined,
        shuffle: undefined,
        file,
        suite: file,
        tasks: [],
        meta: Object.create(null),
        location: { line: 3 + s * 40, column: 1 },
        result: {
          state: "pass",
          duration: rand() * 50,
          startTime,
          hooks: { beforeAll: "pass", afterAll: "pass" },
        },
      };
      file.tasks.push(suite);
      suites.push(suite);
    }
    let failed = false;
    for (let t = 0; t < testsPerFile; t++) {
      const suite = suites[t % suiteCount];
      const fails = rand() < 0.02;
      const duration = rand() * 40;
      startTime += Math.floor(duration);
      const result = {
        state: fails ? "fail" : "pass",
        startTime,
        duration,
        retryCount: 0,
        repeatCount: 0,
        hooks: { beforeEach: "pass", afterEach: "pass" },
      };
      if (fails) {
        failed = true;
        result.errors = [serializedError(rand, filepath)];
      }
      suite.tasks.push({
        id: `${suite.id}_${suite.tasks.length}`,
        name: sentence(rand, 4 + Math.floor(rand() * 5)),
        type: "test",
        mode: "run",
        each: undefined,
        fails: undefined,
        concurrent: undefined,
        shuffle: undefined,
        timeout: 5000,
        retry: 0,
        repeats: 0,
        meta: Object.create(null),
        suite,
        file,
        location: { line: 5 + t * 7, column: 5 },
        result,
        annotations: [],
        artifacts: [],
      });
    }
    file.result = { state: failed ? "fail" : "pass", duration: 50 + rand() * 500, startTime };
    fileTasks.push(file);
  }
  const moduleKeys = fileTasks.map((f) => ["", f.filepath, [f.filepath.replace(".test.ts", ".ts")]]);
  return ["3.2.4", fileTasks, [], moduleKeys, undefined, 123_456.789];
}

/** The report as plain JSON can hold it: back-references as ids, no undefined, plain `meta`. */
export function acyclicReport(options) {
  const report = vitestReport(options);
  const strip = (task) => {
    const out = {};
    for (const key of Object.keys(task)) {
      const v = task[key];
      if (v === undefined) continue;
      if (key === "file" || key === "suite") out[key] = v.id;
      else if (key === "tasks") out.tasks = v.map(strip);
      else if (key === "meta") out.meta = {};
      else out[key] = v;
    }
    return out;
  };
  return [report[0], report[1].map(strip), report[2], report[3], null, report[5]];
}

/** `count` flat records, JSON-compatible. */
export function records(count = 20_000, seed = 7) {
  const rand = prng(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push({
      id: i,
      uuid: `${Math.floor(rand() * 1e9).toString(16)}-${Math.floor(rand() * 1e9).toString(16)}`,
      name: sentence(rand, 2),
      email: `user${i}@example.com`,
      active: rand() < 0.7,
      score: Math.round(rand() * 100_000) / 100,
      age: 18 + Math.floor(rand() * 60),
      tags: [WORDS[i % WORDS.length], WORDS[(i * 7) % WORDS.length]],
      createdAt: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
    });
  }
  return out;
}

/** A check of a decoded copy of `data` (records()): length, and the last record's fields of each type. */
export function recordsCheck(data) {
  const ref = data[data.length - 1];
  return (out) => {
    if (!Array.isArray(out) || out.length !== data.length) return "wrong result (length)";
    const last = out[out.length - 1];
    if (last.score !== ref.score || last.uuid !== ref.uuid || last.tags[1] !== ref.tags[1])
      return "wrong result";
    return true;
  };
}

/**
 * A highly shared graph: `count` nodes, each referencing `degree` others (so most objects are reached
 * many times), with shared tag objects and cycles.
 */
export function sharedGraph(count = 5_000, degree = 8, seed = 11) {
  const rand = prng(seed);
  const tags = [];
  for (let i = 0; i < 50; i++) tags.push({ name: WORDS[i % WORDS.length], weight: i });
  const nodes = [];
  for (let i = 0; i < count; i++)
    nodes.push({ id: i, label: `n${i}`, tag: tags[i % tags.length], edges: [] });
  for (const node of nodes) {
    for (let d = 0; d < degree; d++) node.edges.push(nodes[Math.floor(rand() * count)]);
  }
  return { nodes, tags, root: nodes[0] };
}
