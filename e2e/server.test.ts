import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/server/lib/ports";
import { alive, commandLines, ensureBuild } from "./reliability/harness";
import { npmStartArgs } from "./support/start-command";

/**
 * The real service as a user runs it: a production build, `npm start`'s command (scripts/start.mjs, which
 * compiles src/server/main.ts and runs it) in its own process,
 * the embedded PostgreSQL under a temporary DATA_DIR. What only this level can show: start-up,
 * routing through Next, and that PostgreSQL never outlives the service, even when it is SIGKILLed.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
// The start banner's last line (main.ts): the URL, the documentation and the demo key come before it, in one
// run of writes; waiting for its first line raced the rest still on its way through the pipe.
const READY = "Per fermare il servizio: Ctrl+C.";

interface Service {
  proc: ChildProcess;
  base: string;
  output(): string;
  exit: Promise<number | null>;
  /** After exit, once every holder of its output pipes (the watchdog inherits stderr) has let go. */
  closed: Promise<void>;
}

const started: Service[] = [];
const dirs: string[] = [];

function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-e2e-"));
  // The embedded PostgreSQL runs as an unprivileged user when we are root: it must reach the directory.
  fs.chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

/** Spawns the service; `ready` tells whether it printed its URL before stopping (60 s at most). */
async function launch(dataDir: string): Promise<Service & { ready: boolean }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: dataDir, DEMO_DATA: "true" };
  // The service chooses these itself; the test runner's values (NODE_ENV=test) must not leak in.
  for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV"]) delete env[k];
  // npm start's command run by node itself, not npm: the pid is the service's, so SIGKILL hits the owner.
  const proc = spawn(process.execPath, npmStartArgs(ROOT), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => proc.once("close", () => resolve()));
  const service = { proc, base: `http://127.0.0.1:${port}`, output: () => out, exit, closed };
  started.push(service);
  const ready = await new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`il servizio non è partito entro 60 s:\n${out}`)), 60_000);
    const poll = setInterval(() => {
      if (!out.includes(READY)) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve(true);
    }, 50);
    void closed.then(() => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve(out.includes(READY));
    });
  });
  return { ...service, ready };
}

async function start(dataDir: string): Promise<Service> {
  const s = await launch(dataDir);
  if (!s.ready) throw new Error(`il servizio si è fermato durante l'avvio:\n${s.output()}`);
  return s;
}

/** The demo API key, as the service prints it at every start. */
function demoKey(output: string): string {
  const key = /bnc_[0-9a-f]+_[A-Za-z0-9_-]+/.exec(output)?.[0];
  if (!key) throw new Error(`nessuna chiave demo nell'output:\n${output}`);
  return key;
}

async function waitUntil(what: string, check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`scaduto il tempo: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const postmasterPid = (dataDir: string) => Number(fs.readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);

/** PostgreSQL processes serving this DATA_DIR (the postmaster carries `-D <dir>/pg`). */
const postgresFor = (dataDir: string) => commandLines().filter((p) => p.cmd.includes(path.join(dataDir, "pg")) && /postgres/.test(p.cmd));

/** The embedded database's URL, from the files the service leaves beside the cluster. */
function databaseUrl(dataDir: string): string {
  const { port } = JSON.parse(fs.readFileSync(path.join(dataDir, "proprietario.json"), "utf8")) as { port: number };
  const { user, password } = JSON.parse(fs.readFileSync(path.join(dataDir, "pg-credenziali.json"), "utf8")) as {
    user: string;
    password: string;
  };
  return `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function query<T>(dataDir: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl(dataDir) });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

// The build every test that starts the service shares (`.next`, which `npm start` serves).
beforeAll(() => ensureBuild(), 600_000);

