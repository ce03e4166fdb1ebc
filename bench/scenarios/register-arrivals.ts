import type pg from "pg";
import { businessDate } from "../../src/server/lib/dates";
import * as floor from "../floor/arrivals";
import { fmtInt, progress, seconds } from "../util";
import { concurrentSides, withClient, type Ctx, type ScenarioResult } from "./harness";

interface OpenRow {
  id: number;
  ordine_id: number;
  magazzino_id: number;
  residua: number;
  gestione_lotti: boolean;
}

export async function registerArrivals(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /arrivi, 1 riga, 8 client su righe distinte";
  const clients = 8;
  const rows = await withClient(
    ctx.pool,
    async (c) =>
      (
        await c.query<OpenRow>(`
        SELECT r.id, r.ordine_id, o.magazzino_id, floor(r.ordinata - r.arrivata)::int AS residua, a.gestione_lotti
          FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id
         WHERE r.arrivata + 1 <= r.ordinata
         ORDER BY r.ordine_id, r.posizione`)
      ).rows,
  );
  // Each client owns whole orders: no two clients ever wait on the same order row or order.
  const queues: OpenRow[][] = Array.from({ length: clients }, () => []);
  for (const r of rows) queues[r.ordine_id % clients]!.push(r);
  const units = rows.reduce((s, r) => s + r.residua, 0);
  progress(`${name}: ${fmtInt(rows.length)} righe aperte (${fmtInt(units)} unità da ricevere), durata ${seconds(ctx.durationMs)} per lato`);
  const cursor = new Array<number>(clients).fill(0);
  /** The next row of this client with something left to receive, round robin; undefined when none. */
  const next = (c: number): OpenRow | undefined => {
    const q = queues[c]!;
    while (q.length > 0) {
      const i = cursor[c]! % q.length;
      const r = q[i]!;
      if (r.residua >= 1) {
        r.residua--;
        cursor[c] = i + 1;
        return r;
      }
      q.splice(i, 1);
    }
    return undefined;
  };
  const floorArrival = (c: pg.ClientBase, client: number, r: OpenRow) =>
    floor.registerArrival(c, {
      riga: r.id,
      magazzino: r.magazzino_id,
      ddt: `BENCH-P-${client}`,
      quantita: "1",
      lotto: r.gestione_lotti ? "BENCH-L1" : null,
      data: businessDate(ctx.timeZone),
      chiave: ctx.key.id,
    });
  const apiArrival = async (client: number, r: OpenRow) => {
    await ctx.api.json(
      "POST",
      "/arrivi",
      {
        magazzino: r.magazzino_id,
        ddt: `BENCH-A-${client}`,
        riga: r.id,
        quantita: 1,
        ...(r.gestione_lotti ? { lotto: "BENCH-L1" } : {}),
      },
      [201],
    );
  };
  let exhausted = 0;
  const {
    api,
    floor: fl,
    apiSide,
    floorSide: flSide,
    rssMb,
  } = await concurrentSides(ctx, {
    name,
    label: "arrivi",
    clients,
    warmUpMs: 500,
    floor: async (conn, c, _i, warmUp) => {
      const r = next(c);
      if (!r) {
        if (!warmUp) exhausted++;
        return false;
      }
      await floorArrival(conn, c, r);
      return true;
    },
    api: async (c, _i, warmUp) => {
      const r = next(c);
      if (!r) {
        if (!warmUp) exhausted++;
        return false;
      }
      await apiArrival(c, r);
      return true;
    },
  });
  const ok = api.errors === 0 && fl.errors === 0;
  return {
    id: "post-arrivi",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: ok
        ? `nessun errore${exhausted > 0 ? `; ${exhausted} client senza più righe prima del tempo` : ""}`
        : `errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl.errors} (${fl.firstError ?? "-"})`,
    },
    details: { client: clients, righeAperte: rows.length, clientEsauriti: exhausted },
  };
}
