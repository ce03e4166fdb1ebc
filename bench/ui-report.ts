import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isReference, KEY_GOAL_MS, type KeyCost, keyOk, keyRows } from "./ui-keys";
import { OFFLINE_GOALS, type OfflineFigures } from "./ui-offline";
import { type Kind, type Measure, round, summarise } from "./ui-page";
import { elapsed, progress, seconds } from "./util";

// bench:ui's report (bench/ui.ts runs the screen): the tables, the goals, the line of history.

const ROOT = path.resolve(import.meta.dirname, "..");
const RESULTS = path.join(ROOT, "bench", "results");
/** The receiving screen's goals, p95 in ms. */
const GOALS = { riga: 50, registrato: 60 } as const;

const ms = (x: number) => `${x.toFixed(1)} ms`;
export const KEYS_TITLE =
  "Costo di un tasto nei campi del banco, CPU rallentata ×4 (pagina: script, stile e layout; thread intero: anche la gestione del tasto e il disegno):";

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

/** What one run of the screen measured, for the report. */
export interface UiRun {
  opts: { scans: number; warmup: number; width: number; scale: number };
  startedAt: string;
  /** Scans done (warm-up included): the rows the session's table grew to. */
  total: number;
  results: Record<Kind, Measure[]>;
  /** The codes read from the local copy in the dead spot. */
  lookups: number;
  offline: OfflineFigures;
  keys: KeyCost[];
  chromiumVersion: string;
  peakRssMb: number;
  /** Where the profiles and traces went (a profiled run stays out of the history). */
  profDir: string | undefined;
}

