import fs from "node:fs";
import path from "node:path";
import type { ScenarioResult } from "./scenarios/harness";
import { fmtNumber } from "./util";

/** The one table, the targets, and the files under bench/results/. */

export interface Target {
  name: string;
  met: boolean;
  detail: string;
}

export interface Report {
  startedAt: string;
  scale: number;
  durationS: number;
  wallS: number;
  generationS: number;
  environment: Record<string, unknown>;
  data: Record<string, number>;
  scenarios: ScenarioResult[];
  peakServerRssMb: number;
  verify: { dopoGenerazione: string; fine: string };
  targets: Target[];
}

const ratio = (s: ScenarioResult) => s.api.figure / s.floor.figure;

function figure(x: number, unit: string): string {
  return unit === "s" ? `${x.toFixed(2)} s` : `${fmtNumber(x)} ${unit}`;
}

/** The goals (ratios API/floor in one run, scale 1; the open-loop p99; memory). */
const RATIO_GOALS: [id: string, min: number][] = [
  ["post-movimenti", 0.5],
  ["post-arrivi", 0.5],
  ["cerca-barcode", 0.6],
  ["scan-movimenti", 0.6],
  ["scan-disponibilita", 0.85],
  ["scan-giacenze-ubicazioni", 0.8],
  ["scrittori-lettore", 0.5],
];

export function evaluateTargets(scenarios: ScenarioResult[], peakRssMb: number, verifyOk: boolean): Target[] {
  const by = (id: string) => scenarios.find((s) => s.id === id);
  const targets: Target[] = [];
  for (const [id, min] of RATIO_GOALS) {
    const s = by(id);
    if (!s) continue;
    targets.push({
      name: `${s.name}: almeno ${min.toFixed(2)} del pavimento`,
      met: ratio(s) >= min,
      detail: `API/pavimento ${ratio(s).toFixed(2)} (soglia ${min.toFixed(2)})`,
    });
  }
  // The service against the ceiling of a Node service (`tetto-node`, bench/bare-server.ts) doing the
  // same database work: each side's throughput over its own floor in this run, one over the other. The
  // location-stock scan's and the availability scan's are the measuring sticks of their goals against the
  // floor (RATIO_GOALS): the ceiling's own ratio says how much of it any Node service reaches here.
  for (const id of ["post-movimenti", "scan-movimenti", "scan-giacenze-ubicazioni", "scan-disponibilita", "post-prenotazioni"]) {
    const s = by(id);
    const c = by(`tetto-node:${id}`);
    if (!s || !c) continue;
    const r = ratio(s) / ratio(c);
    targets.push({
      name: `${s.name}: almeno 0.90 del tetto node:http + pg`,
      met: r >= 0.9,
      detail: `servizio/tetto ${r.toFixed(2)} (API/pavimento ${ratio(s).toFixed(2)}, tetto/pavimento ${ratio(c).toFixed(2)})`,
    });
  }
  // What checking the holds costs a movement write: the same requests on held articles against post-movimenti,
  // run before any reservation existed, in CPU per request of the server and of PostgreSQL.
  const plain = by("post-movimenti")?.api.cpu?.perOp;
  const held = by("post-movimenti-prenotate")?.api.cpu?.perOp;
  if (plain && held) {
    for (const [who, k] of [
      ["server", "server"],
      ["PostgreSQL", "postgres"],
    ] as const) {
      const r = held[k] / plain[k];
      targets.push({
        name: `POST /movimenti su articoli prenotati: CPU del ${who} per richiesta entro 1.10 volte quella senza prenotazioni`,
        met: r <= 1.1,
        detail: `${held[k].toFixed(3)} contro ${plain[k].toFixed(3)} ms (${r.toFixed(2)}×)`,
      });
    }
  }
  const a = by("allinea");
  if (a) {
    targets.push({
      name: `${a.name}: entro 1,5 volte il tempo del pavimento`,
      met: ratio(a) <= 1.5,
      detail: `API/pavimento ${ratio(a).toFixed(2)} (soglia 1.50)`,
    });
  }
  const open = by("anello-aperto");
  if (open) targets.push({ name: `${open.name}: p99 entro 25 ms`, met: open.api.p99 <= 25, detail: `p99 ${open.api.p99.toFixed(1)} ms` });
  const one = by("disponibilita-articolo");
  const p95 = Number(one?.details.p95_ms);
  if (one) targets.push({ name: `${one.name}: p95 entro 10 ms`, met: p95 <= 10, detail: `p95 ${p95.toFixed(1)} ms` });
  targets.push({ name: "memoria del server entro 200 MB", met: peakRssMb <= 200, detail: `picco RSS ${Math.round(peakRssMb)} MB` });
  const m = by("scrittori-lettore");
  if (m) targets.push({ name: "il lettore vede ogni movimento esattamente una volta", met: m.check.ok, detail: m.check.text });
  const e = by("eventi-webhook");
  if (e) targets.push({ name: "ogni evento consegnato al webhook, una volta, in ordine", met: e.check.ok, detail: e.check.text });
  targets.push({
    name: "verify del registro (dopo la generazione e alla fine)",
    met: verifyOk,
    detail: verifyOk ? "coerente" : "differenze: vedere sopra",
  });
  return targets;
}

const HEAD = ["scenario", "API", "pavimento", "API/pav.", "p50 API", "p99 API", "picco RSS", "controllo"];

