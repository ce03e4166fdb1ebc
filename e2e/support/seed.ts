import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "@playwright/test";
import type { Role } from "./app";

/**
 * The data a spec uses, created by the spec itself through the administration CLI (API.md section 6) on the
 * running service's embedded PostgreSQL (DATA_DIR, attached while the service runs): master data and purchase
 * orders (`import`), users (`user create`), API keys (`api-key create`); stock goes in through REST with a key.
 * Codes, names and EANs carry the spec's own prefix, so specs run alone or in any order; the demo data set the
 * service loads at first start is there too, and no spec reads it.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

function cli(...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: process.env.BANCHINA_E2E_DATA!, LOG_LEVEL: "error" };
  for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV"]) delete env[k];
  try {
    return execFileSync(process.execPath, ["--import", "tsx", "src/cli/index.ts", ...args], { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`cli ${args[0]} ${args[1] ?? ""}: ${err.stderr ?? ""}${err.stdout ?? ""}`);
  }
}

export interface ImportedIds {
  magazzini: Record<string, number>;
  articoli: Record<string, number>;
  fornitori: Record<string, number>;
  clienti: Record<string, number>;
}

/** Master data and orders in the import file's format (API.md section 6); repeating it changes nothing. Returns the ids. */
export function seedData(data: Record<string, unknown[]>): ImportedIds {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "banchina-pw-seed-")), "dati.json");
  fs.writeFileSync(file, JSON.stringify(data));
  try {
    return JSON.parse(cli("import", file)) as ImportedIds;
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/**
 * A user of that role, named `<prefix>-<role>-<random>`: a spec's worker may start again after a failure and
 * seed once more, and usernames cannot repeat.
 */
export function seedUser(prefix: string, role: Role, username?: string): { username: string; password: string } {
  const user = { username: username ?? `${prefix}-${role}-${randomBytes(3).toString("hex")}`.toLowerCase(), password: `pw-${randomBytes(8).toString("hex")}` };
  cli("user", "create", "--username", user.username, "--role", role, "--password", user.password);
  return user;
}

/** An API key (lettura + scrittura unless told), for the REST calls that put stock in place. */
export function seedKey(name: string, scopes = "lettura,scrittura"): string {
  return cli("api-key", "create", "--name", name, "--scopes", scopes).trim();
}

/** A load (`carico`) through POST /api/v1/movimenti on the service under test; every row must be written. */
export async function seedStock(key: string, magazzino: number, righe: { codice: string; quantita: number; lotto?: string; scadenza?: string }[]): Promise<void> {
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
