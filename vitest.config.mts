import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "e2e/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["src/server/testing/global-setup.ts"],
    pool: "forks",
    // Every file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
    // Vitest's default on 2 cores: one file at a time. Three at once finished sooner but starved the
    // reliability files' timed waits (a crash test and a webhook delivery missed their bounds in CI).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: "test", LOG_LEVEL: "error" },
    // The JSON report gives CI its closing "N passed, N failed" line; CI's second run, under Node 24, names its own.
    reporters: ["default", ["json", { outputFile: process.env.VITEST_JSON_REPORT || "test-results/vitest.json" }]],
  },
});
