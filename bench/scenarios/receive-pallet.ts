import { businessDate } from "../../src/server/lib/dates";
import { gtinCheckDigit } from "../../src/lib/gtin";
import * as floor from "../floor/pallets";
import { fmtInt, progress, seconds } from "../util";
import { concurrentSides, withClient, type Ctx, type ScenarioResult } from "./harness";

/** Rows per pallet: a full pallet of a mixed delivery, the case that matters at the dock (one scan, one Enter). */
const ROWS = 40;
/** Pallets prepared per side: more than a run of a few seconds receives. */
const PALLETS_PER_SIDE = 150;

const sscc = (serial: number) => {
  const body = `39${String(serial).padStart(15, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

/**
 * POST /colli/{sscc}/ricevi of a 40-row pallet (one unit per row, no differences), one client, against its
 * floor (floor.receivePallet). The bench's open orders have a few rows per supplier and warehouse, so the
 * scenario orders what its pallets bring first: orders of 40 rows (articles without lots) of one supplier,
 * then one notice per pallet (POST /ordini-acquisto, POST /avvisi-spedizione, outside the measure), half of
 * the pallets for each side.
 */
export async function receivePallets(ctx: Ctx): Promise<ScenarioResult> {
  const name = `POST /colli/{sscc}/ricevi, collo di ${ROWS} righe, 1 client`;
  const { articoli, fornitore, magazzino } = await withClient(ctx.pool, async (c) => ({
    articoli: (
      await c.query<{ codice: string }>(
        `SELECT codice FROM articoli WHERE NOT gestione_lotti AND NOT ha_varianti AND attivo ORDER BY id LIMIT ${ROWS}`,
      )
    ).rows.map((r) => r.codice),
    fornitore: (await c.query<{ codice: string }>("SELECT codice FROM fornitori ORDER BY id LIMIT 1")).rows[0]!.codice,
    magazzino: (await c.query<{ codice: string }>("SELECT codice FROM magazzini ORDER BY id LIMIT 1")).rows[0]!.codice,
  }));
  const run = Date.now() % 1_000_000;
  const pallets = Array.from({ length: 2 * PALLETS_PER_SIDE }, (_, i) => ({
    sscc: sscc(run * 1000 + i),
    ordine: `BENCH-COLLO-${run}-${i}`,
  }));
  progress(`${name}: ${fmtInt(pallets.length)} colli da annunciare (ordini e avvisi), durata ${seconds(ctx.durationMs)} per lato`);
  const perCall = Math.floor(500 / ROWS);
  for (let i = 0; i < pallets.length; i += perCall) {
    const batch = pallets.slice(i, i + perCall);
    await ctx.api.json("POST", "/ordini-acquisto", {
      ordini: batch.map((p) => ({
        numero: p.ordine,
        fornitore,
        data: businessDate(ctx.timeZone),
        magazzino,
        righe: articoli.map((articolo, j) => ({ numero_riga: j + 1, articolo, quantita: 1, prezzo: "1" })),
      })),
    });
    await ctx.api.json("POST", "/avvisi-spedizione", {
      avvisi: batch.map((p) => ({
        numero: p.ordine,
        fornitore,
        magazzino,
        colli: [{ sscc: p.sscc, righe: articoli.map((_, j) => ({ ordine: p.ordine, numero_riga: j + 1, quantita: 1 })) }],
      })),
    });
  }
  const floorQueue = pallets.filter((_, i) => i % 2 === 0);
  const apiQueue = pallets.filter((_, i) => i % 2 === 1);
  const {
    api,
    floor: fl,
    apiSide,
    floorSide,
    rssMb,
  } = await concurrentSides(ctx, {
    name,
    label: "colli",
    clients: 1,
    warmUpMs: 300,
    floor: async (conn) => {
      const p = floorQueue.shift();
      if (!p) return false;
      await floor.receivePallet(conn, { sscc: p.sscc, ddt: `BENCH-C-${p.sscc}`, data: businessDate(ctx.timeZone), chiave: ctx.key.id });
      return true;
    },
    api: async () => {
      const p = apiQueue.shift();
      if (!p) return false;
      await ctx.api.json("POST", `/colli/${p.sscc}/ricevi`, { ddt: `BENCH-C-${p.sscc}` });
      return true;
    },
  });
  const ok = api.errors === 0 && fl.errors === 0 && pallets.length > 0;
  return {
    id: "ricevi-collo",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: floorSide,
    rssMb,
    check: {
      ok,
      text: ok
        ? "nessun errore"
        : `colli ${pallets.length}; errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl.errors} (${fl.firstError ?? "-"})`,
    },
    details: { righePerCollo: ROWS, colliAnnunciati: pallets.length },
  };
}
