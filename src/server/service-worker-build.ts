import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { build, stop } from "esbuild";

/**
 * The service worker of the operator UI (src/ui/offline/sw.ts, on serwist's runtime), built with esbuild
 * into the Next build directory it belongs to, with that build's precache list written into it: every file
 * under <dir>/static (what `/_next/static/` serves) and the offline shell page. Next 16 builds with
 * Turbopack, which @serwist/next's webpack plugin cannot hook into; building the worker ourselves from the
 * finished build keeps `next build` as it is.
 *
 * Each entry's revision is its content's hash (the shell's: the build id), so a new build makes the
 * handheld fetch only what changed, and a new worker (its precache list changed) replaces the old.
 */

export const SERVICE_WORKER_FILE = "sw.js";
/** The page the worker answers a failed navigation with (src/app/offline/page.tsx). */
const OFFLINE_SHELL = "/offline";

interface PrecacheEntry {
  url: string;
  revision: string;
}

function staticEntries(staticDir: string): PrecacheEntry[] {
  const out: PrecacheEntry[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      // Source maps are for a person with the developer tools open, not for a handheld in a dead spot.
      else if (e.isFile() && !e.name.endsWith(".map")) {
        const rel = path.relative(staticDir, full).split(path.sep).join("/");
        const revision = createHash("sha256").update(fs.readFileSync(full)).digest("hex").slice(0, 16);
        out.push({ url: `/_next/static/${rel}`, revision });
      }
    }
  };
  if (fs.existsSync(staticDir)) walk(staticDir);
  return out.sort((a, b) => a.url.localeCompare(b.url));
}

/** The precache list of the build in `dir` (under root). */
export function precacheList(root: string, dir: string): PrecacheEntry[] {
  const buildId = fs.readFileSync(path.join(root, dir, "BUILD_ID"), "utf8").trim();
  return [{ url: OFFLINE_SHELL, revision: buildId }, ...staticEntries(path.join(root, dir, "static"))];
}

/** Builds <dir>/sw.js for the build in `dir`; written under another name and renamed, so no reader sees half of it. */
export async function buildServiceWorker(root: string, dir: string): Promise<void> {
  const result = await build({
    entryPoints: [path.join(root, "src/ui/offline/sw.ts")],
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2020",
    minify: true,
    define: { __PRECACHE__: JSON.stringify(precacheList(root, dir)), "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "warning",
  });
  // esbuild's compiler runs in a child process of its own, which would otherwise stay.
  await stop();
  const file = path.join(root, dir, SERVICE_WORKER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, result.outputFiles[0]!.contents);
  fs.renameSync(tmp, file);
}

/** The worker of the build in `dir`, built when missing or older than the build. */
export async function ensureServiceWorker(root: string, dir: string): Promise<string> {
  const file = path.join(root, dir, SERVICE_WORKER_FILE);
  const built = fs.statSync(path.join(root, dir, "BUILD_ID")).mtimeMs;
  if (!fs.existsSync(file) || fs.statSync(file).mtimeMs < built) await buildServiceWorker(root, dir);
  return file;
}
