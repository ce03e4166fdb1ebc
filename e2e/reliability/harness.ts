import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { freePort } from "../../src/server/lib/ports";
import { defaultNextDir, nextBuild, staleReason } from "../../src/server/next-build";

/**
 * The reliability suite's tools: the real service as a child process (the production build in `.next`,
 * the one every test that starts the service shares: e2e/*.test.ts, the integrator, this suite and Playwright's
 * server, each through `ensureBuild`, so one run builds once), the CLI, plain HTTP,
 * and direct SQL for what the tests assert. Used by the vitest files beside it and by `npm run soak`.
 * Nothing here imports vitest: the soak script runs it under plain tsx.
 */

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const NEXT_DIR = defaultNextDir();
// The start banner's last line (main.ts): the URL, the documentation and the demo key come before it, in one
// run of writes; waiting for its first line raced the rest still on its way through the pipe.
const READY = "Per fermare il servizio: Ctrl+C.";
const LOCK_DIR = path.join(ROOT, `${NEXT_DIR}-build.lock`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * `next build` into NEXT_DIR when it is missing or older than the sources. Test files may run in
 * parallel, and Playwright's server builds through here too, so the build is guarded by a directory lock
 * (mkdir is atomic); the others wait for it.
 * A lock left by a dead process is taken over.
 */
export async function ensureBuild(log: (m: string) => void = () => {}): Promise<void> {
  const until = Date.now() + 600_000;
  for (let reason = staleReason(ROOT, NEXT_DIR); reason !== null; reason = staleReason(ROOT, NEXT_DIR)) {
    if (Date.now() > until) throw new Error(`${NEXT_DIR}: compilazione non terminata entro 10 minuti`);
    try {
      fs.mkdirSync(LOCK_DIR);
    } catch {
      const owner = Number(fs.readFileSync(path.join(LOCK_DIR, "pid"), { encoding: "utf8", flag: "a+" }) || "0");
      if (owner > 0 && !alive(owner)) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      else await sleep(500);
      continue;
    }
    try {
      fs.writeFileSync(path.join(LOCK_DIR, "pid"), String(process.pid));
      if (staleReason(ROOT, NEXT_DIR) === null) return;
      log(`next build in ${NEXT_DIR} (${reason}) …`);
      const started = Date.now();
      await nextBuild(ROOT, NEXT_DIR, { warn: log });
      log(`next build in ${NEXT_DIR}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      fs.rmSync(LOCK_DIR, { recursive: true, force: true });
    }
  }
}

const tempDirs: string[] = [];

export function tempDir(prefix = "banchina-rel-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // The embedded PostgreSQL runs as an unprivileged user when we are root: it must reach the directory.
  fs.chmodSync(dir, 0o755);
  tempDirs.push(dir);
  return dir;
}

export interface Service {
  proc: ChildProcess;
  pid: number;
  port: number;
  base: string;
  output(): string;
  exit: Promise<number | null>;
  closed: Promise<void>;
  running(): boolean;
}

const services: Service[] = [];

export interface LaunchOptions {
  /** External PostgreSQL; omitted: the embedded one under dataDir. */
  databaseUrl?: string;
  dataDir?: string;
  port?: number;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Starts `src/server/main.ts` (node with the tsx loader: the pid is the service's) and waits for its URL. */
export async function launch(opts: LaunchOptions): Promise<Service> {
  const port = opts.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    DEMO_DATA: "false",
    BANCHINA_NEXT_DIR: NEXT_DIR,
    DATA_DIR: opts.dataDir ?? tempDir(),
  };
  for (const k of ["DATABASE_URL", "DATABASE_DIRECT_URL", "NODE_ENV", "BANCHINA_DEV", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID"])
    delete env[k];
  Object.assign(env, opts.env);
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const proc = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => proc.once("close", () => resolve()));
  const service: Service = {
    proc,
    pid: proc.pid!,
    port,
    base: `http://127.0.0.1:${port}`,
    output: () => out,
    exit,
    closed,
    running: () => proc.exitCode === null && proc.signalCode === null,
  };
  services.push(service);
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const until = Date.now() + timeoutMs;
  while (!out.includes(READY)) {
    if (!service.running()) throw new Error(`il servizio si è fermato durante l'avvio:\n${out.slice(-4000)}`);
    if (Date.now() > until) {
      proc.kill("SIGKILL");
      throw new Error(`il servizio non è partito entro ${timeoutMs / 1000} s:\n${out.slice(-4000)}`);
    }
    await sleep(50);
  }
  return service;
}

/** The service's own log lines about one request (it logs unexpected errors under the request id). */
export function logFor(s: Service, requestId: string | null | undefined): string {
  if (!requestId) return "";
  const out = s.output();
  const at = out.indexOf(requestId);
  return at < 0 ? "" : out.slice(at, at + 3000);
}

/** SIGTERM, then wait: the service drains and stops its embedded PostgreSQL. */
export async function stop(s: Service): Promise<void> {
  if (!s.running()) return;
  s.proc.kill("SIGTERM");
  const t = setTimeout(() => s.proc.kill("SIGKILL"), 20_000);
  await s.exit;
  clearTimeout(t);
  await s.closed;
}

/** Every process's command line, from /proc (to find what a test left running). */
export function commandLines(): { pid: number; cmd: string }[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        return [{ pid: Number(d), cmd: fs.readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ") }];
      } catch {
        return [];
      }
    });
}

/** PostgreSQL processes serving this DATA_DIR (the postmaster carries `-D <dir>/pg`). */
export const postgresFor = (dataDir: string) =>
  commandLines().filter((p) => p.cmd.includes(path.join(dataDir, "pg")) && /postgres/.test(p.cmd));

/** Stops what this process started (only those pids) and removes the temporary directories. */
export async function cleanup(): Promise<void> {
  await Promise.all(services.map((s) => stop(s).catch(() => {})));
  for (const dir of tempDirs.splice(0)) {
    for (const p of postgresFor(dir)) {
      try {
        process.kill(p.pid, "SIGINT");
      } catch {
        /* gone */
      }
    }
    const until = Date.now() + 15_000;
    while (postgresFor(dir).length > 0 && Date.now() < until) await sleep(100);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The embedded database's URL, from the files the service leaves beside the cluster. */
export function embeddedUrl(dataDir: string): string {
  const { port } = JSON.parse(fs.readFileSync(path.join(dataDir, "proprietario.json"), "utf8")) as { port: number };
  const { user, password } = JSON.parse(fs.readFileSync(path.join(dataDir, "pg-credenziali.json"), "utf8")) as {
    user: string;
    password: string;
  };
  return `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run -s cli -- …` as node + tsx (no npm in between), on DATABASE_URL or an embedded DATA_DIR. */
export async function runCli(args: string[], target: { databaseUrl?: string; dataDir?: string }): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ["DATABASE_URL", "DATABASE_DIRECT_URL", "NODE_ENV", "DATA_DIR", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID"])
    delete env[k];
  if (target.databaseUrl) env.DATABASE_URL = target.databaseUrl;
  if (target.dataDir) env.DATA_DIR = target.dataDir;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/index.ts", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
  return { code, stdout, stderr };
}

export const verify = (target: { databaseUrl?: string; dataDir?: string }) => runCli(["verify"], target);

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
  ms: number;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  idem?: string;
  timeoutMs?: number;
}

/** One HTTP request; a body that is not JSON leaves `body` undefined and `text` as received. */
export async function call<T = any>(base: string, method: string, p: string, opts: CallOptions = {}): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.idem !== undefined) headers["idempotency-key"] = opts.idem;
  let body: string | Uint8Array | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const url = p.startsWith("/api/") ? `${base}${p}` : `${base}/api/v1${p}`;
  const started = Date.now();
  const res = await fetch(url, {
    method,
    headers,
    body: body as BodyInit | undefined,
    signal: AbortSignal.timeout(opts.timeoutMs ?? 300_000),
  }).catch((e: Error) => {
    // "fetch failed" alone says nothing: the request and the socket's own error say which and why.
    const cause = e.cause as NodeJS.ErrnoException | undefined;
    throw new Error(`${method} ${p}: ${e.message} (${cause?.code ?? ""} ${cause?.message ?? ""})`, { cause: e });
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed, ms: Date.now() - started };
}

/** Repeats a write while the contract says "retry": 409 idempotenza_in_corso, 429 and 503 (after Retry-After). */
export async function callUntilSettled<T = any>(
  base: string,
  method: string,
  p: string,
  opts: CallOptions = {},
  maxMs = 120_000,
): Promise<HttpResult<T> & { attempts: number }> {
  const until = Date.now() + maxMs;
  for (let attempts = 1; ; attempts++) {
    const r = await call<T>(base, method, p, opts);
    const retry = (r.status === 409 && (r.body as any)?.codice === "idempotenza_in_corso") || r.status === 429 || r.status === 503;
    if (!retry || Date.now() > until) return { ...r, attempts };
    await sleep(Math.min(1000, Number(r.headers.get("retry-after") ?? "1") * 1000));
  }
}

export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms: number,
  every = 50,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`scaduto il tempo (${ms} ms): ${what}`);
    await sleep(every);
  }
}

