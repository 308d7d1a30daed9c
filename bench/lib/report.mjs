// Turn the JSON reports written with BENCH_JSON into the Markdown tables of BENCHMARKS.md.
//
//   node bench/lib/report.mjs [files or directories...]          print Markdown (default: bench/results)
//   node bench/lib/report.mjs --write [files or directories...]  replace the marked sections in BENCHMARKS.md
//
// A section is delimited by `<!-- bench:<capability>:<runtime> -->` and `<!-- /bench:<capability>:<runtime> -->`
// (e.g. bench:clone:node); everything between the two markers is replaced.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatBytes, formatRatio, formatTime } from "./harness.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function collect(inputs) {
  const files = [];
  for (const input of inputs) {
    if (!existsSync(input)) continue;
    if (statSync(input).isDirectory()) {
      for (const f of readdirSync(input).sort()) if (f.endsWith(".json")) files.push(path.join(input, f));
    } else files.push(input);
  }
  return files;
}

const esc = (s) => String(s).replaceAll("|", "\\|");
const RUNTIME_NAMES = { node: "Node.js", bun: "Bun" };

function describeSettings(st) {
  const parts = [
    st.mitata
      ? "mitata defaults"
      : `${st.timeMs} ms per measurement in ${st.rounds ?? 1} interleaved round${(st.rounds ?? 1) === 1 ? "" : "s"}`,
  ];
  if (st.quick) parts.push("QUICK: rough numbers");
  if (st.loadAverage !== undefined) parts.push(`load average ${st.loadAverage} at start`);
  return parts.join("; ");
}

// How the extra figures of a result are shown; unknown keys are taken as byte counts.
const EXTRA_FORMATS = {
  bytes: formatBytes,
  gzip: formatBytes,
  peak: formatBytes,
  mbps: (v) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} MB/s`,
  share: (v) => `${(v * 100).toFixed(1)} %`,
  p99: formatTime,
  mean: formatTime,
  rate: (v) =>
    v >= 1e6
      ? `${(v / 1e6).toFixed(2)} M/s`
      : v >= 1e3
        ? `${(v / 1e3).toFixed(1)} k/s`
        : `${v.toFixed(1)} /s`,
};
const EXTRA_LABELS = {
  mbps: "throughput",
  peak: "peak memory",
  share: "peak / input",
  p99: "p99",
  mean: "mean",
  rate: "one-way",
};
const formatExtra = (key, v) => (v === undefined ? "" : (EXTRA_FORMATS[key] ?? formatBytes)(v));

function header(report) {
  const rt = `${RUNTIME_NAMES[report.runtime.name] ?? report.runtime.name} ${report.runtime.version}`;
  const m = report.machine;
  return [
    `${rt} · ${m.cpu} × ${m.cores} cores · ${m.platform}-${m.arch} · ${report.date.slice(0, 10)}`,
    "",
    `Command: \`${report.command}\` (${describeSettings(report.settings)})${report.revision ? `, build of ${report.revision}` : ""}`,
    "",
  ];
}

function targetRows(report) {
  if (!(report.targets?.length > 0)) return [];
  const out = ["", "| target | result | detail |", "| --- | --- | --- |"];
  for (const t of report.targets) {
    // a target whose case a BENCH_FILTER run left out says nothing
    if (t.status === "SKIP" && t.detail === "not measured") continue;
    const mark = t.status === "PASS" ? "✅ PASS" : t.status === "MISS" ? "❌ MISS" : "➖ SKIP";
    out.push(`| ${esc(t.label)} | ${mark} | ${esc(t.detail)} |`);
  }
  return out;
}

/**
 * Benchmarks whose cases each have their own set of implementations (formdata, channel) declare no
 * implementation list: one row per implementation and case, with the case's extra figures as columns.
 */
