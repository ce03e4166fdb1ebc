import { businessDate } from "../../src/server/lib/dates";
import * as floor from "../floor/align";
import { sampleMemory } from "../server";
import { fmtInt, median, progress, seconds } from "../util";
import { cpuText, metered, withClient, type CpuUse, type Ctx, type ScenarioResult, type SideResult } from "./harness";

export async function alignStock(ctx: Ctx): Promise<ScenarioResult> {
  const total = Math.min(10_000, Math.max(100, Math.round(10_000 * ctx.scale)));
  const name = `POST /giacenze/allinea, ${fmtInt(total)} righe`;
  const reps = 3;
  const magazzino = 1;
  // Nine in ten plain articles, one in ten (article, lot) units, of warehouse 1.
  const units = await withClient(ctx.pool, async (c) => {
    const lotted = (
      await c.query<{ codice: string; lotto: string; id: number }>(
        `SELECT a.codice, l.codice AS lotto, a.id FROM lotti l JOIN articoli a ON a.id = l.articolo_id
          WHERE l.magazzino_id = $1 ORDER BY l.id LIMIT $2`,
        [magazzino, Math.round(total / 10)],
      )
    ).rows;
    const plain = (
      await c.query<{ codice: string; id: number }>(
        `SELECT codice, id FROM articoli WHERE NOT ha_varianti AND NOT gestione_lotti ORDER BY id LIMIT $1`,
        [total - lotted.length],
      )
    ).rows;
    const out: { codice: string; id: number; lotto?: string }[] = [
      ...plain.map((p) => ({ codice: p.codice, id: p.id })),
      ...lotted.map((l) => ({ codice: l.codice, lotto: l.lotto, id: l.id })),
    ];
    return out;
  });
  // Every repetition counts something else for every unit, so every row is written each time.
  const body = (rep: number, m = magazzino, n = units.length) => ({
    magazzino: m,
    causale: "Inventario bench",
    righe: units
      .slice(0, n)
      .map((u) => ({ codice: u.codice, contato: (u.id % 37) + rep, ...(u.lotto !== undefined ? { lotto: u.lotto } : {}) })),
  });
  progress(`${name}: ${reps} ripetizioni per lato`);
  const data = businessDate(ctx.timeZone);
  const apiAlign = async (b: ReturnType<typeof body>) => {
    const r = await ctx.api.json<{ scritte: number; invariate: number; rifiutate: number }>("POST", "/giacenze/allinea", b);
    if (r.data.rifiutate > 0) throw new Error(`allineamento: ${r.data.rifiutate} righe rifiutate`);
    return r;
  };
  // Warm-up on warehouse 2, a tenth of the rows.
  await withClient(ctx.pool, (c) => floor.align(c, { ...body(1000, 2, Math.ceil(units.length / 10)), data, chiave: ctx.key.id }));
  await apiAlign(body(1001, 2, Math.ceil(units.length / 10)));

  const apiTimes: number[] = [];
  const floorTimes: number[] = [];
  const written = { api: 0, floor: 0 };
  let rssMb = 0;
  const cpuSum = { api: [] as CpuUse[], floor: [] as CpuUse[] };
  for (let rep = 0; rep < reps; rep++) {
    const fb = body(2 * rep + 1);
    const t = performance.now();
    const [f, fCpu] = await metered(ctx, () => withClient(ctx.pool, (c) => floor.align(c, { ...fb, data, chiave: ctx.key.id })));
    floorTimes.push(performance.now() - t);
    cpuSum.floor.push(fCpu(1));
    written.floor += f.scritte;
    const mem = sampleMemory(ctx.serverPid);
    const [a, aCpu] = await metered(ctx, () => apiAlign(body(2 * rep + 2)));
    cpuSum.api.push(aCpu(1));
    rssMb = Math.max(rssMb, mem.stop());
    apiTimes.push(a.ms);
    written.api += a.data.scritte;
    progress(
      `  allineamento ${rep + 1}/${reps}: API ${seconds(a.ms)} (${fmtInt(a.data.scritte)} scritte), pavimento ${seconds(floorTimes.at(-1)!)} (${fmtInt(f.scritte)} scritte)`,
    );
  }
  const sumCpu = (xs: CpuUse[]): CpuUse => {
    const t = { serverMs: 0, postgresMs: 0, benchMs: 0 };
    for (const x of xs) (t.serverMs += x.serverMs), (t.postgresMs += x.postgresMs), (t.benchMs += x.benchMs);
    return { ...t, perOp: { server: t.serverMs / xs.length, postgres: t.postgresMs / xs.length, bench: t.benchMs / xs.length } };
  };
  const apiSide: SideResult = {
    figure: median(apiTimes) / 1000,
    count: reps,
    ms: apiTimes.reduce((s, x) => s + x, 0),
    p50: median(apiTimes),
    p99: Math.max(...apiTimes),
    errors: 0,
    cpu: sumCpu(cpuSum.api),
  };
  const flSide: SideResult = {
    figure: median(floorTimes) / 1000,
    count: reps,
    ms: floorTimes.reduce((s, x) => s + x, 0),
    p50: median(floorTimes),
    p99: Math.max(...floorTimes),
    errors: 0,
    cpu: sumCpu(cpuSum.floor),
  };
  progress(`${name}: API ${apiSide.figure.toFixed(2)} s, pavimento ${flSide.figure.toFixed(2)} s (mediane di ${reps})`);
  progress(`  CPU per chiamata: API ${cpuText(apiSide.cpu)}; pavimento ${cpuText(flSide.cpu)}`);
  return {
    id: "allinea",
    name,
    unit: "s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: { ok: true, text: `${fmtInt(written.api / reps)} correzioni per chiamata` },
    details: { righe: units.length, ripetizioni: reps, tempiApiMs: apiTimes, tempiPavimentoMs: floorTimes, scritte: written },
  };
}
