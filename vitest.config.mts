import { defineConfig } from "vitest/config";

// What both groups below share. Every file gets its own database cloned from a migrated template (one PostgreSQL
// for the run, started by the global setup), so files never see each other's rows and may run side by side.
const shared = {
  pool: "forks",
  testTimeout: 60_000,
  hookTimeout: 120_000,
  env: { NODE_ENV: "test", LOG_LEVEL: "error" },
} as const;

export default defineConfig({
  test: {
    // The root's, run once for both groups: the projects below do not extend the root, or it would run per group.
    globalSetup: ["src/server/testing/global-setup.ts"],
    // The JSON report gives CI its closing "N passed, N failed" line; CI's second run, under Node 24, names its own.
    reporters: ["default", ["json", { outputFile: process.env.VITEST_JSON_REPORT || "test-results/vitest.json" }]],
    projects: [
      {
        // The code's own tests: pure functions and services on their database, in-process. Most of their time
        // is round trips to PostgreSQL, whose work runs beside the file's: two files at once keep both cores busy.
        test: {
          ...shared,
          name: "codice",
          include: ["src/**/*.test.ts", "scripts/**/*.test.ts"],
          // One embedded PostgreSQL per worker (src/server/testing/global-setup.ts); TEST_DATABASE_URL is one server.
          maxWorkers: process.env.TEST_DATABASE_URL ? 1 : 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The real service as child processes (e2e/*.test.ts, the integrator, e2e/reliability): crashes, outages
        // and timed waits, after the group above and one file at a time, so nothing else competes for the cores
        // (three files at once made a crash test and a webhook delivery miss their bounds in CI).
        test: {
          ...shared,
          name: "servizio",
          include: ["e2e/**/*.test.ts"],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
