/**
 * `npm start`: compiles the service into one module (scripts/compile-server.mjs, at every start: the module
 * can never be older than the sources), then runs it in this process, with the V8 flags package.json gives
 * node.
 *
 * The compiler runs in a child process, not here: esbuild's JavaScript API, loaded into the service, and the
 * build's output held by it stayed in the service's memory for its whole life (about 15 MB of resident memory,
 * measured at start). The child costs a Node start-up, a few tens of milliseconds.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");
try {
  execFileSync(process.execPath, [path.join(root, "scripts/compile-server.mjs")], { stdio: "inherit" });
} catch {
  // esbuild has already said what failed, on this process's output.
  process.exit(1);
}
await import(pathToFileURL(path.join(root, ".next-server/main.mjs")).href);
