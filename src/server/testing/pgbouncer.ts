import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../lib/ports";

/**
 * A real PgBouncer (Debian's package, /usr/sbin/pgbouncer) in transaction mode in front of a PostgreSQL,
 * for the tests and the benchmark: a generated ini in a temporary directory, a free port on 127.0.0.1,
 * SCRAM authentication with the server's own user and password, every database name passed through
 * (`* =`), so one pooler serves each test file's database. PgBouncer refuses to run as root: under root it
 * runs as `postgres`, the user the embedded PostgreSQL runs as.
 */

export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? "/usr/sbin/pgbouncer";

export interface PgBouncer {
  /** `directUrl` with its host, port and socket directory replaced by the pooler's. */
  url(directUrl: string): string;
  port: number;
  pid: number;
  /** The pooler's console (SHOW POOLS, SHOW SERVERS …): a plain client in simple-query mode. */
  admin<Row extends pg.QueryResultRow>(command: string): Promise<Row[]>;
  log(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Server connections per database and user (PgBouncer's default_pool_size). */
  poolSize?: number;
  maxClientConn?: number;
}

export function pgbouncerInstalled(): boolean {
  return fs.existsSync(PGBOUNCER_BIN);
}

/** The ids of the `postgres` user when we are root (PgBouncer will not run as root); none otherwise. */
function runAsIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** A value of a connection string in PgBouncer's [databases], quoted as libpq quotes it. */
const quoted = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

export async function startPgBouncer(directUrl: string, opts: PgBouncerOptions = {}): Promise<PgBouncer> {
  if (!pgbouncerInstalled())
    throw new Error(`PgBouncer non trovato in ${PGBOUNCER_BIN}: installarlo con \`apt-get install -y pgbouncer\`.`);
  const direct = new URL(directUrl);
  const user = decodeURIComponent(direct.username);
  const password = decodeURIComponent(direct.password);
  // The server's Unix socket directory when the URL names one (pg's `host` parameter), else its TCP address.
  const host = direct.searchParams.get("host") ?? direct.hostname;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-pgbouncer-"));
  const ids = runAsIds();
  const port = await freePort();
  const ini = [
    "[databases]",
    `* = host=${quoted(host)} port=${direct.port || "5432"}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "pool_mode = transaction",
    "auth_type = scram-sha-256",
    `auth_file = ${path.join(dir, "userlist.txt")}`,
    `admin_users = ${user}`,
    `default_pool_size = ${opts.poolSize ?? 20}`,
    `max_client_conn = ${opts.maxClientConn ?? 500}`,
    `logfile = ${path.join(dir, "pgbouncer.log")}`,
    "",
  ].join("\n");
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), ini);
  fs.writeFileSync(path.join(dir, "userlist.txt"), `"${user.replace(/"/g, '""')}" "${password.replace(/"/g, '""')}"\n`, { mode: 0o600 });
  if (ids.uid !== undefined) for (const f of ["", "pgbouncer.ini", "userlist.txt"]) fs.chownSync(path.join(dir, f), ids.uid, ids.gid!);

  const child: ChildProcess = spawn(PGBOUNCER_BIN, [path.join(dir, "pgbouncer.ini")], { ...ids, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (output += b.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log = () => {
    try {
      return output + fs.readFileSync(path.join(dir, "pgbouncer.log"), "utf8");
    } catch {
      return output;
    }
  };

  const url = (of: string) => {
    const u = new URL(of);
    u.hostname = "127.0.0.1";
    u.port = String(port);
    u.searchParams.delete("host");
    return u.toString();
  };
  const admin = async <Row extends pg.QueryResultRow>(command: string): Promise<Row[]> => {
    const u = new URL(url(directUrl));
    u.pathname = "/pgbouncer";
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    try {
      // The console speaks the simple query protocol only: a query with no values is sent that way.
      return (await c.query<Row>(command)).rows;
    } finally {
      await c.end();
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT");
      const t = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`PgBouncer si è fermato all'avvio:\n${log().slice(-3000)}`);
    try {
      await admin("SHOW VERSION");
      break;
    } catch (e) {
      if (Date.now() > until) {
        await stop();
        throw new Error(`PgBouncer non risponde entro 15 s (${(e as Error).message}):\n${log().slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, port, pid: child.pid!, admin, log, stop };
}