function renderLong(report) {
  const baseline = report.baseline;
  const keys = [
    ...new Set(report.cases.flatMap((c) => c.results.flatMap((r) => Object.keys(r.extra ?? {})))),
  ];
  const out = header(report);
  // Benchmarks created with `means: true` also show each mean (all samples, GC pauses included) and
  // its ratio to the baseline's mean.
  const means = report.settings.means === true;
  out.push(
    `| case | implementation | median | ${means ? "mean | " : ""}${keys.map((k) => EXTRA_LABELS[k] ?? k).join(" | ")}${keys.length ? " | " : ""}vs ${esc(baseline)}${means ? ` | vs ${esc(baseline)} (means)` : ""} |`,
    `| --- | --- | --: | ${means ? "--: | " : ""}${keys.map(() => "--: | ").join("")}--: |${means ? " --: |" : ""}`,
  );
  for (const c of report.cases) {
    const baseAvg = c.results.find((r) => r.name === baseline)?.avg;
    c.results.forEach((r, i) => {
      const name = i === 0 ? `\`${esc(c.name)}\`` : "";
      const extras = keys.map((k) => formatExtra(k, r.extra?.[k]));
      const isBase = r.name === baseline;
      const median = r.error !== undefined ? "n/a" : isBase ? `**${formatTime(r.p50)}**` : formatTime(r.p50);
      const ratio =
        r.error !== undefined ? esc(r.error) : isBase || r.ratio === undefined ? "" : formatRatio(r.ratio);
      const note = r.note ? ` (${esc(r.note)})` : "";
      const mean =
        r.error !== undefined || r.avg === undefined
          ? ""
          : isBase
            ? `**${formatTime(r.avg)}**`
            : formatTime(r.avg);
      const meanRatio =
        r.error !== undefined || isBase || !baseAvg || r.avg === undefined
          ? ""
          : formatRatio(r.avg / baseAvg);
      out.push(
        `| ${name} | ${esc(r.name)}${note} | ${median} | ${means ? `${mean} | ` : ""}${extras.map((e) => `${e} | `).join("")}${ratio} |${means ? ` ${meanRatio} |` : ""}`,
      );
    });
  }
  out.push(
    "",
    means
      ? `Medians and means (all samples, GC pauses included); the last two columns are each implementation's median and mean relative to ${baseline}'s on the same case (above 1× means ${baseline} is faster).`
      : `Medians; the last column is each implementation's time relative to ${baseline}'s on the same case (above 1× means ${baseline} is faster).`,
  );
  out.push(...targetRows(report));
  return out.join("\n");
}

