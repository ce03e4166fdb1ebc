import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * Browser tests of the operator UI in Debian's Chromium (`apt-get install chromium`), against the
 * real service on an embedded PostgreSQL in a temporary DATA_DIR, on a free port. The port and the
 * directory are chosen once by the runner; its workers inherit them through the environment.
 */
process.env.BANCHINA_E2E_PORT ??= execFileSync(process.execPath, [
  "-e",
  "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
]).toString();
if (!process.env.BANCHINA_E2E_DATA) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-pw-"));
  // The embedded PostgreSQL runs as an unprivileged user when we are root: it must reach the directory.
  fs.chmodSync(dir, 0o755);
  process.env.BANCHINA_E2E_DATA = dir;
}
const port = process.env.BANCHINA_E2E_PORT;
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "e2e",
  // Only the browser specs: e2e/*.test.ts files are vitest's.
  testMatch: "**/*.spec.ts",
  // One service and one database for the run: tests that read stock must not interleave with writers.
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // The JSON report lets .ci/run print a plain "N passed, N failed" closing line for this runner too.
  reporter: [["list"], ["json", { outputFile: "test-results/playwright.json" }]],
  // Its own folder: vitest writes its JSON report into test-results/, and Playwright empties its outputDir.
  outputDir: "test-results/playwright",
  use: {
    baseURL,
    locale: "it-IT",
    timezoneId: "Europe/Rome",
    acceptDownloads: true,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    command: "node --import tsx e2e/support/serve.ts",
    url: `${baseURL}/api/health`,
    // A first build on two shared cores takes a couple of minutes.
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    env: {
      PORT: port!,
      HOST: "127.0.0.1",
      DATA_DIR: process.env.BANCHINA_E2E_DATA!,
      DEMO_DATA: "true",
      NEXT_TELEMETRY_DISABLED: "1",
      // The webhook spec delivers to a receiver of its own on 127.0.0.1 (e2e/ui/webhook.spec.ts).
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  },
});
