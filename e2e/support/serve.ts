import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * Playwright's web server: builds the app when the build is older than the sources, then runs the real
 * service (`node --import tsx src/server/main.ts`) on the embedded PostgreSQL in DATA_DIR, and removes
 * DATA_DIR when the service stops.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const BUILD_DIR = path.join(ROOT, process.env.BANCHINA_NEXT_DIR || ".next");
const INPUTS = ["src", "next.config.mjs", "package-lock.json", "tsconfig.json"];

function newestSource(p: string): number {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(p) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestSource(path.join(p, entry)));
  return newest;
}

function buildIfStale(): void {
  const buildId = path.join(BUILD_DIR, "BUILD_ID");
  const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  const sources = Math.max(...INPUTS.map((i) => path.join(ROOT, i)).filter((p) => fs.existsSync(p)).map(newestSource));
  if (built >= sources) return;
  console.log(`[e2e] build ${built ? "più vecchia dei sorgenti" : "assente"}: next build …`);
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const r = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

buildIfStale();
const dataDir = process.env.DATA_DIR!;
const env = { ...process.env };
for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV"]) delete env[k];
const child = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], { cwd: ROOT, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => {
  if (dataDir && path.basename(dataDir).startsWith("banchina-pw-")) fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 1);
});