/** Markdown for one JSON report. */
export function renderReport(report) {
  if (report.implementations.length === 0) return renderLong(report);
  const impls = report.implementations.map((i) => i.name);
  const label = new Map(report.implementations.map((i) => [i.name, i.label]));
  const baseline = report.baseline;
  const others = impls.filter((n) => n !== baseline);
  const out = [];

  out.push(...header(report));

  // main table: baseline median, then each implementation's median and its ratio to the baseline
  out.push(
    `| case | ${esc(baseline)} | ${others.map((n) => esc(label.get(n) ?? n)).join(" | ")} |`,
    `| --- | ${["--:", ...others.map(() => "--:")].join(" | ")} |`,
  );
  const notes = [];
  for (const c of report.cases) {
    const get = (n) => c.results.find((r) => r.name === n);
    const cell = (n) => {
      const r = get(n);
      if (!r) return "";
      if (r.error !== undefined) {
        notes.push(`${label.get(n) ?? n} on \`${c.name}\`: ${r.error}`);
        return "n/a";
      }
      const t = formatTime(r.p50);
      if (n === baseline) return `**${t}**`;
      return r.ratio === undefined ? t : `${t} (${formatRatio(r.ratio)})`;
    };
    out.push(`| \`${esc(c.name)}\` | ${[baseline, ...others].map(cell).join(" | ")} |`);
  }
  out.push("");
  out.push(
    `Cells: median time per operation, and in brackets that time relative to ${baseline}'s on the same case (above 1× means ${baseline} is faster).`,
  );

  // means (benchmarks created with `means: true`): every sample counts, garbage collections included
  if (report.settings.means) {
    out.push(
      "",
      "Means (all samples, garbage-collection pauses included), same layout:",
      "",
      `| case | ${esc(baseline)} | ${others.map((n) => esc(label.get(n) ?? n)).join(" | ")} |`,
      `| --- | ${["--:", ...others.map(() => "--:")].join(" | ")} |`,
    );
    for (const c of report.cases) {
      const baseMean = c.results.find((r) => r.name === baseline)?.avg;
      const cell = (n) => {
        const r = c.results.find((x) => x.name === n);
        if (!r || r.avg === undefined) return r ? "n/a" : "";
        const t = formatTime(r.avg);
        if (n === baseline) return `**${t}**`;
        return baseMean ? `${t} (${formatRatio(r.avg / baseMean)})` : t;
      };
      out.push(`| \`${esc(c.name)}\` | ${[baseline, ...others].map(cell).join(" | ")} |`);
    }
  }
  const withNotes = new Set();
  for (const c of report.cases)
    for (const r of c.results)
      if (r.note) withNotes.add(`${label.get(r.name) ?? r.name} on \`${c.name}\`: ${r.note}`);
  if (notes.length > 0 || withNotes.size > 0) {
    out.push("");
    for (const n of withNotes) out.push(`- ${esc(n)}`);
    for (const n of notes) out.push(`- n/a: ${esc(n)}`);
  }

  // sizes (codec benchmarks)
  const keys = [
    ...new Set(report.cases.flatMap((c) => c.results.flatMap((r) => Object.keys(r.extra ?? {})))),
  ];
  if (keys.length > 0) {
    out.push("", `Sizes (${keys.join(" / ")}):`, "");
    out.push(`| case | ${impls.map((n) => esc(label.get(n) ?? n)).join(" | ")} |`);
    out.push(`| --- | ${impls.map(() => "--:").join(" | ")} |`);
    for (const c of report.cases) {
      const cells = impls.map((n) => {
        const e = c.results.find((r) => r.name === n)?.extra;
        return e ? keys.map((k) => formatExtra(k, e[k])).join(" / ") : "";
      });
      out.push(`| \`${esc(c.name)}\` | ${cells.join(" | ")} |`);
    }
  }

  out.push(...targetRows(report));
  return out.join("\n");
}

function main() {
  const args = process.argv.slice(2);
  const write = args.includes("--write");
  const inputs = args.filter((a) => a !== "--write");
  const files = collect(inputs.length > 0 ? inputs : [path.join(root, "bench", "results")]);
  if (files.length === 0) {
    console.error("no JSON reports found: run e.g. `BENCH_JSON=bench/results npm run bench` first.");
    process.exit(1);
  }
  const reports = files.map((f) => JSON.parse(readFileSync(f, "utf8")));

  if (!write) {
    for (const r of reports) console.log(`### ${r.capability} · ${r.runtime.name}\n\n${renderReport(r)}\n`);
    return;
  }

  const docPath = path.join(root, "BENCHMARKS.md");
  let doc = readFileSync(docPath, "utf8");
  for (const r of reports) {
    const id = `bench:${r.capability}:${r.runtime.name}`;
    const open = `<!-- ${id} -->`;
    const close = `<!-- /${id} -->`;
    const start = doc.indexOf(open);
    const end = doc.indexOf(close);
    if (start === -1 || end === -1 || end < start) {
      console.error(
        `BENCHMARKS.md has no ${open} ... ${close} section; skipped ${r.capability} (${r.runtime.name})`,
      );
      continue;
    }
    doc = `${doc.slice(0, start + open.length)}\n${renderReport(r)}\n${doc.slice(end)}`;
    console.log(`updated ${id}`);
  }
  writeFileSync(docPath, doc);
}

main();
