import { describe, expect, it } from "vitest";
import { runLimited } from "./harness.ts";

const HEAP = /heap/i;

describe("limits harness", () => {
  it("reports a result, the peak RSS and the time of a child run", async () => {
    const run = await runLimited(`report(S.parse(S.stringify({ a: [1, 2, 3] })).a.length);`);
    expect(run.outcome).toBe("ok");
    expect(run.result).toBe(3);
    expect(run.peakRssMiB).toBeGreaterThan(5);
    expect(run.elapsedMs).toBeGreaterThan(0);
  });

  it("sees a heap exhaustion as a failed child, not a passing value", async () => {
    const run = await runLimited(`const keep = []; for (;;) keep.push(new Array(1e5).fill(keep.length));`, {
      heapMiB: 64,
    });
    expect(run.outcome === "error" || run.outcome === "signal").toBe(true);
    expect(run.stderr).toMatch(HEAP);
  });

  it("kills a child that runs past its time limit", async () => {
    const run = await runLimited(`for (;;) {}`, { timeoutMs: 500 });
    expect(run.outcome).toBe("timeout");
  });
});
