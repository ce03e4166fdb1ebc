import { gtinCheckDigit } from "../../src/lib/gtin";
import * as floor from "../floor/master-data";
import { sampleMemory } from "../server";
import { fmtInt, median, progress } from "../util";
import { cpuText, metered, withClient, type CpuUse, type Ctx, type ScenarioResult, type SideResult } from "./harness";

/**
 * POST /articoli, 500 rows per call, one client: the throughput of an ERP loading its catalogue. Each
 * side makes `calls` calls creating 500 new articles each, then as many calls changing the description
 * and cost of the same articles (an update of every row), then one repeat of the last call (every row
 * `invariato`, nothing written). The figure is rows per second over the create and update calls; the
 * floor runs the service's statements (master-data.queries.ts) through `pg` on its own codes.
 */

const ROWS = 500;

function rowsFor(side: "A" | "F", call: number, version: number) {
  return Array.from({ length: ROWS }, (_, i) => {
    const n = call * ROWS + i;
    const body = `2${side === "A" ? "1" : "2"}${String(n).padStart(10, "0")}`;
    return {
      codice: `UPS-${side}-${n}`,
      descrizione: `Articolo importato ${n} v${version}`,
      ean: `${body}${gtinCheckDigit(body)}`,
      costo: `${(n % 97) + version}.25`,
    };
  });
}

export async function upsertArticles(ctx: Ctx): Promise<ScenarioResult> {
  const calls = Math.max(4, Math.round(40 * ctx.scale));
  const name = `POST /articoli, ${ROWS} righe per chiamata, ${calls} creazioni + ${calls} aggiornamenti`;
  progress(`${name}`);
  // Warm-up: one call each side on codes of their own.
  await withClient(ctx.pool, (c) => floor.upsertArticles(c, rowsFor("F", 10_000, 0)));
  await ctx.api.json("POST", "/articoli", { articoli: rowsFor("A", 10_000, 0) });

  const times = { api: [] as number[], floor: [] as number[] };
  const cpu = { api: [] as CpuUse[], floor: [] as CpuUse[] };
  let rssMb = 0;
  let mismatch = "";
  for (const version of [1, 2]) {
    for (let call = 0; call < calls; call++) {
      const fRows = rowsFor("F", call, version);
      const t = performance.now();
      const [f, fCpu] = await metered(ctx, () => withClient(ctx.pool, (c) => floor.upsertArticles(c, fRows)));
      times.floor.push(performance.now() - t);
      cpu.floor.push(fCpu(1));
      const mem = sampleMemory(ctx.serverPid);
      const [a, aCpu] = await metered(ctx, () =>
        ctx.api.json<{ creati: number; aggiornati: number; rifiutati: number }>("POST", "/articoli", {
          articoli: rowsFor("A", call, version),
        }),
      );
      rssMb = Math.max(rssMb, mem.stop());
      times.api.push(a.ms);
      cpu.api.push(aCpu(1));
      const expected = version === 1 ? { creati: ROWS, aggiornati: 0 } : { creati: 0, aggiornati: ROWS };
      if (a.data.creati !== expected.creati || a.data.aggiornati !== expected.aggiornati || a.data.rifiutati !== 0) {
        mismatch ||= `API: atteso ${JSON.stringify(expected)}, ottenuto ${JSON.stringify(a.data).slice(0, 200)}`;
      }
      if (f.creati !== expected.creati || f.aggiornati !== expected.aggiornati) mismatch ||= `pavimento: ${JSON.stringify(f)}`;
    }
    progress(
      `  ${version === 1 ? "creazioni" : "aggiornamenti"}: API ${median(times.api.slice(-calls)).toFixed(0)} ms, pavimento ${median(times.floor.slice(-calls)).toFixed(0)} ms per chiamata (mediane)`,
    );
  }
  // A repeat: every row invariato, nothing written.
  const repeat = await ctx.api.json<{ invariati: number }>("POST", "/articoli", { articoli: rowsFor("A", calls - 1, 2) });
  if (repeat.data.invariati !== ROWS) mismatch ||= `ripetizione: ${repeat.data.invariati} invariati su ${ROWS}`;

  const sideOf = (ms: number[], c: CpuUse[]): SideResult => {
    const total = ms.reduce((s, x) => s + x, 0);
    const sum = { serverMs: 0, postgresMs: 0, benchMs: 0 };
    for (const x of c) (sum.serverMs += x.serverMs), (sum.postgresMs += x.postgresMs), (sum.benchMs += x.benchMs);
    const perCall = { server: sum.serverMs / c.length, postgres: sum.postgresMs / c.length, bench: sum.benchMs / c.length };
    return {
      figure: (ms.length * ROWS) / (total / 1000),
      count: ms.length * ROWS,
      ms: total,
      p50: median(ms),
      p99: Math.max(...ms),
      errors: 0,
      cpu: { ...sum, perOp: perCall },
    };
  };
  const apiSide = sideOf(times.api, cpu.api);
  const flSide = sideOf(times.floor, cpu.floor);
  progress(
    `${name}: API ${fmtInt(apiSide.figure)} righe/s, pavimento ${fmtInt(flSide.figure)} righe/s; ripetizione ${repeat.ms.toFixed(0)} ms`,
  );
  progress(`  CPU per chiamata: API ${cpuText(apiSide.cpu)}; pavimento ${cpuText(flSide.cpu)}`);
  return {
    id: "upsert-articoli",
    name,
    unit: "righe/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok: mismatch === "",
      text: mismatch || `${fmtInt(calls * ROWS)} creati e aggiornati per lato; ripetizione: ${ROWS} invariati`,
    },
    details: { chiamate: calls, righePerChiamata: ROWS, tempiApiMs: times.api, tempiPavimentoMs: times.floor, ripetizioneMs: repeat.ms },
  };
}
