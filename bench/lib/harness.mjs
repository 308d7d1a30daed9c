// Shared benchmark harness for every capability benchmark (clone, binary, text, formdata, channel).
//
// A capability benchmark creates one suite, then for each reference case hands it a list of named
// implementations that all work on the same data in the same process. The harness checks each
// implementation once (it may throw or give a wrong answer: it is then shown as "n/a" with the reason),
// measures the rest with mitata, and prints a compact table per case: median time, ratio against the
// baseline (structura), and optional extra columns (e.g. encoded bytes and gzip bytes for codecs).
// At the end it prints a cases x implementations matrix and the PASS/MISS lines of the targets, and
// writes a JSON report if BENCH_JSON is set (bench/lib/report.mjs turns those into BENCHMARKS.md).
//
// Environment:
//   BENCH_FILTER=text   only cases whose name contains `text` (case-insensitive; `a,b` = either)
//   BENCH_QUICK=1       short runs, to smoke-test the benchmark itself (numbers are rough)
//   BENCH_TIME=ms       measuring time per implementation and case (default 400, quick 25)
//   BENCH_ROUNDS=n      split that time into n rounds, interleaved across implementations (default 3,
//                       quick 1), so load from elsewhere on the machine is spread over all of them
//   BENCH_JSON=path     write a JSON report: a file path ending in .json, or a directory (one file
//                       per capability and runtime: <dir>/<capability>.<runtime>.json)
//   BENCH_MITATA=1      use mitata's own bench()/summary()/run() with its default tuning and its own
//                       verbose output (slower; handy to cross-check the harness)
//
// Figures are medians (p50) of mitata's samples, in nanoseconds in the JSON.

import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { bench, do_not_optimize, measure, run, summary } from "mitata";

// ---------------------------------------------------------------------------------------------------
// environment

export const isBun = typeof globalThis.Bun !== "undefined";

/** `{ name: "node" | "bun", version }` of the runtime executing this process. */
export const runtime = isBun
  ? { name: "bun", version: globalThis.Bun.version }
  : { name: "node", version: process.versions.node };

export const machine = {
  cpu: os.cpus()[0]?.model?.trim() ?? "unknown CPU",
  cores: os.cpus().length,
  arch: process.arch,
  platform: process.platform,
};

/**
 * The commit the measured build most likely comes from (read-only git queries; undefined outside a
 * checkout), flagged when tracked files under src/ differ from it.
 */
function revision() {
  const cwd = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const git = (args) => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
  try {
    const head = git(["rev-parse", "--short", "HEAD"]).toString().trim();
    try {
      git(["diff", "--quiet", "HEAD", "--", "src"]);
      return head;
    } catch {
      return `${head} + uncommitted changes in src/`;
    }
  } catch {
    return undefined;
  }
}

const env = process.env;
const quick = env.BENCH_QUICK === "1";

export const settings = {
  quick,
  filter: env.BENCH_FILTER ?? "",
  json: env.BENCH_JSON ?? "",
  mitata: env.BENCH_MITATA === "1",
  /** mitata min_cpu_time per measurement, in ms. */
  timeMs: Number(env.BENCH_TIME) > 0 ? Number(env.BENCH_TIME) : quick ? 25 : 400,
  /** measuring time is split into this many interleaved rounds per case */
  rounds: Number(env.BENCH_ROUNDS) >= 1 ? Math.floor(Number(env.BENCH_ROUNDS)) : quick ? 1 : 3,
};

const filters = settings.filter
  .split(",")
  .map((f) => f.trim().toLowerCase())
  .filter(Boolean);

/** True if the case name passes BENCH_FILTER (always true without a filter). */
export function matchesFilter(name) {
  if (filters.length === 0) return true;
  const lower = name.toLowerCase();
  return filters.some((f) => lower.includes(f));
}

/** A full GC between measurements, if the runtime exposes one (node needs --expose-gc). */
const collectGarbage = isBun
  ? () => globalThis.Bun.gc(true)
  : typeof globalThis.gc === "function"
    ? () => globalThis.gc()
    : false;

