import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "../src/server/lib/ports";
import { cleanup, ensureBuild, NEXT_DIR, ROOT, runCli, tempDir } from "./reliability/harness";

/**
 * The demo's credentials across starts of the real service: the passwords printed once, a warning at
 * every later start while they still work, production refusing them, and `demo remove`.
 */

// The start banner's last line (main.ts): the URL, the documentation and the demo key come before it, in one
// run of writes; waiting for its first line raced the rest still on its way through the pipe.
const READY = "Per fermare il servizio: Ctrl+C.";

interface Started {
  code: number | null;
  output: string;
}

/** Runs the service until it is ready (then stops it with SIGTERM) or until it exits on its own. */
async function startAndStop(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    BANCHINA_NEXT_DIR: NEXT_DIR,
  };
  for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV", "DEMO_DATA", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID"])
    delete childEnv[k];
  Object.assign(childEnv, env);
  const proc = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
    cwd: ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const onData = (b: Buffer) => {
    output += b.toString();
    if (output.includes(READY)) proc.kill("SIGTERM");
  };
  proc.stdout!.on("data", onData);
  proc.stderr!.on("data", onData);
  const timer = setTimeout(() => proc.kill("SIGKILL"), 120_000);
  const code = await new Promise<number | null>((resolve) => proc.once("close", (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output };
}

const passwords = (dataDir: string) =>
  fs
    .readFileSync(path.join(dataDir, "utenti-demo.txt"), "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split("\t")[1]!);

beforeAll(() => ensureBuild(), 600_000);
afterAll(cleanup);

describe("demo credentials", () => {
  const dataDir = tempDir("banchina-demo-");
  let saved: string[];

  test("the first start prints the passwords; later starts never again, but warn while they work", async () => {
    const first = await startAndStop(dataDir);
    expect(first.output).toContain(READY);
    saved = passwords(dataDir);
    expect(saved).toHaveLength(3);
    for (const p of saved) expect(first.output).toContain(p);

    const second = await startAndStop(dataDir);
    expect(second.output).toContain(READY);
    for (const p of saved) expect(second.output).not.toContain(p);
    expect(second.output).toContain(
      "ATTENZIONE: gli utenti dimostrativi operatore, responsabile, amministratore hanno ancora la password iniziale",
    );
  }, 300_000);

  test("NODE_ENV=production refuses to start with unchanged demo users, unless DEMO_DATA=true says so", async () => {
    const refused = await startAndStop(dataDir, { NODE_ENV: "production" });
    expect(refused.code).toBe(1);
    expect(refused.output).not.toContain(READY);
    expect(refused.output).toMatch(
      /Avvio non riuscito: NODE_ENV=production e gli utenti dimostrativi operatore, responsabile, amministratore hanno ancora la password iniziale/,
    );
    const refusedFalse = await startAndStop(dataDir, { NODE_ENV: "production", DEMO_DATA: "false" });
    expect(refusedFalse.code).toBe(1);

    const explicit = await startAndStop(dataDir, { NODE_ENV: "production", DEMO_DATA: "true" });
    expect(explicit.output).toContain(READY);
    expect(explicit.output).toContain("ATTENZIONE");
  }, 300_000);

  test("demo remove: refused while it would leave no administrator; then users, key and files go, and production starts", async () => {
    const alone = await runCli(["demo", "remove"], { dataDir });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toMatch(/lascerebbe senza amministratori/);

    const admin = await runCli(
      ["user", "create", "--username", "titolare", "--role", "amministratore", "--password", "una frase lunga e mia"],
      { dataDir },
    );
    expect(admin.code, admin.stderr).toBe(0);
    const removed = await runCli(["demo", "remove"], { dataDir });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain("Utenti dimostrativi rimossi: operatore, responsabile, amministratore.");
    expect(removed.stdout).toContain("Chiave API dimostrativa 'demo' revocata.");
    expect(fs.existsSync(path.join(dataDir, "utenti-demo.txt"))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, "chiave-demo.txt"))).toBe(false);

    const production = await startAndStop(dataDir, { NODE_ENV: "production" });
    expect(production.output).toContain(READY);
    expect(production.output).not.toContain("ATTENZIONE");
    expect(production.output).not.toContain("Nessun amministratore attivo");
    for (const p of saved) expect(production.output).not.toContain(p);
  }, 300_000);

  test("a production install loads no demo unless asked", async () => {
    const fresh = tempDir("banchina-demo-prod-");
    const started = await startAndStop(fresh, { NODE_ENV: "production" });
    expect(started.output).toContain(READY);
    expect(started.output).not.toContain("Dati dimostrativi caricati");
    // Nobody could sign in yet: the start says how to create the first administrator.
    expect(started.output).toContain("Nessun amministratore attivo: crearne uno con `npm run -s cli -- user create");
    expect(fs.existsSync(path.join(fresh, "utenti-demo.txt"))).toBe(false);
  }, 300_000);
});
