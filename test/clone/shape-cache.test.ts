/**
 * The clone's shape cache is bounded in bytes, not only in entries: objects with long keys (keys can
 * come from a parsed request body) must not let the cache hold memory without end.
 */
import { describe, expect, it } from "vitest";
import { runLimited } from "../limits/harness.ts";

describe("clone shape cache", () => {
  it("2,000 distinct shapes of long keys keep memory flat", async () => {
    const run = await runLimited(
      `
      const pad = "k".repeat(60_000);
      const sample = () => process.memoryUsage().heapUsed;
      let before = 0;
      for (let i = 0; i < 2000; i++) {
        // Two uses each, so every shape would be compiled if it were cached.
        const value = { [pad + i + "a"]: 1, [pad + i + "b"]: 2 };
        S.clone(value);
        S.clone(value);
        if (i === 200) { globalThis.gc(); before = sample(); }
      }
      globalThis.gc();
      report({ grown: sample() - before });
      `,
      { heapMiB: 256, timeoutMs: 60_000, nodeFlags: ["--expose-gc"] },
    );
    expect(run.outcome, run.stderr).toBe("ok");
    // Without a byte bound the cache keeps 2 × 60 KB of key text per shape: about 240 MB here.
    expect((run.result as { grown: number }).grown).toBeLessThan(32 * 1024 * 1024);
  });
});