afterAll(async () => {
  for (const s of started) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill("SIGKILL");
  // Whatever a failed test left behind: its watchdog stops PostgreSQL; stop an orphan ourselves.
  for (const dir of dirs) {
    for (const p of postgresFor(dir)) {
      try {
        process.kill(p.pid, "SIGINT");
      } catch {
        /* already gone */
      }
    }
    await waitUntil("PostgreSQL fermo", () => postgresFor(dir).length === 0, 15_000).catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe("il servizio avviato come da `npm start`", () => {
  const dataDir = newDataDir();
  let service: Service;
  let key: string;
  let movimento: number;
  let operazione: number;

  it("parte, risponde su /api e stampa la chiave demo", async () => {
    service = await start(dataDir);
    const out = service.output();
    expect(out).toContain(`${service.base}/api/docs`);
    expect(out).toContain(`${service.base}/api/v1/openapi.json`);
    expect(out).toContain("Dati dimostrativi caricati");
    key = demoKey(out);
    expect(fs.readFileSync(path.join(dataDir, "chiave-demo.txt"), "utf8").trim()).toBe(key);

    const health = await fetch(`${service.base}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ stato: "ok" });
    expect(health.headers.get("x-request-id")).toBeTruthy();
    expect(health.headers.get("cache-control")).toBe("no-store");
    const postHealth = await fetch(`${service.base}/api/health`, { method: "POST" });
    expect(postHealth.status).toBe(405);
    expect(postHealth.headers.get("allow")).toBe("GET, HEAD");
    expect((await postHealth.json()).codice).toBe("metodo_non_consentito");

    // Pages load Next at their first request (main.ts); two at once wait for the same load.
    const [first, second] = await Promise.all([fetch(`${service.base}/accesso`), fetch(`${service.base}/accesso`)]);
    expect([first.status, second.status]).toEqual([200, 200]);

    const doc = await fetch(`${service.base}/api/v1/openapi.json`);
    expect(doc.status).toBe(200);
    expect((await doc.json()).openapi).toMatch(/^3\./);

    const docs = await fetch(`${service.base}/api/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/text\/html/);
    expect(await docs.text()).toContain("<title>Documentazione API · Banchina</title>");

    const home = await fetch(`${service.base}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get("x-powered-by")).toBeNull();
    expect(await home.text()).toContain("Servizio attivo");
  });

  it("risponde con il corpo del contratto a percorsi e metodi sbagliati", async () => {
    const unknown = await fetch(`${service.base}/api/v1/non-esiste`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-request-id")).toBeTruthy();
    expect(await unknown.json()).toMatchObject({ codice: "non_trovato", messaggio: expect.any(String) });

    // A path that only reads (POST /clienti exists since the master-data upserts).
    const wrongMethod = await fetch(`${service.base}/api/v1/documenti-vendita`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    expect(await wrongMethod.json()).toMatchObject({ codice: "metodo_non_consentito" });

    // Next's own trailing-slash redirect is off: the REST handler answers every path under /api/v1.
    const slash = await fetch(`${service.base}/api/v1/clienti/`, { redirect: "manual" });
    expect(slash.status).toBe(404);
    expect(await slash.json()).toMatchObject({ codice: "non_trovato" });

    const anonymous = await fetch(`${service.base}/api/v1/movimenti`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ codice: "non_autenticato" });

    const trpc = await fetch(`${service.base}/api/trpc/clients.list`);
    expect(trpc.status).toBe(401);
    expect(await trpc.json()).toMatchObject({ error: { data: { codice: "non_autenticato" } } });
  });

  it("scrive e legge con la chiave demo", async () => {
    const [warehouse] = await query<{ id: number }>(dataDir, "SELECT id FROM magazzini ORDER BY id LIMIT 1");
    const [article] = await query<{ codice: string }>(
      dataDir,
      "SELECT codice FROM articoli WHERE NOT gestione_lotti AND NOT ha_varianti ORDER BY id LIMIT 1",
    );
    expect(warehouse && article, "i dati demo hanno un magazzino e un articolo semplice").toBeTruthy();
    const res = await fetch(`${service.base}/api/v1/movimenti`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "e2e-carico-1" },
      body: JSON.stringify({
        natura: "carico",
        magazzino: warehouse!.id,
        causale: "prova e2e",
        righe: [{ codice: article!.codice, quantita: 7 }],
      }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ scritte: 1, rifiutate: 0 });
    movimento = body.righe[0].movimento;
    operazione = body.operazione;

    const list = await fetch(`${service.base}/api/v1/movimenti?operazione=${operazione}`, { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).toContain(`"id":${movimento}`);
  });

  it("un secondo servizio sullo stesso DATA_DIR si ferma con un messaggio chiaro", async () => {
    const second = await launch(dataDir);
    expect(second.ready).toBe(false);
    expect(await second.exit).toBe(1);
    await second.closed;
    expect(second.output()).toMatch(/Avvio non riuscito: .*già usato dal processo/);
    expect((await fetch(`${service.base}/api/health`)).status).toBe(200);
  });

  it("SIGKILL: il watchdog ferma PostgreSQL", async () => {
    const postmaster = postmasterPid(dataDir);
    expect(alive(postmaster)).toBe(true);
    service.proc.kill("SIGKILL");
    await service.exit;
    await waitUntil("il postmaster si ferma dopo il SIGKILL del servizio", () => !alive(postmaster), 15_000);
  });

  it("riparte sullo stesso DATA_DIR con i dati scritti prima", async () => {
    service = await start(dataDir);
    expect(service.output()).not.toContain("Dati dimostrativi caricati");
    expect(demoKey(service.output())).toBe(key);
    const list = await fetch(`${service.base}/api/v1/movimenti?operazione=${operazione}`, { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).toContain(`"id":${movimento}`);
  });

  it("SIGTERM: esce con 0 e non lascia PostgreSQL", async () => {
    const postmaster = postmasterPid(dataDir);
    service.proc.kill("SIGTERM");
    expect(await service.exit).toBe(0);
    await service.closed;
    expect(service.output()).toContain("Arresto in corso (SIGTERM)");
    expect(alive(postmaster)).toBe(false);
    expect(postgresFor(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, "proprietario.json"))).toBe(false);
  });
});

describe("un PostgreSQL rimasto orfano", () => {
  it("viene fermato e sostituito all'avvio successivo", async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    const orphan = postmasterPid(dataDir);
    const watchdog = commandLines().find((p) => p.cmd.includes("embedded-watchdog.mjs") && p.cmd.trim().endsWith(` ${orphan}`));
    expect(watchdog, "il watchdog del postmaster").toBeDefined();
    // Watchdog first: killed the other way round, it would stop PostgreSQL as it is meant to.
    process.kill(watchdog!.pid, "SIGKILL");
    await waitUntil("il watchdog è terminato", () => !alive(watchdog!.pid), 5_000);
    first.proc.kill("SIGKILL");
    await first.exit;
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(orphan)).toBe(true);

    const second = await start(dataDir);
    expect(second.output()).toContain(`PostgreSQL orfano (pid ${orphan})`);
    expect(alive(orphan)).toBe(false);
    const replacement = postmasterPid(dataDir);
    expect(replacement).not.toBe(orphan);
    expect(alive(replacement)).toBe(true);
    expect((await fetch(`${second.base}/api/health`)).status).toBe(200);

    // The database going away under a running service: 503 with the contract body, then a clean stop.
    process.kill(replacement, "SIGINT");
    await waitUntil("PostgreSQL fermo", () => !alive(replacement), 15_000);
    const down = await fetch(`${second.base}/api/health`);
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBeTruthy();
    expect(down.headers.get("x-request-id")).toBeTruthy();
    expect(await down.json()).toMatchObject({ codice: "servizio_non_disponibile", messaggio: expect.any(String) });

    second.proc.kill("SIGTERM");
    expect(await second.exit).toBe(0);
    expect(postgresFor(dataDir)).toEqual([]);
  });
});
