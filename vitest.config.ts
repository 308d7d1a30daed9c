import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // `*.vitest.ts`: tests that need vitest itself (vi.mock/vi.hoisted), which `bun test` does not run.
    include: ["test/**/*.test.ts", "test/**/*.vitest.ts"],
    // Long fuzz runs are opt-in (`npm run fuzz`); the default run stays quick.
    testTimeout: 60_000,
    pool: "forks",
  },
});
