import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "e2e/**/*.test.ts"],
    globalSetup: ["src/server/testing/global-setup.ts"],
    pool: "forks",
    // Every file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
    // Vitest's default on 2 cores is one file at a time; the reliability files mostly wait (a receiver down
    // for 60 s, a server starting, a 10 s timeout), so three at once finish the suite sooner.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: "test", LOG_LEVEL: "error" },
    // The JSON report gives CI its closing "N passed, N failed" line; CI's second run, under Node 24, names its own.
    reporters: ["default", ["json", { outputFile: process.env.VITEST_JSON_REPORT || "test-results/vitest.json" }]],
  },
});