/** What "nothing written" and "wholly there" are checked against. */
export interface Snapshot {
  movimenti: number;
  operazioni: number;
  lotti: number;
  giacenze: number;
  idempotenza: number;
  giacenze_somma: string;
  lotti_somma: string;
  arrivata_somma: string;
  righe_toccate: number;
  ordini_toccati: number;
}

export const SNAPSHOT_SQL = `SELECT
  (SELECT count(*) FROM movimenti)::int AS movimenti,
  (SELECT count(*) FROM operazioni)::int AS operazioni,
  (SELECT count(*) FROM lotti)::int AS lotti,
  (SELECT count(*) FROM giacenze)::int AS giacenze,
  (SELECT count(*) FROM idempotenza)::int AS idempotenza,
  (SELECT COALESCE(sum(quantita), 0)::text FROM giacenze) AS giacenze_somma,
  (SELECT COALESCE(sum(residua), 0)::text FROM lotti) AS lotti_somma,
  (SELECT COALESCE(sum(arrivata), 0)::text FROM righe_ordine) AS arrivata_somma,
  (SELECT count(*) FROM righe_ordine WHERE stato <> 'aperta')::int AS righe_toccate,
  (SELECT count(*) FROM ordini_acquisto WHERE stato <> 'aperto')::int AS ordini_toccati`;

export async function snapshot(db: pg.Pool | pg.Client): Promise<Snapshot> {
  return (await db.query(SNAPSHOT_SQL)).rows[0] as Snapshot;
}

export { sleep };
