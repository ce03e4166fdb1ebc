import * as floor from "../floor/arrivals";
import { fmtInt, progress, rng, seconds } from "../util";
import { concurrentSides, SIDE_SLICES, withClient, type Ctx, type ScenarioResult } from "./harness";

export async function searchBarcode(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /arrivi/cerca per EAN, 16 client";
  const clients = 16;
  // Mostly EANs of articles expected on an open order; one in ten of an article nobody is sending.
  const eans = await withClient(ctx.pool, async (c) => {
    const expected = (
      await c.query<{ ean: string }>(`
      SELECT DISTINCT a.ean FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id WHERE r.arrivata < r.ordinata`)
    ).rows.map((r) => r.ean);
    const other = (
      await c.query<{ ean: string }>(
        `SELECT a.ean FROM articoli a WHERE NOT a.ha_varianti AND NOT EXISTS (SELECT 1 FROM righe_ordine r WHERE r.articolo_id = a.id AND r.arrivata < r.ordinata)
        ORDER BY hashint4(a.id) LIMIT $1`,
        [Math.ceil(expected.length / 9)],
      )
    ).rows.map((r) => r.ean);
    const all = [...expected, ...other];
    const rand = rng(7);
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all;
  });
  const pick = (client: number, i: number) => eans[(client * 7919 + i * 16 + client) % eans.length]!;
  // The same answer from both for a sample: found or not.
  let agree = 0;
  const sample = eans.slice(0, 30);
  for (const ean of sample) {
    const viaApi = await ctx.api.json<{ ordini: unknown[] }>("POST", "/arrivi/cerca", { barcode: ean });
    const viaFloor = await withClient(ctx.pool, (c) => floor.searchByEan(c, ean));
    if (viaApi.data.ordini.length > 0 === viaFloor) agree++;
  }
  progress(
    `${name}: ${fmtInt(eans.length)} EAN (${fmtInt(Math.round(eans.length * 0.9))} attesi), durata ${seconds(ctx.durationMs)} per lato`,
  );

  let floorFound = 0;
  let apiFound = 0;
  // The warm-up asks for other EANs than the measured run.
  const {
    api,
    floor: fl,
    apiSide,
    floorSide: flSide,
    rssMb,
  } = await concurrentSides(ctx, {
    name,
    label: "cerca",
    clients,
    warmUpMs: 500,
    slices: SIDE_SLICES,
    floor: async (conn, c, i, warmUp) => {
      const found = await floor.searchByEan(conn, pick(c, warmUp ? i + 100_000 : i));
      if (!warmUp && found) floorFound++;
      return true;
    },
    api: async (c, i, warmUp) => {
      const r = await ctx.api.json<{ ordini: unknown[] }>("POST", "/arrivi/cerca", { barcode: pick(c, warmUp ? i + 100_000 : i) });
      if (!warmUp && r.data.ordini.length > 0) apiFound++;
      return true;
    },
  });
  const ok = agree === sample.length && api.errors === 0 && fl.errors === 0;
  return {
    id: "cerca-barcode",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: ok
        ? `stesse risposte su ${sample.length} EAN; trovate ${((apiFound / Math.max(1, api.ok)) * 100).toFixed(0)}%`
        : `API e pavimento discordi su ${sample.length - agree}/${sample.length} EAN; errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl.errors}`,
    },
    details: { client: clients, trovateApi: apiFound, trovatePavimento: floorFound, primoErroreApi: api.firstError },
  };
}
