import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { authenticateApiKey } from "../server/modules/auth/api-keys.service";
import type { TestDb } from "../server/testing/db";
import { test } from "../server/testing/test";

/**
 * What the command-line test files share (cli-api-key, cli-user, cli-import, cli-webhook, printer-command): the file's database, a
 * scratch directory, and the command line run as an operator runs it. The bindings are filled by the hooks that
 * `setupCliBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let dir: string;

/** Registers the file's database and a scratch directory removed after the file's tests. */
export function setupCliBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-cli-"));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** The command line as an operator runs it, against this file's database. */
export function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/index.ts", ...args], {
      env: { ...process.env, DATABASE_URL: t.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The same, with something piped into standard input. */
export function cliWithInput(input: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/index.ts", ...args], {
      env: { ...process.env, DATABASE_URL: t.url },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

export function writeJson(name: string, data: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

export const authenticate = (key: string) => authenticateApiKey(t.prisma, key, { perSecond: 50, burst: 200 });
