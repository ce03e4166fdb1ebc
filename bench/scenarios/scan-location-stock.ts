import * as floor from "../floor/lists";
import { fmtInt, progress, seconds } from "../util";
import { withClient, type Ctx, type ScenarioResult } from "./harness";
import { scanScenario } from "./scan";

/**
 * GET /giacenze-ubicazioni?magazzino=N, a full scan (its goal against the floor: RATIO_GOALS in
 * bench/report.ts). Its data is this
 * scenario's own: a warehouse managing 2,000 locations × scale holding every stocked article once (lot-handled
 * ones in one lot), 1 row in 20 back at zero (kept, never listed). The rows are placed by SQL, not through the
 * ledger, so they are taken away again at the end: the ledger check (`verify`) never sees them.
 */

// Not the write scenario's BENCH-UBI: both run in one bench, each with a warehouse of its own.
const CODE = "BENCH-UBI-SCAN";

async function seed(ctx: Ctx): Promise<number> {
  const locations = Math.max(20, Math.round(2_000 * ctx.scale));
  return withClient(ctx.pool, async (c) => {
    const t = performance.now();
    await c.query("BEGIN");
    const w = await c.query<{ id: number }>("INSERT INTO magazzini (codice, nome) VALUES ($1, 'Bench ubicazioni') RETURNING id", [CODE]);
    const id = w.rows[0]!.id;
    await c.query(
      `INSERT INTO ubicazioni (magazzino_id, codice, tipo)
       SELECT $1, 'U-' || lpad(n::text, 5, '0'), CASE WHEN n = 1 THEN 'ricevimento' WHEN n % 100 = 0 THEN 'quarantena' ELSE 'stoccaggio' END
         FROM generate_series(1, $2::int) n`,
      [id, locations],
    );
    await c.query(
      `UPDATE magazzini SET gestione_ubicazioni = true,
              ubicazione_ricevimento_id = (SELECT min(id) FROM ubicazioni WHERE magazzino_id = $1) WHERE id = $1`,
      [id],
    );
    await c.query(
      `INSERT INTO lotti (articolo_id, magazzino_id, codice, scadenza, residua)
       SELECT a.id, $1, 'BU' || a.id, date '2027-01-01' + (a.id % 300), 1 + a.id % 50 FROM articoli a WHERE a.gestione_lotti`,
      [id],
    );
    // Locations in id order: articles land spread over all of them, as putaway would leave them.
    await c.query(
      `INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, lotto_id, quantita)
       SELECT a.id, $1, u.id, l.id, CASE WHEN a.id % 20 = 7 THEN 0 ELSE 1 + a.id % 50 END
         FROM articoli a
         JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM ubicazioni WHERE magazzino_id = $1) u ON u.k = a.id % $2
         LEFT JOIN lotti l ON l.articolo_id = a.id AND l.magazzino_id = $1
        WHERE NOT a.ha_varianti
        ORDER BY a.id`,
      [id, locations],
    );
    await c.query("COMMIT");
    await c.query("ANALYZE ubicazioni, giacenze_ubicazioni, lotti");
    progress(`${CODE}: ${fmtInt(locations)} ubicazioni e le loro giacenze in ${seconds(performance.now() - t)}`);
    return id;
  });
}

async function remove(ctx: Ctx, id: number): Promise<void> {
  await withClient(ctx.pool, async (c) => {
    await c.query("BEGIN");
    // Nothing references these rows (no movement was written), but each deleted lot would have its foreign
    // keys checked by a scan of the whole ledger (movimenti.lotto_id has no index of its own): minutes at
    // scale 1. The checks are skipped for this transaction only (the bench's PostgreSQL runs as superuser).
    await c.query("SET LOCAL session_replication_role = replica");
    await c.query("DELETE FROM giacenze_ubicazioni WHERE magazzino_id = $1", [id]);
    await c.query("DELETE FROM lotti WHERE magazzino_id = $1", [id]);
    await c.query("UPDATE magazzini SET gestione_ubicazioni = false, ubicazione_ricevimento_id = NULL WHERE id = $1", [id]);
    await c.query("DELETE FROM ubicazioni WHERE magazzino_id = $1", [id]);
    await c.query("DELETE FROM magazzini WHERE id = $1", [id]);
    await c.query("COMMIT");
  });
}

export async function scanLocationStock(ctx: Ctx): Promise<ScenarioResult> {
  const magazzino = await seed(ctx);
  try {
    return await scanScenario(ctx, {
      id: "scan-giacenze-ubicazioni",
      name: "GET /giacenze-ubicazioni?limite=500, scansione completa",
      path: `/giacenze-ubicazioni?magazzino=${magazzino}`,
      limite: 500,
      floorPage: (c, dopo, limite) => floor.locationStockPage(c, magazzino, dopo, limite),
      key: "giacenze",
      count: `SELECT count(*) AS n FROM giacenze_ubicazioni WHERE magazzino_id = ${magazzino} AND quantita > 0`,
      warm: "SELECT count(*), sum(quantita) FROM giacenze_ubicazioni; SELECT count(*), max(codice) FROM ubicazioni; SELECT count(*), max(codice) FROM lotti",
    });
  } finally {
    await remove(ctx, magazzino);
  }
}
