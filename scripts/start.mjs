/**
 * `npm start`: compiles the service (src/server/main.ts and what it imports) into one JavaScript module
 * with esbuild, then runs it in this process, with the V8 flags package.json gives node.
 *
 * Why not `node --import tsx src/server/main.ts`, as the tests and `npm run dev` run it: tsx compiles
 * every module at load on a loader thread of its own, and that thread and its caches stay for the
 * process's life. The compiled module starts in about the same time and the service answers with
 * markedly less resident memory, the loader thread and its caches never being there.
 *
 * Compiled at every start (about a second): the module can never be older than the sources. Several
 * services may start at once in one checkout (the tests do): each writes its own file and renames it into
 * place, so none ever reads a half-written one. Packages stay in node_modules (`packages: "external"`),
 * so Next, Prisma's runtime and pg load as they do under tsx. bench/profile.ts maps the module's lines
 * back to the source files, whose paths esbuild writes in it as comments.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, stop } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const outDir = path.join(root, ".next-server");
const out = path.join(outDir, "main.mjs");

fs.mkdirSync(outDir, { recursive: true });
const result = await build({
  entryPoints: [path.join(root, "src/server/main.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  tsconfig: path.join(root, "tsconfig.json"),
  write: false,
  logLevel: "warning",
});
// esbuild's compiler runs in a child process of its own, which would otherwise stay.
await stop();
const place = (file, bytes) => {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
};
// Spawned by path beside the module that starts it (src/server/db/embedded.ts).
place(path.join(outDir, "embedded-watchdog.mjs"), fs.readFileSync(path.join(root, "src/server/db/embedded-watchdog.mjs")));
place(out, result.outputFiles[0].contents);

await import(pathToFileURL(out).href);
