import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build, stop } from "esbuild";
import { afterAll } from "vitest";
import { authenticateApiKey } from "../server/modules/auth/api-keys.service";
import type { TestDb } from "../server/testing/db";
import { test } from "../server/testing/test";

/**
 * What the command-line test files share (cli-api-key, cli-user, cli-import, cli-webhook, printer-command): the file's database, a
 * scratch directory, and the command line run in a process of its own as an operator runs it. The bindings are filled
 * by the hooks that `setupCliBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let dir: string;

const ROOT = path.resolve(import.meta.dirname, "../..");
let bundle: string;

/**
 * Registers the file's database, a scratch directory removed after the file's tests, and the command line compiled
 * once for the file: src/cli/index.ts and what it imports in one module by esbuild, as scripts/start.mjs compiles the
 * service (packages stay in node_modules). `npm run cli` runs the same sources under tsx, which compiles every module
 * at each start on a loader thread: seconds of CPU per process on two cores, and these files start dozens of them.
 * `cliUnderTsx` runs `npm run cli`'s own command, for the test that checks the two agree.
 */
export function setupCliBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-cli-"));
    // Beside the sources, so that the module finds node_modules as they do; one per test process (files run side by side).
    bundle = path.join(ROOT, ".next-cli", `cli-${process.pid}.mjs`);
    await build({
      entryPoints: [path.join(ROOT, "src/cli/index.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      tsconfig: path.join(ROOT, "tsconfig.json"),
      outfile: bundle,
      logLevel: "warning",
    });
    // esbuild's compiler runs in a child process of its own, which would otherwise stay.
    await stop();
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (bundle) fs.rmSync(bundle, { force: true });
  });
}

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A process of the command line on this file's database: `env` adds settings, `input` is piped into stdin. */
function run(command: string[], args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...command, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: t.url, ...opts.env },
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

/** The command line as an operator runs it, against this file's database. */
export const cli = (...args: string[]) => run([bundle], args);

/** The same, with something piped into standard input. */
export const cliWithInput = (input: string, ...args: string[]) => run([bundle], args, { input });

/** The same, with some settings of its own (e.g. WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
export const cliWithEnv = (env: Record<string, string>, ...args: string[]) => run([bundle], args, { env });

/** `npm run cli`'s own command (package.json: tsx src/cli/index.ts), not the compiled module. */
export const cliUnderTsx = (...args: string[]) => run(["--import", "tsx", "src/cli/index.ts"], args);

export function writeJson(name: string, data: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

export const authenticate = (key: string) => authenticateApiKey(t.prisma, key, { perSecond: 50, burst: 200 });
