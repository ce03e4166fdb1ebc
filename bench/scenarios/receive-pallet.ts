import { businessDate } from "../../src/server/lib/dates";
import { gtinCheckDigit } from "../../src/lib/gtin";
import * as floor from "../floor";
import { fmtInt, progress, seconds } from "../util";
import { concurrentSides, withClient, type Ctx, type ScenarioResult } from "./harness";

/** Rows per pallet: a full pallet of a mixed delivery, the case the issue measures (one scan, one Enter). */
const ROWS = 40;
/** Pallets prepared per side: more than a run of a few seconds receives. */
const PALLETS_PER_SIDE = 150;

const sscc = (serial: number) => {
  const body = `39${String(serial).padStart(15, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

interface OpenRow {
  numero: string;
  numero_riga: number;
  fornitore: string;
  magazzino: string;
}

/**
 * POST /colli/{sscc}/ricevi of a 40-row pallet (one unit per row, no differences), one client, against its
 * floor (floor.receivePallet). The pallets are announced first (POST /avvisi-spedizione) from the open rows
 * of articles without lots, 40 rows of one supplier and warehouse each, half for each side.
 */
export async function receivePallets(ctx: Ctx): Promise<ScenarioResult> {
  const name = `POST /colli/{sscc}/ricevi, collo di ${ROWS} righe, 1 client`;
  const open = await withClient(
    ctx.pool,
    async (c) =>
      (
        await c.query<OpenRow>(`
        SELECT o.numero, r.numero_riga, f.codice AS fornitore, m.codice AS magazzino
          FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id
          JOIN fornitori f ON f.id = o.fornitore_id JOIN magazzini m ON m.id = o.magazzino_id
         WHERE r.arrivata + r.chiusa + 1 <= r.ordinata AND NOT a.gestione_lotti AND a.attivo AND o.stato <> 'evaso'
           AND NOT EXISTS (SELECT 1 FROM righe_collo rc WHERE rc.riga_ordine_id = r.id)
         ORDER BY f.codice, m.codice, r.id`)
      ).rows,
  );
  // Pallets of one supplier and warehouse each; a row is in one pallet only.
  const groups = new Map<string, OpenRow[]>();
  for (const r of open) groups.set(`${r.fornitore}|${r.magazzino}`, [...(groups.get(`${r.fornitore}|${r.magazzino}`) ?? []), r]);
  const pallets: { sscc: string; rows: OpenRow[] }[] = [];
  for (const rows of groups.values())
    for (let i = 0; i + ROWS <= rows.length && pallets.length < 2 * PALLETS_PER_SIDE; i += ROWS)
      pallets.push({ sscc: sscc((Date.now() % 1_000_000_000) * 1000 + pallets.length), rows: rows.slice(i, i + ROWS) });
  progress(
    `${name}: ${fmtInt(pallets.length)} colli annunciati da ${fmtInt(open.length)} righe aperte, durata ${seconds(ctx.durationMs)} per lato`,
  );
  for (let i = 0; i < pallets.length; i += 12) {
    const avvisi = pallets.slice(i, i + 12).map((p, j) => ({
      numero: `BENCH-AV-${p.sscc}-${j}`,
      fornitore: p.rows[0]!.fornitore,
      magazzino: p.rows[0]!.magazzino,
      colli: [{ sscc: p.sscc, righe: p.rows.map((r) => ({ ordine: r.numero, numero_riga: r.numero_riga, quantita: 1 })) }],
    }));
    await ctx.api.json("POST", "/avvisi-spedizione", { avvisi });
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
