import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * The one way the Next app gets built: by `npm start` on a fresh clone, and by the Playwright server,
 * the reliability suite and the benchmark, each into its own directory (BANCHINA_NEXT_DIR, which
 * next.config.mjs reads), so that one build never disturbs another's.
 */

/** The build directory's name: `.next` unless BANCHINA_NEXT_DIR says otherwise. */
export const defaultNextDir = () => process.env.BANCHINA_NEXT_DIR || ".next";

const INPUTS = ["src", "next.config.mjs", "package.json", "package-lock.json", "tsconfig.json"];

/** Newest modification time under `p` (files only), skipping dot-entries, tests and test helpers. */
function newestInput(p: string): number {
  let newest = 0;
  const stack = [p];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(cur);
    } catch {
      continue;
    }
    if (stat.isFile()) {
      newest = Math.max(newest, stat.mtimeMs);
      continue;
    }
    for (const e of fs.readdirSync(cur, { withFileTypes: true })) {
      if (e.name.startsWith(".") || e.name === "testing" || /\.test\.tsx?$/.test(e.name)) continue;
      if (e.isDirectory() || e.isFile()) stack.push(path.join(cur, e.name));
    }
  }
  return newest;
}

/** Whether `dir` (under root) holds a finished build, current or not. */
export function hasBuild(root: string, dir: string): boolean {
  return fs.existsSync(path.join(root, dir, "BUILD_ID"));
}

/** Why the build in `dir` (under root) is needed: missing, or older than a source; null when it is current. */
export function staleReason(root: string, dir: string): string | null {
  if (!hasBuild(root, dir)) return `${dir} non esiste`;
  const built = fs.statSync(path.join(root, dir, "BUILD_ID")).mtimeMs;
  for (const input of INPUTS) {
    if (newestInput(path.join(root, input)) > built) return `${input} è più recente della compilazione in ${dir}`;
  }
  return null;
}

/**
 * `next build` into `dir` under root. Next adds the directory's types to tsconfig.json the first time
 * it meets it: that addition alone is undone, so a build leaves the working tree as it found it (an
 * edit someone made meanwhile is left alone, with a warning). The output goes to the console
 * (`inherit`) or is kept, and its tail is in the error when the build fails.
 */
export async function nextBuild(
  root: string,
  dir: string,
  opts: { inherit?: boolean; onStart?: (child: ChildProcess) => void; warn?: (m: string) => void } = {},
): Promise<void> {
  const tsconfig = path.join(root, "tsconfig.json");
  const saved = fs.existsSync(tsconfig) ? { content: fs.readFileSync(tsconfig), stat: fs.statSync(tsconfig) } : undefined;
  const nextBin = createRequire(path.join(root, "package.json")).resolve("next/dist/bin/next");
  let output = "";
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [nextBin, "build"], {
        cwd: root,
        env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", BANCHINA_NEXT_DIR: dir },
        stdio: opts.inherit ? "inherit" : ["ignore", "pipe", "pipe"],
      });
      child.stdout?.on("data", (b: Buffer) => (output += b.toString()));
      child.stderr?.on("data", (b: Buffer) => (output += b.toString()));
      child.once("error", reject);
      child.once("exit", resolve);
      opts.onStart?.(child);
    });
    if (code !== 0) {
      const tail = opts.inherit ? "vedere i messaggi sopra" : output.split("\n").slice(-30).join("\n");
      throw new Error(`next build (${dir}) è terminato con codice ${code}: ${tail}`);
    }
  } finally {
    if (saved !== undefined) restoreTsconfig(tsconfig, saved, dir, opts.warn ?? ((m) => console.warn(m)));
  }
}

/** Puts tsconfig.json back, content and modification time: a restored file must not look newer than the build. */
function restoreTsconfig(file: string, saved: { content: Buffer; stat: fs.Stats }, dir: string, warn: (m: string) => void): void {
  const now = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  if (now?.equals(saved.content)) {
    fs.utimesSync(file, saved.stat.atime, saved.stat.mtime);
    return;
  }
  try {
    const strip = (b: Buffer) => {
      const j = JSON.parse(b.toString()) as { include?: string[] };
      return JSON.stringify({ ...j, include: j.include?.filter((x) => !x.startsWith(`${dir}/`)) });
    };
    if (now === undefined || strip(now) === strip(saved.content)) {
      fs.writeFileSync(file, saved.content);
      fs.utimesSync(file, saved.stat.atime, saved.stat.mtime);
      return;
    }
  } catch {
    /* not plain JSON: fall through to the warning */
  }
  warn(`attenzione: tsconfig.json è cambiato durante la compilazione anche per altro: lasciato com'è (controllare le righe ${dir}/types)`);
}
