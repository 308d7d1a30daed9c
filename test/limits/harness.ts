/**
 * Resource-limit harness: runs a decoder in a child Node process with a capped heap and a wall-clock
 * limit, and reports how it ended, its peak RSS and its time. A value test cannot see an abort for
 * heap exhaustion, a stall or a leak across calls; a child process with `--max-old-space-size` can.
 *
 * The child imports a fresh esbuild bundle of `src/index.ts` (so it runs the current source, with or
 * without a built dist/). The script given to `runLimited` is the body of an ES module in which
 * `S` is the structura namespace and `report(value)` records the result (JSON) sent back to the test.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleSource } from "../helpers/bundle.ts";

let dir: string | undefined;

function workDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), "structura-limits-"));
  return dir;
}

/** The bundle of src/index.ts the children import (see test/helpers/bundle.ts). */
export function structuraBundle(): Promise<string> {
  return bundleSource("src/index.ts");
}

export interface LimitedRun {
  /** How the child ended: "ok" (exit 0 after report), "error" (exit non-zero), "timeout", "signal". */
  outcome: "ok" | "error" | "timeout" | "signal";
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** What the script passed to `report`, or undefined. */
  result: unknown;
  /**
   * Peak resident set size of the child, in MiB: VmHWM from /proc/self/status where there is one. (Not
   * getrusage's maxRSS: Linux keeps that across execve, so a child forked from a big parent, such as
   * `bun test`, would report the parent's peak.)
   */
  peakRssMiB: number;
  /** Wall-clock time from spawn to exit, in ms. */
  elapsedMs: number;
  stderr: string;
}

export interface LimitedOptions {
  /** `--max-old-space-size` for the child, MiB (default 256). */
  heapMiB?: number;
  /** Kill the child after this many ms (default 20,000). */
  timeoutMs?: number;
  /** Extra node flags. */
  nodeFlags?: string[];
}

let counter = 0;

/**
 * Runs `body` (ES module source; `S` is structura, `report(x)` records the result) in a child process.
 * The child prints one line `@@RESULT <json>` with the result and its peak RSS.
 */
export async function runLimited(body: string, options: LimitedOptions = {}): Promise<LimitedRun> {
  const lib = await structuraBundle();
  const file = join(workDir(), `child-${process.pid}-${counter++}.mjs`);
  writeFileSync(
    file,
    `import * as S from ${JSON.stringify(lib)};
import { readFileSync as readPeak } from "node:fs";
let reported;
const report = (value) => { reported = value; };
const done = () => {
  let rss;
  try {
    rss = Number(/VmHWM:\\s+(\\d+) kB/.exec(readPeak("/proc/self/status", "utf8"))[1]) / 1024;
  } catch {
    rss = process.resourceUsage().maxRSS / 1024;
  }
  process.stdout.write("\\n@@RESULT " + JSON.stringify({ result: reported, rss }) + "\\n");
};
try {
${body}
} finally { done(); }
`,
  );
  const heap = options.heapMiB ?? 256;
  const timeout = options.timeoutMs ?? 20_000;
  const started = performance.now();
  // The child is always Node: a heap cap is a V8 flag (JavaScriptCore has none), so under Bun the test
  // process still spawns `node` from PATH (Node >= 20 is what `npm install` ran on).
  const child = spawn(
    (process.versions as { bun?: string }).bun === undefined ? process.execPath : "node",
    [`--max-old-space-size=${heap}`, ...(options.nodeFlags ?? []), file],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    if (stderr.length < 16_384) stderr += d;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeout);
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on("exit", (code, sig) => resolve([code, sig]));
  });
  clearTimeout(timer);
  const elapsedMs = performance.now() - started;
  const line = stdout.split("\n").find((l) => l.startsWith("@@RESULT "));
  const parsed = line ? (JSON.parse(line.slice(9)) as { result: unknown; rss: number }) : undefined;
  const outcome = timedOut ? "timeout" : signal !== null ? "signal" : exitCode === 0 ? "ok" : "error";
  return {
    outcome,
    exitCode,
    signal,
    result: parsed?.result,
    peakRssMiB: parsed?.rss ?? Number.NaN,
    elapsedMs,
    stderr,
  };
}