const useColor = process.stdout.isTTY === true && !env.NO_COLOR;
const paint = (code) => (s) => (useColor ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = paint("1");
const dim = paint("2");
const green = paint("32");
const red = paint("31");
const yellow = paint("33");

// ---------------------------------------------------------------------------------------------------
// formatting

/** Nanoseconds to a short human string with ~3 significant digits: "812 ns", "1.23 µs", "45.6 ms". */
export function formatTime(ns) {
  if (!Number.isFinite(ns)) return "n/a";
  const units = [
    [1e9, "s"],
    [1e6, "ms"],
    [1e3, "µs"],
  ];
  for (const [scale, unit] of units) if (ns >= scale) return `${sig3(ns / scale)} ${unit}`;
  return `${sig3(ns)} ns`;
}

function sig3(x) {
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

/** A ratio as "21.3×" / "1.45×" / "0.82×" (huge ones as "16k×", "1.5M×"). */
export function formatRatio(r) {
  if (!Number.isFinite(r)) return "n/a";
  if (r >= 1e6) return `${(r / 1e6).toFixed(1)}M×`;
  if (r >= 1e4) return `${(r / 1e3).toFixed(0)}k×`;
  if (r >= 100) return `${r.toFixed(0)}×`;
  if (r >= 10) return `${r.toFixed(1)}×`;
  return `${r.toFixed(2)}×`;
}

/** The ratio column of the per-case table: how the implementation's time compares to the baseline's. */
function describeRatio(r) {
  if (!Number.isFinite(r)) return "";
  return r >= 1 ? `${formatRatio(r)} slower` : `${formatRatio(r)} (faster)`;
}

export function formatBytes(n) {
  if (!Number.isFinite(n)) return "";
  if (n >= 1024 * 1024) return `${sig3(n / (1024 * 1024))} MB`;
  if (n >= 1024) return `${sig3(n / 1024)} KB`;
  return `${n} B`;
}

/**
 * Size columns for codec benchmarks: `{ bytes, gzip }` of an encoded output (string or bytes).
 * Strings are counted as UTF-8.
 */
export function sizes(encoded) {
  const buf = typeof encoded === "string" ? Buffer.from(encoded, "utf8") : toBytes(encoded);
  return { bytes: buf.byteLength, gzip: gzipSync(buf).byteLength };
}

function toBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (
    x instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== "undefined" && x instanceof SharedArrayBuffer)
  )
    return new Uint8Array(x);
  throw new TypeError("sizes(): expected a string, an ArrayBuffer or an ArrayBuffer view");
}

/** Predefined extra columns for sizes(): pass as `columns` to suite.case(). */
export const sizeColumns = [
  { key: "bytes", label: "bytes", format: formatBytes },
  { key: "gzip", label: "gzip", format: formatBytes },
];

function pad(s, width, right = false) {
  const str = String(s);
  const len = visibleLength(str);
  if (len >= width) return str;
  return right ? " ".repeat(width - len) + str : str + " ".repeat(width - len);
}

// strips ANSI colour codes
const ANSI = /\x1b\[[0-9;]*m/g;
const visibleLength = (s) => s.replace(ANSI, "").length;

function printTable(headers, rows, alignRight) {
  const widths = headers.map((h, i) =>
    Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ""))),
  );
  const line = (cells) =>
    `  ${cells
      .map((c, i) => pad(c ?? "", widths[i], alignRight[i]))
      .join("  ")
      .trimEnd()}`;
  console.log(dim(line(headers)));
  for (const row of rows) console.log(line(row));
}

// ---------------------------------------------------------------------------------------------------
// measuring

/**
 * Give every implementation its own call-site wrapper. A shared `() => do_not_optimize(fn())` literal
 * would share its type feedback across all implementations and turn `fn()` into a megamorphic call
 * for all but the first; a fresh function per implementation keeps each one measured on its own.
 */
function wrap(fn) {
  return new Function("fn", "keep", "return function measured() { keep(fn()); };")(fn, do_not_optimize);
}

const now = () => performance.now() * 1e6; // ns

/** Above this cost per call (ns), warming up and calibrating use single calls. */
const SLOW_NS = 50e6;

/**
 * Warm the function up and estimate its cost per call (the fastest of a few short windows, so a
 * moment of preemption during calibration does not inflate it).
 */
function calibrate(fn) {
  const warmNs = quick ? 5e6 : 60e6;
  let start = now();
  let calls = 0;
  do {
    fn();
    calls++;
  } while (now() - start < warmNs && calls < 1e6);
  const probe = Math.max(1, Math.ceil(calls / 40));
  // An operation that takes seconds (a large report under a loaded machine) is estimated from one
  // more call: five probe windows would cost more than the measurement itself.
  const windows = calls === 1 && now() - start > SLOW_NS ? 1 : 5;
  let best = Number.POSITIVE_INFINITY;
  for (let w = 0; w < windows; w++) {
    start = now();
    for (let i = 0; i < probe; i++) fn();
    best = Math.min(best, (now() - start) / probe);
  }
  return best;
}