/** Prints the tables and the goals, and appends the line of history unless the run was profiled. */
export function report(run: UiRun): void {
  const { opts, startedAt, total, results, lookups, offline, keys, chromiumVersion, peakRssMb, profDir } = run;
  const s = { riga: summarise(results.riga), registrato: summarise(results.registrato) };
  const NAMES: Record<Kind, [string, string]> = {
    riga: ["Invio sul campo di lettura → riga mostrata", "arrivals.scan"],
    registrato: ["Invio di conferma → «Registrato» mostrato", "arrivals.register"],
  };
  console.log("");
  console.log(`${opts.scans} letture a ${opts.width} px (dopo ${opts.warmup} di riscaldamento); tempi misurati nella pagina:`);
  console.log("");
  const kinds: Kind[] = ["riga", "registrato"];
  console.log(
    table([
      ["misura", "p50", "p95", "max", "obiettivo p95", ""],
      ...kinds.flatMap((k) => [
        [
          NAMES[k][0],
          ms(s[k].shown.p50),
          ms(s[k].shown.p95),
          ms(s[k].shown.max),
          `≤ ${GOALS[k]} ms`,
          s[k].shown.p95 <= GOALS[k] ? "ok" : "NO",
        ],
        ["  nel DOM (senza il frame)", ms(s[k].dom.p50), ms(s[k].dom.p95), ms(s[k].dom.max), "", ""],
        [`  ${NAMES[k][1]} sul filo (requestStart→responseEnd)`, ms(s[k].server.p50), ms(s[k].server.p95), ms(s[k].server.max), "", ""],
      ]),
    ]),
  );
  console.log("");
  console.log("Dove va il tempo (mediane):");
  console.log(
    table([
      ["", "attesa evento", "prima della chiamata", "chiamata", "risposta → DOM", "DOM → frame", "quota del server", "primo/ultimo decimo"],
      ...kinds.map((k) => {
        const p = s[k].phases;
        return [
          k,
          ms(p.attesaEvento),
          ms(p.primaDellaChiamata),
          ms(p.chiamata),
          ms(p.rispostaDom),
          ms(p.domFrame),
          `${Math.round(s[k].serverShare * 100)}%`,
          `${ms(s[k].trend[0])} / ${ms(s[k].trend[1])}`,
        ];
      }),
    ]),
  );
  console.log(
    `(primo/ultimo decimo: p50 delle prime e delle ultime ${Math.max(1, Math.round(opts.scans / 10))} letture; ` +
      `la tabella degli arrivi della sessione cresce di una riga a lettura, fino a ${total})`,
  );
  console.log("");
  console.log("Zona senza rete:");
  console.log(
    table([
      ["misura", "p50", "p95", "max", "obiettivo", ""],
      [
        `Invio → riga mostrata dalla copia locale (${lookups} letture)`,
        ms(offline.riga.p50),
        ms(offline.riga.p95),
        ms(offline.riga.max),
        `p95 ≤ ${OFFLINE_GOALS.rigaOffline} ms`,
        offline.riga.p95 <= OFFLINE_GOALS.rigaOffline ? "ok" : "NO",
      ],
      [
        `rete tornata → coda di ${offline.inCoda} righe inviata`,
        seconds(offline.invioMs),
        "",
        "",
        `≤ ${OFFLINE_GOALS.codaSecondi} s`,
        offline.invioMs <= OFFLINE_GOALS.codaSecondi * 1000 ? "ok" : "NO",
      ],
    ]),
  );
  console.log(`  righe della coda registrate due volte: ${offline.duplicati}; mancanti o diverse: ${offline.mancanti}`);
  console.log("");
  console.log(KEYS_TITLE);
  console.log(table(keyRows(keys)));
  console.log("");
  const targets = [
    ...kinds.map((k) => ({ nome: `${NAMES[k][0]}: p95 entro ${GOALS[k]} ms`, ok: s[k].shown.p95 <= GOALS[k] })),
    {
      nome: `riga dalla copia locale offline: p95 entro ${OFFLINE_GOALS.rigaOffline} ms`,
      ok: offline.riga.p95 <= OFFLINE_GOALS.rigaOffline,
    },
    {
      nome: `coda di ${offline.inCoda} righe inviata entro ${OFFLINE_GOALS.codaSecondi} s, ognuna una volta`,
      ok: offline.invioMs <= OFFLINE_GOALS.codaSecondi * 1000 && offline.duplicati === 0 && offline.mancanti === 0,
    },
    ...keys
      .filter((k) => !isReference(k))
      .map((k) => ({ nome: `${k.campo}: un tasto entro ${KEY_GOAL_MS} ms (p95, CPU ×4)`, ok: keyOk(k) })),
  ];
  for (const t of targets) console.log(`  ${t.ok ? "[ok]  " : "[NO]  "}${t.nome}`);
  console.log("");

  // One line of history, in the shape of the API bench's (report.ts historyLine): figures per scenario, the goals.
  const line = {
    quando: startedAt,
    banco: "ui",
    scala: opts.scale,
    letture: opts.scans,
    larghezza: opts.width,
    node: process.version,
    chromium: chromiumVersion,
    caricoMedioAllaFine: os.loadavg().map((x) => Number(x.toFixed(2))),
    piccoRssMb: Math.round(peakRssMb),
    scenari: Object.fromEntries(
      kinds.map((k) => [
        `ui-${k}`,
        { ...round(s[k].shown), dom: round(s[k].dom), server: round(s[k].server), quotaServer: Number(s[k].serverShare.toFixed(2)) },
      ]),
    ),
    offline: {
      riga: round(offline.riga),
      coda: offline.inCoda,
      invioMs: offline.invioMs,
      duplicati: offline.duplicati,
      mancanti: offline.mancanti,
    },
    tasti: Object.fromEntries(
      keys.map((k) => [
        k.campo,
        {
          ...round(k.costo),
          media: Number(k.costo.media.toFixed(2)),
          threadIntero: Number(k.totale.toFixed(2)),
          pausa: Number(k.pausa.toFixed(2)),
        },
      ]),
    ),
    obiettivi: targets,
  };
  if (profDir) {
    // A profiled or traced run is slower than the service is: its figures stay out of the history.
    progress(
      `profili e tracce: ${path.relative(ROOT, profDir)} (cifre non registrate nella storia); tempo totale ${seconds(elapsed() * 1000)}`,
    );
  } else {
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.appendFileSync(path.join(RESULTS, "history.jsonl"), `${JSON.stringify(line)}\n`);
    progress(`una riga in bench/results/history.jsonl; tempo totale ${seconds(elapsed() * 1000)}`);
  }
}
