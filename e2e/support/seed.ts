import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "@playwright/test";
import type { Role, User } from "./app";

/**
 * The data a spec uses, created by the spec itself through the administration CLI (docs/api.md section 6) on the
 * running service's embedded PostgreSQL (DATA_DIR, attached while the service runs): master data and purchase
 * orders (`import`), users (`user create`), API keys (`api-key create`); stock goes in through REST with a key.
 * Codes, names and EANs carry the spec's own prefix, so specs run alone or in any order; the demo data set the
 * service loads at first start is there too, and no spec reads it.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

/** Runs the command lines in one process (seed-run.ts); returns what each printed on stdout. */
function cli(steps: string[][]): string[] {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: process.env.BANCHINA_E2E_DATA!, LOG_LEVEL: "error" };
  for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV"]) delete env[k];
  try {
    const out = execFileSync(process.execPath, ["--import", "tsx", "e2e/support/seed-run.ts", JSON.stringify(steps)], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return JSON.parse(out.trim().split("\n").at(-1)!) as string[];
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message?: string };
    throw new Error(`seed: ${err.stderr || err.message}${err.stdout ?? ""}`);
  }
}

export interface ImportedIds {
  magazzini: Record<string, number>;
  articoli: Record<string, number>;
  fornitori: Record<string, number>;
  clienti: Record<string, number>;
}

export interface Seeded<R extends Role> {
  /** The ids the import assigned, by code. */
  ids: ImportedIds;
  /** One user per role asked for, named `<prefix>-<role>-<random>` (a worker restarted after a failure seeds again). */
  users: Record<R, User>;
  /** A read-write API key named after the prefix, for the REST calls that put stock in place. */
  key: string;
}

/**
 * Everything a spec needs, in one go: master data and orders in the import file's format (docs/api.md section 6;
 * importing the same file again changes nothing), a user for each role, an API key. Creating a process of the
 * CLI costs seconds on shared cores: the seeding hook gets its own timeout.
 */
export function seed<R extends Role>(
  prefix: string,
  plan: { data?: Record<string, unknown[]>; roles?: readonly R[]; keyScopes?: string },
): Seeded<R> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-pw-seed-"));
  const file = path.join(dir, "dati.json");
  fs.writeFileSync(file, JSON.stringify(plan.data ?? {}));
  const users = Object.fromEntries(
    (plan.roles ?? []).map((role) => [
      role,
      { username: `${prefix}-${role}-${randomBytes(3).toString("hex")}`.toLowerCase(), password: `pw-${randomBytes(8).toString("hex")}` },
    ]),
  ) as Record<R, User>;
  try {
    const out = cli([
      ...(plan.data ? [["import", file]] : []),
      ["api-key", "create", "--name", prefix, "--scopes", plan.keyScopes ?? "lettura,scrittura"],
      ...Object.entries<User>(users).map(([role, u]) => [
        "user",
        "create",
        "--username",
        u.username,
        "--role",
        role,
        "--password",
        u.password,
      ]),
    ]);
    if (!plan.data) out.unshift(JSON.stringify({ magazzini: {}, articoli: {}, fornitori: {}, clienti: {} }));
    return { ids: JSON.parse(out[0]!) as ImportedIds, key: out[1]!.trim(), users };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A load (`carico`) through POST /api/v1/movimenti on the service under test; every row must be written. */
export async function seedStock(
  key: string,
  magazzino: number,
  righe: { codice: string; quantita: number; lotto?: string; scadenza?: string }[],
): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1/movimenti`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ natura: "carico", magazzino, righe }),
  });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  expect(JSON.parse(text).rifiutate, text).toBe(0);
}

/** A valid EAN-13 from its first 12 digits. */
export function ean13(first12: string): string {
  const sum = [...first12].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${first12}${(10 - (sum % 10)) % 10}`;
}

/** Today in the service's time zone (Europe/Rome), as the import's dates are written. */
export function today(): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Rome" }).format(new Date());
}
