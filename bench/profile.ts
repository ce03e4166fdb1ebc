/**
 * Summary of a V8 CPU profile (`npm run bench -- --cpu-prof` leaves the server's under
 * bench/results/prof-…): where the server's CPU time goes, by function (self time) and by package or
 * source area (self time, and inclusive time of our own modules).
 *
 *   npx tsx bench/profile.ts bench/results/prof-…/CPU….cpuprofile [--top 40] [--skip S] [--until S]
 *
 * --skip leaves out the first seconds of the profile (the server's start-up), --until what follows a
 * given second: together they select one phase.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
  hitCount?: number;
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "40" }, skip: { type: "string", default: "0" }, until: { type: "string" } },
});
const skipUs = Number(values.skip) * 1e6;
const untilUs = values.until === undefined ? Infinity : Number(values.until) * 1e6;
const top = Number(values.top);

/**
 * The service runs compiled into one module (scripts/start.mjs): a frame in it is given the source file
 * esbuild names in the comment above that part of the module (`// src/server/db/sql.ts`). Read when the
 * summary runs: a later start has compiled it again, from the sources as they are then.
 */
const BUNDLE = /\/\.next-server\/main\.mjs$/;
const bundleStarts = new Map<string, { line: number; file: string }[]>();
function sourceUrl(frame: { url: string; lineNumber: number }): string {
  if (!BUNDLE.test(frame.url)) return frame.url;
  let starts = bundleStarts.get(frame.url);
  if (!starts) {
    starts = [];
    const lines = fs.existsSync(new URL(frame.url)) ? fs.readFileSync(new URL(frame.url), "utf8").split("\n") : [];
    lines.forEach((text, line) => {
      const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text);
      if (m) starts!.push({ line, file: m[1]! });
    });
    bundleStarts.set(frame.url, starts);
  }
  // The last part that starts at or above the frame's line (the parts are in line order).
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]!.line <= frame.lineNumber) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? `file:///${starts[lo - 1]!.file}` : frame.url;
}

function area(url: string): string {
  if (!url) return "(native/V8)";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /\/src\/(.*)$/.exec(url);
  if (src) return `src/${src[1]!.split("/").slice(0, 3).join("/")}`;
  const next = /\.next[^/]*\/(.*)$/.exec(url);
  if (next) return `next-build:${next[1]!.split("/").slice(0, 2).join("/")}`;
  if (url.startsWith("node:")) return url;
  return url
    .replace(/^file:\/\//, "")
    .split("/")
    .slice(-2)
    .join("/");
}

for (const file of positionals) {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let at = 0;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (at < skipUs || at > untilUs) continue;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const span = p.endTime - p.startTime;
  const total = (Math.min(untilUs, span) - Math.min(skipUs, span)) / 1000;
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const fnSelf = new Map<string, number>();
  const areaSelf = new Map<string, number>();
  const areaIncl = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const url = sourceUrl(n.callFrame);
    const key = `${n.callFrame.functionName || "(anonymous)"}  ${area(url)}:${n.callFrame.lineNumber + 1}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    const a = area(url);
    areaSelf.set(a, (areaSelf.get(a) ?? 0) + us);
    const f = url.replace(/^.*node_modules\//, "").replace(/^.*\/(\.next[^/]*\/)/, "$1") || "(native)";
    fileSelf.set(f, (fileSelf.get(f) ?? 0) + us);
    // Inclusive per area: count the sample once for each distinct area on its stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const ar = area(sourceUrl(byId.get(cur)!.callFrame));
      if (!seen.has(ar)) {
        seen.add(ar);
        areaIncl.set(ar, (areaIncl.get(ar) ?? 0) + us);
      }
    }
  }
  const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)").reduce((s, [, us]) => s + us, 0) / 1000;
  console.log(`\n${file}: ${total.toFixed(0)} ms profiled, ${idle.toFixed(0)} ms idle, ${(total - idle).toFixed(0)} ms busy`);
  const show = (title: string, m: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((us / 1000 / (total - idle)) * 100).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  show("self time by function", fnSelf, top);
  show("self time by area", areaSelf, 25);
  show("self time by file", fileSelf, 30);
  show("inclusive time by area", areaIncl, 25);
}
