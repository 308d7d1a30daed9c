/**
 * Long fast-check runs split into several tests. `npm run fuzz` sets FUZZ_RUNS=20000: one `fc.assert`
 * of that many runs holds vitest's worker thread for tens of seconds in one synchronous call, so under
 * load the worker misses its RPC deadline and vitest fails the run with "Timeout calling onTaskUpdate".
 * So a run of more than PART runs becomes parts of at most PART runs, each its own test (fast-check
 * picks a new seed for each), and each part first lets the event loop turn so the worker answers. The
 * default runs make one test, named as before.
 */

import { it } from "vitest";

/**
 * Runs per test. The slowest property (clone against structuredClone) takes about 2 ms a run on a quiet
 * machine and ten times that under heavy load: 500 runs stay well inside the RPC deadline (60 s).
 */
export const PART = 500;

/** Run counts of the parts `runs` is split into (one part when it fits). */
export function partsOf(runs: number): number[] {
  const parts: number[] = [];
  for (let left = runs; left > 0; left -= PART) parts.push(Math.min(PART, left));
  return parts.length === 0 ? [runs] : parts;
}

/** `it(name, ...)` for a property of `runs` runs, as parts: `body` gets the runs of its part. */
export function fuzzIt(
  name: string,
  runs: number,
  body: (numRuns: number) => void | Promise<void>,
  timeout?: number,
): void {
  const parts = partsOf(runs);
  if (parts.length === 1) {
    it(name, () => body(runs), timeout);
    return;
  }
  for (let p = 0; p < parts.length; p++) {
    it(
      `${name} (part ${p + 1} of ${parts.length})`,
      async () => {
        // vitest's runner goes from one test to the next through promise jobs only, so without a
        // macrotask here the worker never reads the runner's replies during a long file: Node runs the
        // timers phase before the poll phase, and the RPC deadline fires with its reply unread.
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        await body(parts[p]!);
      },
      timeout,
    );
  }
}