function rows(r: Report): string[][] {
  return r.scenarios.map((s) => [
    s.name,
    figure(s.api.figure, s.unit),
    figure(s.floor.figure, s.unit),
    ratio(s).toFixed(2),
    `${s.api.p50.toFixed(1)} ms`,
    `${s.api.p99.toFixed(1)} ms`,
    `${Math.round(s.rssMb)} MB`,
    `${s.check.ok ? "ok" : "NO"}: ${s.check.text}`,
  ]);
}

export function textTable(r: Report): string {
  const all = [HEAD, ...rows(r)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i >= 1 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(HEAD), widths.map((w) => "-".repeat(w)).join("  "), ...rows(r).map(line)].join("\n");
}

const CPU_HEAD = ["scenario", "per", "server (API)", "PostgreSQL (API)", "PostgreSQL (pav.)", "bench (API)", "bench (pav.)"];

function cpuRows(r: Report): string[][] {
  const ms = (x: number | undefined) => (x === undefined ? "-" : `${x.toFixed(2)} ms`);
  return r.scenarios.map((s) => [
    s.name,
    s.unit === "righe/s" ? "pagina" : s.unit === "s" ? "chiamata" : "richiesta",
    ms(s.api.cpu?.perOp.server),
    ms(s.api.cpu?.perOp.postgres),
    ms(s.floor.cpu?.perOp.postgres),
    ms(s.api.cpu?.perOp.bench),
    ms(s.floor.cpu?.perOp.bench),
  ]);
}

/** CPU time per request: independent of how busy the shared machine was. */
export function textCpuTable(r: Report): string {
  const all = [CPU_HEAD, ...cpuRows(r)];
  const widths = CPU_HEAD.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(CPU_HEAD), widths.map((w) => "-".repeat(w)).join("  "), ...cpuRows(r).map(line)].join("\n");
}

export function textTargets(r: Report): string {
  return r.targets.map((t) => `  ${t.met ? "[ok]  " : "[NO]  "}${t.name} — ${t.detail}`).join("\n");
}

export function markdown(r: Report): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  const out: string[] = [];
  out.push(`# Banchina bench — ${r.startedAt}`, "");
  out.push(
    `Scala ${r.scale}, fasi concorrenti di ${r.durationS} s per lato; tempo totale ${r.wallS.toFixed(0)} s, generazione dei dati ${r.generationS.toFixed(1)} s.`,
    "",
  );
  out.push(`| ${HEAD.join(" | ")} |`, `|${HEAD.map((_, i) => (i >= 1 && i <= 6 ? "---:" : "---")).join("|")}|`);
  for (const row of rows(r)) out.push(`| ${row.map(esc).join(" | ")} |`);
  out.push("", "API/pav.: cifra dell'API divisa per quella del pavimento (per i secondi: più alto è peggio).", "");
  out.push(
    "## CPU per richiesta",
    "",
    "Tempo di CPU consumato durante ciascun lato, diviso per le richieste (pagine per le scansioni): non dipende da quanto era carica la macchina.",
    "",
  );
  out.push(`| ${CPU_HEAD.join(" | ")} |`, `|${CPU_HEAD.map((_, i) => (i >= 2 ? "---:" : "---")).join("|")}|`);
  for (const row of cpuRows(r)) out.push(`| ${row.map(esc).join(" | ")} |`);
  out.push("");
  out.push("## Obiettivi", "");
  for (const t of r.targets) out.push(`- ${t.met ? "✅" : "❌"} ${esc(t.name)} — ${esc(t.detail)}`);
  out.push("", "## Dati", "");
  for (const [k, v] of Object.entries(r.data)) out.push(`- ${k}: ${v.toLocaleString("en-US")}`);
  out.push("", "## Ambiente", "");
  for (const [k, v] of Object.entries(r.environment)) out.push(`- ${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  out.push(`- verify dopo la generazione: ${r.verify.dopoGenerazione}; alla fine: ${r.verify.fine}`);
  return `${out.join("\n")}\n`;
}

/** One line of bench/results/history.jsonl: when, where, and each scenario's figures and ratio. */
function historyLine(r: Report) {
  return {
    quando: r.startedAt,
    scala: r.scale,
    durataS: r.durationS,
    node: r.environment.node,
    envServer: r.environment.serverEnv,
    pooler: r.environment.pooler,
    caricoMedioAllaFine: r.environment.caricoMedioAllaFine,
    piccoRssMb: Math.round(r.peakServerRssMb),
    scenari: Object.fromEntries(
      r.scenarios.map((s) => [
        s.id,
        {
          api: Number(s.api.figure.toFixed(2)),
          pavimento: Number(s.floor.figure.toFixed(2)),
          rapporto: Number(ratio(s).toFixed(3)),
          p50: Number(s.api.p50.toFixed(1)),
          p99: Number(s.api.p99.toFixed(1)),
        },
      ]),
    ),
    obiettivi: r.targets.map((t) => ({ nome: t.name, ok: t.met })),
  };
}

export function writeResults(dir: string, r: Report): { json: string; md: string } {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.startedAt.replace(/[:]/g, "-").replace(/\.\d+Z$/, "Z");
  const json = path.join(dir, `bench-${stamp}.json`);
  const md = path.join(dir, `bench-${stamp}.md`);
  const jsonText = `${JSON.stringify(r, null, 2)}\n`;
  const mdText = markdown(r);
  fs.writeFileSync(json, jsonText);
  fs.writeFileSync(md, mdText);
  fs.writeFileSync(path.join(dir, "latest.json"), jsonText);
  fs.writeFileSync(path.join(dir, "latest.md"), mdText);
  fs.appendFileSync(path.join(dir, "history.jsonl"), `${JSON.stringify(historyLine(r))}\n`);
  return { json, md };
}
