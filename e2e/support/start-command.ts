import fs from "node:fs";
import path from "node:path";

/**
 * `npm start` as package.json has it, without `node`: its flags, then scripts/start.mjs (which compiles the
 * service and runs it in the same process). Spawned with node itself, not npm, the child's pid is the
 * service's: for SIGKILL (e2e/server.test.ts) and /proc/<pid>/status (the bench).
 */
export function npmStartArgs(root: string): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf("node") + 1);
}