/**
 * Get an implementation ready: its own wrapper, warm code, and mitata settings sized to its cost.
 * Samples from all rounds are pooled in `samples`.
 */
function prepare(fn) {
  const measured = wrap(fn);
  const perCall = Math.max(calibrate(measured), 1);
  // Short samples (~0.25 ms, mitata batches fast functions) keep the median robust on a busy machine:
  // a time slice lost to another process spoils one short sample, but most of a long one.
  const sampleNs = 0.25e6;
  const batch = Math.min(4096, Math.max(4, Math.round(sampleNs / perCall / 4) * 4));
  const budgetNs = settings.timeMs * 1e6;
  // Slow operations (a deep copy of 1 MB element by element can take a second) get fewer samples,
  // and one round: each round costs mitata an extra uncounted warm-up call.
  const wanted = Math.max(3, Math.min(quick ? 6 : 12, Math.ceil((2 * budgetNs) / perCall)));
  const rounds = perCall * wanted <= budgetNs / settings.rounds ? settings.rounds : 1;
  return {
    measured,
    batch,
    rounds,
    minSamples: Math.max(1, Math.ceil(wanted / rounds)),
    // the warm-up after each GC: one call is enough for an operation slower than SLOW_NS
    warmCalls: perCall > SLOW_NS ? 1 : Math.min(batch, 64),
    samples: [],
  };
}

/** Run `fn` for at least `ns` nanoseconds and at least `calls` times. */
function spin(fn, ns, calls) {
  const start = now();
  let n = 0;
  do {
    fn();
    n++;
  } while (n < calls || now() - start < ns);
}

/**
 * One round: full GC, warm up again, then let mitata sample. The GC is done here rather than by mitata
 * (which collects right before its first sample) because a full GC discards optimized code that
 * embeds objects which died ("weak objects" deopts): JIT-compiled implementations would then be
 * sampled while tiering up again, and native ones would not.
 */
async function measureRound(p) {
  if (collectGarbage) {
    collectGarbage();
    spin(p.measured, quick ? 2e6 : 20e6, p.warmCalls);
  }
  const stats = await measure(p.measured, {
    gc: false,
    min_cpu_time: (settings.timeMs * 1e6) / p.rounds,
    min_samples: p.minSamples,
    batch_samples: p.batch,
    batch_unroll: 4,
  });
  for (const x of stats.samples) p.samples.push(x);
}

/** Same percentiles as mitata computes, over the pooled samples of all rounds. */
function statsOf(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[(q * (s.length - 1)) | 0];
  return {
    p50: at(0.5),
    avg: s.reduce((a, v) => a + v, 0) / s.length,
    min: s[0],
    p75: at(0.75),
    p99: at(0.99),
    max: s[s.length - 1],
    samples: s.length,
  };
}

/** BENCH_MITATA=1: the same implementations through mitata's bench()/summary()/run(), its output. */
async function measureWithMitata(caseName, impls) {
  summary(() => {
    for (const impl of impls) bench(`${caseName} · ${impl.name}`, wrap(impl.fn));
  });
  const { benchmarks } = await run({ format: "mitata", colors: useColor });
  return benchmarks.map((b) => b.runs[0]);
}

function pickStats(s) {
  return {
    p50: s.p50,
    avg: s.avg,
    min: s.min,
    p75: s.p75,
    p99: s.p99,
    max: s.max,
    samples: s.samples.length,
  };
}

function describeError(err) {
  if (err instanceof Error) {
    const msg = err.message.split("\n")[0];
    return `throws ${err.name}${msg ? `: ${msg.length > 70 ? `${msg.slice(0, 67)}...` : msg}` : ""}`;
  }
  return `throws ${String(err)}`;
}

// ---------------------------------------------------------------------------------------------------
// suite

/**
 * @typedef {object} Impl
 * @property {string} name     shown in the per-case table, e.g. "native structuredClone"
 * @property {string} [label]  short column header for the matrix, e.g. "native" (defaults to name)
 * @property {() => unknown} [fn]  the operation to measure; its result is kept alive
 * @property {string} [skip]   instead of fn: why this implementation cannot take part on this case
 * @property {(out: unknown) => true | string} [check]  validate one result; a string is the reason for n/a
 * @property {Record<string, number>} [extra]  values for the extra columns (e.g. from sizes())
 * @property {string} [note]   short remark printed after the ratio (e.g. "circles: true")
 */

