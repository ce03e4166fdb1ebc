/**
 * `npx tsx bench/growth.ts SMALL.json LARGE.json [--md]`: the growth table (cost flat as the work grows) from
 * two result files of
 * `npm run bench` (bench/results/bench-<time>.json), typically `--scale 1` and `--scale 5`.
 *
 * Per scenario present in both, the cost of one unit of work on each side, API and floor: for a rate (rows/s of
 * a scan, requests/s) its inverse, in ms per row or per request; for a time (`s`: the alignment, verify) the
 * time itself. The ratio is large over small: 1.00 means flat, the goal is at most 1.2 (verify is exempt: it
 * recomputes the whole ledger by design, so it is expected to grow with it). Also the p50 latency ratio (per
 * page of a scan, per request otherwise) and the server + PostgreSQL CPU per operation. Two runs on a shared
 * machine differ by their noise too: read a ratio near 1.2 against the same scenario's floor ratio.
 */
import fs from "node:fs";
import type { Report } from "./report";
import type { ScenarioResult, SideResult } from "./scenarios/harness";

const GOAL = 1.2;
const EXEMPT = new Set(["verify"]);

function cost(s: ScenarioResult, side: SideResult): number {
  return s.unit === "s" ? side.figure * 1000 : 1000 / side.figure;
}

function cpu(side: SideResult): number | null {
  return side.cpu ? side.cpu.perOp.server + side.cpu.perOp.postgres : null;
}

const unitOf = (s: ScenarioResult) => (s.unit === "righe/s" ? "ms/riga" : s.unit === "s" ? "ms" : "ms/richiesta");
const f = (x: number | null, d = 3) => (x === null || !Number.isFinite(x) ? "-" : x.toFixed(d));

/**
 * The events feed's head (testa-eventi): its pages carry up to 5,000 movements each (MAX_PAGE_MOVEMENTS), and the
 * first pages hold the opening inventory, whose events grow with the catalogue, not with the years: at scale 5
 * every page of the head is full, at scale 1 fewer are. Its cost per movement carried compares the same work at
 * both scales (details.movimentiPerPagina: the movements the measured pages carried, per page, on each side).
 */
function perMovementRow(a: ScenarioResult, b: ScenarioResult): string[] | null {
  type Carried = { api: number; pavimento: number } | undefined;
  const ma = a.details.movimentiPerPagina as Carried;
  const mb = b.details.movimentiPerPagina as Carried;
  if (!ma || !mb || !(ma.api > 0 && mb.api > 0 && ma.pavimento > 0 && mb.pavimento > 0)) return null;
  const apiA = cost(a, a.api) / ma.api;
  const apiB = cost(b, b.api) / mb.api;
  const r = apiB / apiA;
  const ca = cpu(a.api);
  const cb = cpu(b.api);
  return [
    `${a.id} (per movimento)`,
    "ms/movimento",
    f(apiA, 4),
    f(apiB, 4),
    f(r, 2),
    f(cost(b, b.floor) / mb.pavimento / (cost(a, a.floor) / ma.pavimento), 2),
    "-",
    ca !== null && cb !== null ? f(cb / mb.api / (ca / ma.api), 2) : "-",
    r <= GOAL ? "sì" : "NO",
  ];
}

function growthRows(small: Report, large: Report): string[][] {
  const out: string[][] = [];
  for (const a of small.scenarios) {
    const b = large.scenarios.find((s) => s.id === a.id);
    if (!b) continue;
    const r = cost(b, b.api) / cost(a, a.api);
    const rf = cost(b, b.floor) / cost(a, a.floor);
    const ca = cpu(a.api);
    const cb = cpu(b.api);
    out.push([
      a.id,
      unitOf(a),
      f(cost(a, a.api)),
      f(cost(b, b.api)),
      f(r, 2),
      f(rf, 2),
      f(b.api.p50 / a.api.p50, 2),
      ca !== null && cb !== null ? f(cb / ca, 2) : "-",
      EXEMPT.has(a.id) ? "esente" : r <= GOAL ? "sì" : "NO",
    ]);
    const perMovement = perMovementRow(a, b);
    if (perMovement) out.push(perMovement);
  }
  return out;
}

function main(): void {
  const files = process.argv.slice(2).filter((x) => !x.startsWith("--"));
  if (files.length !== 2) {
    console.error("uso: npx tsx bench/growth.ts PICCOLA.json GRANDE.json [--md]");
    process.exit(2);
  }
  const [small, large] = files.map((p) => JSON.parse(fs.readFileSync(p!, "utf8")) as Report) as [Report, Report];
  const head = [
    "scenario",
    "unità",
    `API scala ${small.scale}`,
    `API scala ${large.scale}`,
    "rapporto API",
    "rapporto pavimento",
    "rapporto p50",
    "rapporto CPU/op",
    `entro ${GOAL}`,
  ];
  const rows = growthRows(small, large);
  if (process.argv.includes("--md")) {
    console.log(`| ${head.join(" | ")} |`);
    console.log(`|${head.map((_, i) => (i < 2 ? "---" : "---:")).join("|")}|`);
    for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  } else {
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const r of [head, ...rows]) console.log(r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "));
  }
  console.log(
    `\nscala ${small.scale}: ${small.data.movimenti ?? "?"} movimenti, ${small.data.articoli ?? "?"} articoli; ` +
      `scala ${large.scale}: ${large.data.movimenti ?? "?"} movimenti, ${large.data.articoli ?? "?"} articoli`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
