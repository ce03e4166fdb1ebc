import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { progress, seconds, sleep } from "./util";
import { freePort } from "../src/server/lib/ports";
import { hasBuild, nextBuild, staleReason } from "../src/server/next-build";
import { npmStartArgs } from "../e2e/support/start-command";

/**
 * The production server under test: built into its own directory (`.next-bench`, so that a build going
 * on in `.next` is not disturbed) and started exactly as `npm start` runs it (node, its flags and
 * scripts/start.mjs), against the benchmark's own PostgreSQL.
 */

export const NEXT_DIR = ".next-bench";

/**
 * `next build` into .next-bench (or `dir`: the browser bench has its own, so neither run rebuilds the
 * other's server under it): when it is stale, always with --rebuild, never with --no-build (if one exists).
 */
export async function buildServer(root: string, mode: "force" | "if-needed" | "existing", dir = NEXT_DIR): Promise<void> {
  const reason = mode === "force" ? "richiesta con --rebuild" : staleReason(root, dir);
  if (mode === "existing" && hasBuild(root, dir)) {
    progress(`compilazione: uso ${dir} com'è (--no-build${reason ? `; ${reason}` : ""})`);
    return;
  }
  if (reason === null) {
    progress(`compilazione: ${dir} è aggiornata, non ricompilo`);
    return;
  }
  progress(`compilazione: next build in ${dir} (${reason}) …`);
  const t0 = performance.now();
  await nextBuild(root, dir, { onStart: (child) => stopOnExit.add(() => child.kill("SIGTERM")), warn: progress });
  progress(`compilazione: fatta in ${seconds(performance.now() - t0)}`);
}

/** Cleanup actions run on exit, failure or Ctrl-C (last registered, first run). */
export const stopOnExit = new Set<() => unknown>();

let cleaning: Promise<void> | undefined;
/** Runs the cleanup actions once (each given 40 s at most), however many paths ask for it. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of [...stopOnExit].reverse()) {
      try {
        await Promise.race([fn(), new Promise((r) => setTimeout(r, 40_000))]);
      } catch (e) {
        console.error(`pulizia: ${(e as Error).message}`);
      }
    }
    stopOnExit.clear();
  })();
  return cleaning;
}

/**
 * A benchmark's whole run: `main`, then the cleanup actions, on success, failure and Ctrl-C alike
 * (`stopping` names what a signal stops, for the operator); exits 0, 1 or 130.
 */
export async function runMain(name: string, stopping: string, main: () => Promise<void>): Promise<never> {
  let interrupted = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (cleaning) return;
      interrupted = true;
      console.error(`\n${signal}: fermo ${stopping} e tolgo i file temporanei …`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  try {
    await main();
    await cleanup();
    process.exit(0);
  } catch (e) {
    await cleanup();
    if (interrupted) process.exit(130);
    console.error(`\n${name} fallito: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  }
}

/** `--help` of a benchmark: the head comment of its file (pass `import.meta.url`), then exit 0. */
export function printHelp(fileUrl: string): never {
  console.log(
    fs
      .readFileSync(new URL(fileUrl), "utf8")
      .split("*/")[0]!
      .replace(/^\/\*\*|^ \* ?/gm, ""),
  );
  process.exit(0);
}

export interface RunningServer {
  pid: number;
  port: number;
  output(): string;
  stop(): Promise<void>;
}

function getHealth(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/api/health", timeout: 2000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.on("timeout", () => req.destroy());
  });
}

export async function startServer(
  root: string,
  opts: { databaseUrl: string; cpuProfDir?: string; logFile: string; env?: Record<string, string>; nextDir?: string },
): Promise<RunningServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    BANCHINA_NEXT_DIR: opts.nextDir ?? NEXT_DIR,
    DEMO_DATA: "false",
    DATABASE_URL: opts.databaseUrl,
    HOST: "127.0.0.1",
    PORT: String(port),
    ...opts.env,
  };
  delete env.BANCHINA_DEV;
  // As `npm start` runs it (its V8 flags and scripts/start.mjs): the bench measures the service as it is run.
  const nodeArgs = npmStartArgs(root);
  if (opts.cpuProfDir) nodeArgs.unshift("--cpu-prof", `--cpu-prof-dir=${opts.cpuProfDir}`);
  // Diagnosis only (e.g. BENCH_SERVER_FLAGS=--trace-gc): V8 flags NODE_OPTIONS refuses; the output goes to the server's log.
  if (process.env.BENCH_SERVER_FLAGS) nodeArgs.unshift(...process.env.BENCH_SERVER_FLAGS.split(" "));
  const child: ChildProcess = spawn(process.execPath, nodeArgs, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = fs.openSync(opts.logFile, "a");
  let tail = "";
  const keep = (b: Buffer) => {
    fs.writeSync(log, b);
    tail = (tail + b.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) {
      child.kill("SIGTERM"); // main.ts drains requests, closes Next and the pool, then exits
      await Promise.race([exit, sleep(15_000)]);
      if (!exited) {
        child.kill("SIGKILL");
        await exit;
      }
    }
    try {
      fs.closeSync(log);
    } catch {
      /* already closed */
    }
  };
  stopOnExit.add(stop);

  const until = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`il server si è fermato durante l'avvio:\n${tail}`);
    if ((await getHealth(port)) === 200) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`il server non risponde su /api/health dopo 120 s:\n${tail}`);
    }
    await sleep(200);
  }
  return { pid: child.pid!, port, output: () => tail, stop };
}

/** RSS of a process in MB from /proc/<pid>/status (VmRSS), or the peak since it started (VmHWM). */
export function readMemoryMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the server's RSS every 100 ms while a scenario runs; `stop()` gives the peak in MB. */
export function sampleMemory(pid: number): { stop(): number } {
  let peak = readMemoryMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, readMemoryMb(pid))), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, readMemoryMb(pid));
    },
  };
}

const TICK_MS = 10; // USER_HZ is 100 on Linux: /proc times are in hundredths of a second

/** CPU time (user + system) consumed so far by a process, ms; 0 if it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // after "pid (comm) ": state is field 3, utime 14, stime 15 → indexes 11 and 12 here
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The postmaster and every process it started (backends, background workers). */
function postgresPids(postmaster: number): number[] {
  const out = [postmaster];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

export interface CpuSnapshot {
  server: number;
  postgres: Map<number, number>;
  bench: number;
}

/** CPU used by the server, by PostgreSQL (all its processes) and by this benchmark process. */
export class CpuMeter {
  constructor(
    private readonly serverPid: number,
    private readonly postmasterPid: number,
  ) {}

  /** The same meter for another server process against the same PostgreSQL. */
  forServer(pid: number): CpuMeter {
    return new CpuMeter(pid, this.postmasterPid);
  }

  snapshot(): CpuSnapshot {
    const u = process.cpuUsage();
    return {
      server: cpuMs(this.serverPid),
      postgres: new Map(postgresPids(this.postmasterPid).map((p) => [p, cpuMs(p)])),
      bench: (u.user + u.system) / 1000,
    };
  }

  /** CPU ms spent since `from`; a backend that exited meanwhile is not counted (pools keep theirs). */
  since(from: CpuSnapshot): { serverMs: number; postgresMs: number; benchMs: number } {
    const now = this.snapshot();
    let pgMs = 0;
    for (const [pid, ms] of now.postgres) pgMs += ms - (from.postgres.get(pid) ?? 0);
    return { serverMs: now.server - from.server, postgresMs: pgMs, benchMs: now.bench - from.bench };
  }
}
