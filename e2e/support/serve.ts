import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureBuild, ROOT } from "../reliability/harness";

/**
 * Playwright's web server: builds the app when the build is older than the sources, then runs the real
 * service (`node --import tsx src/server/main.ts`) on the embedded PostgreSQL in DATA_DIR, and removes
 * DATA_DIR when the service stops. The build is the one vitest's server tests share (`ensureBuild`, under its
 * lock): after `vitest run` in `npm test` it is current, and Playwright starts without building.
 */
await ensureBuild((m) => console.log(`[e2e] ${m}`));

const dataDir = process.env.DATA_DIR!;
const env = { ...process.env };
for (const k of ["DATABASE_URL", "NODE_ENV", "BANCHINA_DEV"]) delete env[k];
const child = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], { cwd: ROOT, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => {
  if (dataDir && path.basename(dataDir).startsWith("banchina-pw-")) fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 1);
});
