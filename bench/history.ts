/**
 * `npm run -s bench:report [-- --scale F] [--file PATH]`
 *
 * Prints, as Markdown, the latest figures in bench/results/history.jsonl (the one results file kept in git): for
 * each scenario measured at that scale (default 1), its newest measurement, with the run it came from; the
 * service against the ceiling where that run measured `tetto-node` too; each goal's newest outcome; and the
 * newest run of the receiving screen's bench (`npm run bench:ui`). docs/performance.md points here instead of
 * copying figures that go stale. A run of a few scenarios (`--only`) replaces only their rows.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

interface Side {
  api: number;
  pavimento: number;
  rapporto: number;
  p50: number;
  p99: number;
}

interface ServerRun {
  quando: string;
  banco?: undefined;
  scala: number;
  durataS?: number;
  node?: string;
  pooler?: string;
  piccoRssMb?: number;
  caricoMedioAllaFine?: number[];
  scenari: Record<string, Side>;
  obiettivi?: { nome: string; ok: boolean }[];
}

interface Timing {
  p50: number;
  p95: number;
  max: number;
}

interface UiRun {
  quando: string;
  banco: "ui";
  scala: number;
  letture?: number;
  larghezza?: number;
  scenari: Record<string, Timing>;
  offline?: { riga?: Timing; coda?: number; invioMs?: number; duplicati?: number; mancanti?: number };
  obiettivi?: { nome: string; ok: boolean }[];
}

type Line = ServerRun | UiRun;

/** The unit of each scenario's figure (history.jsonl keeps the figures, not the units). */
function unitOf(id: string): string {
  const base = id.replace(/^tetto-node:/, "");
  if (base === "allinea" || base === "verify") return "s";
  if (base.startsWith("scan-") || base === "upsert-articoli") return "rows/s";
  return "requests/s";
}

export function readHistory(file: string): Line[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);
}

/** The scenarios whose ceiling (`tetto-node`) serves the same work: the open loop's offered rate is not a throughput. */
const CEILING_IDS = new Set(["post-movimenti", "scan-movimenti", "scan-giacenze-ubicazioni", "scan-disponibilita"]);

const num = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString("en-US") : String(x));
const day = (iso: string) => iso.slice(0, 16).replace("T", " ");

export function historyReport(lines: Line[], scale: number): string {
  const server = lines.filter((l): l is ServerRun => l.banco === undefined && l.scala === scale);
  const out: string[] = [];
  out.push(`## Latest figures at scale ${scale}`, "");
  if (server.length === 0) {
    out.push(`No run at scale ${scale} in the history.`, "");
  } else {
    // Newest first: the first line that holds a scenario is its latest measurement.
    const newest = [...server].reverse();
    const ids = [...new Set(server.flatMap((l) => Object.keys(l.scenari)))].filter((id) => !id.startsWith("tetto-node:"));
    out.push("| scenario | unit | API | floor | API/floor | p50 API | p99 API | service/ceiling | run |");
    out.push("|---|---|---:|---:|---:|---:|---:|---:|---|");
    const runs = new Map<string, ServerRun>();
    for (const id of ids) {
      const run = newest.find((l) => l.scenari[id])!;
      const s = run.scenari[id]!;
      const ceiling = CEILING_IDS.has(id) ? run.scenari[`tetto-node:${id}`] : undefined;
      const vsCeiling = ceiling ? (s.rapporto / ceiling.rapporto).toFixed(2) : "–";
      runs.set(run.quando, run);
      out.push(
        `| \`${id}\` | ${unitOf(id)} | ${num(s.api)} | ${num(s.pavimento)} | ${s.rapporto.toFixed(2)} | ${s.p50} ms | ${s.p99} ms | ${vsCeiling} | ${day(run.quando)} |`,
      );
    }
    out.push("", "Runs these rows come from:", "");
    out.push("| run | duration per side | Node | pooler | peak server RSS | load at the end |");
    out.push("|---|---:|---|---|---:|---|");
    for (const run of [...runs.values()].sort((a, b) => a.quando.localeCompare(b.quando))) {
      const load = run.caricoMedioAllaFine?.map((x) => x.toFixed(1)).join(", ") ?? "–";
      out.push(
        `| ${day(run.quando)} | ${run.durataS ?? "–"} s | ${run.node ?? "–"} | ${run.pooler ?? "–"} | ${run.piccoRssMb ?? "–"} MB | ${load} |`,
      );
    }
    const goals = new Map<string, { ok: boolean; quando: string }>();
    // Only the runs the rows come from: a goal renamed or dropped since stays in older lines.
    for (const run of newest.filter((l) => runs.has(l.quando)))
      for (const g of run.obiettivi ?? []) if (!goals.has(g.nome)) goals.set(g.nome, { ok: g.ok, quando: run.quando });
    out.push("", "Goals (the bench's own wording), each as the newest of those runs judged it:", "");
    for (const [name, g] of goals) out.push(`- ${g.ok ? "met" : "**not met**"}: ${name} (${day(g.quando)})`);
    out.push("");
  }
  const ui = lines.filter((l): l is UiRun => l.banco === "ui").at(-1);
  if (ui) {
    out.push(`## The receiving screen (\`npm run bench:ui\`, ${day(ui.quando)}, scale ${ui.scala}, ${ui.larghezza ?? "–"} px)`, "");
    out.push("| interval | p50 | p95 | max |", "|---|---:|---:|---:|");
    const label: Record<string, string> = {
      "ui-riga": "Enter on the scan field → row shown",
      "ui-registrato": "Enter on confirm → «Registrato» shown",
    };
    for (const [id, t] of Object.entries(ui.scenari)) out.push(`| ${label[id] ?? id} | ${t.p50} ms | ${t.p95} ms | ${t.max} ms |`);
    if (ui.offline?.riga)
      out.push(
        `| offline: row from the device's copy | ${ui.offline.riga.p50} ms | ${ui.offline.riga.p95} ms | ${ui.offline.riga.max} ms |`,
      );
    if (ui.offline?.coda !== undefined)
      out.push(
        "",
        `Offline queue: ${ui.offline.coda} rows sent in ${ui.offline.invioMs} ms, ${ui.offline.duplicati} duplicates, ${ui.offline.mancanti} missing.`,
      );
    out.push("");
    for (const g of ui.obiettivi ?? []) out.push(`- ${g.ok ? "met" : "**not met**"}: ${g.nome}`);
    out.push("");
  }
  return out.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { scale: { type: "string", default: "1" }, file: { type: "string" } } });
  const file = values.file ?? path.join(import.meta.dirname, "results", "history.jsonl");
  process.stdout.write(historyReport(readHistory(file), Number(values.scale)));
}