/**
 * Create the suite of one capability benchmark.
 * @param {string} capability  "clone", "binary", ...
 * @param {{ baseline?: string, title?: string, timeMs?: number, means?: boolean }} [options]  baseline:
 *   the implementation name the ratios are relative to (default "structura"); timeMs: this capability's
 *   default measuring time per implementation and case, instead of 400 ms; means: also print each
 *   implementation's mean (every sample counts, garbage collections included) and its ratio, beside the
 *   median, and mark the JSON report so that bench/lib/report.mjs renders a table of means too
 */
export function createSuite(capability, options = {}) {
  const baseline = options.baseline ?? "structura";
  const means = options.means === true;
  // A capability whose cases take hundreds of milliseconds a call measures longer by default, so each
  // implementation still gets about ten samples for its median (BENCH_TIME and BENCH_QUICK override).
  if (options.timeMs !== undefined && !(Number(env.BENCH_TIME) > 0) && !quick)
    settings.timeMs = options.timeMs;
  const startedAt = new Date();
  const startLoad = Number(os.loadavg()[0].toFixed(2));
  const startRevision = revision(); // now, while dist/ is what was just imported
  const cases = [];
  const targets = [];
  const labels = new Map(); // implementation name -> short label, in first-seen order

  function header() {
    const rt = runtime.name === "bun" ? `bun ${runtime.version}` : `node ${runtime.version}`;
    console.log(bold(`structura · ${options.title ?? `${capability} benchmark`}`));
    console.log(`runtime:  ${rt} (${machine.platform}-${machine.arch})`);
    console.log(`cpu:      ${machine.cpu} × ${machine.cores} cores`);
    const mode = settings.mitata
      ? "mitata defaults (BENCH_MITATA=1)"
      : `${settings.quick ? "QUICK (smoke test, rough numbers), " : ""}${settings.timeMs} ms per measurement in ${settings.rounds} interleaved round${settings.rounds === 1 ? "" : "s"}`;
    console.log(`mode:     ${mode}`);
    console.log(
      means
        ? `          figures are medians (p50) and means (all samples, GC pauses included); ratios are vs ${baseline}, within this run`
        : `          figures are medians (p50); ratios are vs ${baseline}, within this run`,
    );
    const load = startLoad;
    if (load > 0.5)
      console.log(
        yellow(
          `load:     ${load.toFixed(1)} (1-min average) on ${machine.cores} cores before starting: other processes compete for the CPU, expect noise`,
        ),
      );
    if (settings.filter) console.log(`filter:   ${settings.filter}`);
    if (!collectGarbage)
      console.log(
        yellow(
          "note:     no gc() exposed; run with `node --expose-gc` (npm run bench does) for steadier figures",
        ),
      );
    console.log("");
  }

  /**
   * Check and measure every implementation on one case, print its table and record it.
   * Returns the recorded case, or null when BENCH_FILTER excludes it.
   * @param {string} name
   * @param {Impl[]} impls
   * @param {{ columns?: { key: string, label: string, format?: (v: number) => string }[],
   *           check?: (out: unknown) => true | string }} [opts]
   *   columns: extra columns read from impl.extra; check: validation applied to every implementation
   *   (in addition to its own)
   */
  async function runCase(name, impls, opts = {}) {
    if (!matchesFilter(name)) return null;
    const columns = opts.columns ?? [];
    const results = [];
    const runnable = [];

    for (const impl of impls) {
      if (!labels.has(impl.name)) labels.set(impl.name, impl.label ?? impl.name);
      const entry = { name: impl.name, label: impl.label ?? impl.name, extra: impl.extra, note: impl.note };
      results.push(entry);
      if (impl.skip || typeof impl.fn !== "function") {
        entry.error = impl.skip ?? "not available";
        continue;
      }
      try {
        const out = impl.fn();
        const verdict = opts.check ? opts.check(out) : true;
        const own = verdict === true && impl.check ? impl.check(out) : verdict;
        if (own !== true) {
          entry.error = typeof own === "string" ? own : "wrong result";
          continue;
        }
      } catch (err) {
        entry.error = describeError(err);
        continue;
      }
      runnable.push({ impl, entry });
    }

    console.log(bold(name));
    if (settings.mitata && runnable.length > 0) {
      console.log("");
      const runs = await measureWithMitata(
        name,
        runnable.map((r) => r.impl),
      );
      runnable.forEach((r, i) => {
        if (runs[i]?.stats) r.entry.stats = pickStats(runs[i].stats);
        else r.entry.error = describeError(runs[i]?.error);
      });
    } else {
      // Calibrate everything first, then measure in interleaved rounds (A B C, A B C, ...) so that a
      // burst of load from elsewhere on the machine does not land on one implementation only.
      for (const r of runnable) {
        try {
          r.prep = prepare(r.impl.fn);
        } catch (err) {
          r.entry.error = describeError(err);
        }
      }
      const rounds = Math.max(0, ...runnable.map((r) => r.prep?.rounds ?? 0));
      for (let round = 0; round < rounds; round++) {
        for (const r of runnable) {
          if (r.entry.error || round >= r.prep.rounds) continue;
          try {
            await measureRound(r.prep);
          } catch (err) {
            r.entry.error = describeError(err);
          }
        }
      }
      for (const r of runnable) if (!r.entry.error) r.entry.stats = statsOf(r.prep.samples);
    }

    const base = results.find((r) => r.name === baseline)?.stats?.p50;
    for (const r of results) if (r.stats && base) r.ratio = r.stats.p50 / base;
    const baseMean = results.find((r) => r.name === baseline)?.stats?.avg;
    if (means) for (const r of results) if (r.stats && baseMean) r.meanRatio = r.stats.avg / baseMean;

    const headers = [
      "implementation",
      "median",
      ...(means ? ["mean"] : []),
      ...columns.map((c) => c.label),
      `vs ${baseline}`,
      ...(means ? ["(means)"] : []),
    ];
    const rows = results.map((r) => {
      const extras = columns.map((c) => {
        const v = r.extra?.[c.key];
        return v === undefined ? "" : (c.format ?? String)(v);
      });
      if (!r.stats) return [r.name, "n/a", ...(means ? [""] : []), ...extras, dim(r.error ?? "")];
      const rel = r.name === baseline ? "baseline" : base ? describeRatio(r.ratio) : "";
      const relColored = r.name === baseline ? rel : r.ratio >= 1 ? green(rel) : red(rel);
      const meanRel = r.name === baseline || r.meanRatio === undefined ? "" : formatRatio(r.meanRatio);
      return [
        r.name === baseline ? bold(r.name) : r.name,
        formatTime(r.stats.p50),
        ...(means ? [formatTime(r.stats.avg)] : []),
        ...extras,
        r.note ? `${relColored}  ${dim(r.note)}` : relColored,
        ...(means ? [meanRel] : []),
      ];
    });
    const ratioColumn = headers.length - (means ? 2 : 1);
    printTable(
      headers,
      rows,
      headers.map((_, i) => i > 0 && i !== ratioColumn),
    );
    console.log("");

    const recorded = { name, results };
    cases.push(recorded);
    return recorded;
  }

  /** Median (ns) of an implementation on a case, or undefined if not measured / filtered out. */
  function median(caseName, implName) {
    return cases.find((c) => c.name === caseName)?.results.find((r) => r.name === implName)?.stats?.p50;
  }

  /** Mean (ns) of an implementation on a case, or undefined if not measured / filtered out. */
  function mean(caseName, implName) {
    return cases.find((c) => c.name === caseName)?.results.find((r) => r.name === implName)?.stats?.avg;
  }

  /**
   * Record a target. `evaluate()` returns { status: "PASS" | "MISS" | "SKIP", detail }; it runs in
   * finish(), after all cases, so it can look at any of them through median().
   */
  function target(label, evaluate) {
    targets.push({ label, evaluate });
  }

  function printMatrix() {
    // formdata and channel print their own per-case tables and declare no implementation list
    if (cases.length === 0 || labels.size === 0) return;
    const impls = [...labels.keys()];
    const others = impls.filter((n) => n !== baseline);
    const headers = ["case", `${baseline}`, ...others.map((n) => labels.get(n))];
    const rows = cases.map((c) => {
      const get = (n) => c.results.find((r) => r.name === n);
      const b = get(baseline);
      return [
        c.name,
        b?.stats ? formatTime(b.stats.p50) : "n/a",
        ...others.map((n) => {
          const r = get(n);
          if (!r) return "";
          if (!r.stats) return "n/a";
          return r.ratio === undefined ? formatTime(r.stats.p50) : formatRatio(r.ratio);
        }),
      ];
    });
    console.log(
      bold(`summary: ${baseline} median, others as time relative to ${baseline} (>1× = ${baseline} faster)`),
    );
    printTable(
      headers,
      rows,
      headers.map((_, i) => i > 0),
    );
    console.log("");
  }

  function evaluateTargets() {
    return targets.map(({ label, evaluate }) => {
      let verdict;
      try {
        verdict = evaluate();
      } catch (err) {
        verdict = { status: "SKIP", detail: describeError(err) };
      }
      return { label, status: verdict.status, detail: verdict.detail ?? "" };
    });
  }

  function printTargets(evaluated) {
    if (evaluated.length === 0) return;
    console.log(bold("targets"));
    const width = Math.max(...evaluated.map((t) => t.label.length));
    for (const t of evaluated) {
      const tag = t.status === "PASS" ? green("PASS") : t.status === "MISS" ? red("MISS") : yellow("SKIP");
      console.log(`  ${tag}  ${pad(t.label, width)}  ${dim(t.detail)}`);
    }
    console.log("");
  }

  function command() {
    const script = path.relative(process.cwd(), process.argv[1] ?? "") || process.argv[1];
    const vars = [];
    if (settings.quick) vars.push("BENCH_QUICK=1");
    if (settings.filter) vars.push(`BENCH_FILTER=${JSON.stringify(settings.filter)}`);
    if (env.BENCH_TIME) vars.push(`BENCH_TIME=${env.BENCH_TIME}`);
    if (env.BENCH_ROUNDS) vars.push(`BENCH_ROUNDS=${env.BENCH_ROUNDS}`);
    if (settings.mitata) vars.push("BENCH_MITATA=1");
    const exe = runtime.name === "bun" ? "bun" : collectGarbage ? "node --expose-gc" : "node";
    return [...vars, exe, script].join(" ");
  }

  function writeJson(evaluated) {
    if (!settings.json) return;
    const file = settings.json.endsWith(".json")
      ? settings.json
      : path.join(settings.json, `${capability}.${runtime.name}.json`);
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const report = {
      capability,
      baseline,
      date: startedAt.toISOString(),
      runtime,
      machine,
      settings: {
        quick: settings.quick,
        filter: settings.filter,
        timeMs: settings.timeMs,
        rounds: settings.rounds,
        mitata: settings.mitata,
        ...(means ? { means: true } : {}),
        loadAverage: startLoad,
        gc: Boolean(collectGarbage),
      },
      command: command(),
      revision: startRevision,
      implementations: [...labels].map(([name, label]) => ({ name, label })),
      cases: cases.map((c) => ({
        name: c.name,
        results: c.results.map((r) => ({
          name: r.name,
          ...(r.stats ? { ...r.stats, ratio: r.ratio } : { error: r.error }),
          ...(r.extra ? { extra: r.extra } : {}),
          ...(r.note ? { note: r.note } : {}),
        })),
      })),
      targets: evaluated,
    };
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(dim(`wrote ${file}`));
  }

  /** Print the summary matrix and targets, write the JSON report. Returns the evaluated targets. */
  function finish() {
    printMatrix();
    const evaluated = evaluateTargets();
    printTargets(evaluated);
    writeJson(evaluated);
    return evaluated;
  }

  /**
   * Records a case measured elsewhere (a child process: see bench/clone.mjs) as if runCase had measured
   * it here; its table was printed where it was measured. `recorded` is what runCase returned there.
   */
  function adopt(recorded) {
    for (const r of recorded.results) if (!labels.has(r.name)) labels.set(r.name, r.label ?? r.name);
    cases.push(recorded);
    return recorded;
  }

  return { header, case: runCase, adopt, median, mean, target, finish, baseline, cases };
}

/**
 * Load the built package (dist/). Prints a clear message and exits when it is missing or does not
 * export what the benchmark needs.
 * @param {() => Promise<Record<string, unknown>>} load  e.g. () => import("../dist/index.js")
 * @param {string[]} names  exports that must be functions
 */
export async function loadBuilt(load, names) {
  let mod;
  try {
    mod = await load();
  } catch (err) {
    console.error("structura is not built (or dist/ fails to load): run `npm run build` first.");
    console.error(dim(String(err?.message ?? err).split("\n")[0]));
    process.exit(1);
  }
  const missing = names.filter((n) => typeof mod[n] !== "function");
  if (missing.length > 0) {
    console.error(
      `dist/ does not export ${missing.join(", ")} yet: run \`npm run build\` after it lands in src/.`,
    );
    process.exit(1);
  }
  return mod;
}
