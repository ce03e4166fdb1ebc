import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { snap } from "../support/app";

/**
 * A first start without the demo (DEMO_DATA=false): nobody can sign in yet, and the sign-in page says how
 * to create the first administrator. A service of its own, on its own empty database and port, on the
 * build the suite's service uses.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
let service: ChildProcess | undefined;
let baseURL = "";
let dataDir = "";
let log = "";

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-pw-primo-"));
  fs.chmodSync(dataDir, 0o755);
  const port = execFileSync(process.execPath, [
    "-e",
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]).toString();
  baseURL = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: port,
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DEMO_DATA: "false",
    WEBHOOK_WORKERS: "0",
  };
  for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV"]) delete env[k];
  service = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  service.stdout?.on("data", (b: Buffer) => (log += b.toString()));
  service.stderr?.on("data", (b: Buffer) => (log += b.toString()));
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (service.exitCode !== null) throw new Error(`il servizio si è fermato:\n${log}`);
    const ok = await fetch(`${baseURL}/api/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`il servizio non risponde:\n${log}`);
    await new Promise((r) => setTimeout(r, 500));
  }
});

test.afterAll(async () => {
  if (service && service.exitCode === null) {
    const exited = new Promise((r) => service!.once("exit", r));
    service.kill("SIGTERM");
    await exited;
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test("primo avvio senza dati dimostrativi: la pagina di accesso dice come creare il primo utente", async ({ browser }) => {
  const context = await browser.newContext({ baseURL, viewport: { width: 360, height: 760 } });
  const page = await context.newPage();
  await page.goto("/accesso");
  const hint = page.getByTestId("primo-utente");
  await expect(hint).toBeVisible();
  await expect(hint).toContainText("npm run -s cli -- user create --username admin --role amministratore");
  await snap(page, "accesso-primo-utente");
  await context.close();
});
