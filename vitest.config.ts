import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Long fuzz runs are opt-in (`npm run fuzz`); the default run stays quick.
    testTimeout: 60_000,
    pool: "forks",
  },
});
