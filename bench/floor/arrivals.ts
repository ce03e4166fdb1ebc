import type pg from "pg";
import { eanCandidates } from "../../src/lib/barcode";
import { authorColumns } from "../../src/server/modules/auth/actor";
import { ledgerAppend } from "../../src/server/modules/ledger/ledger.service";
import * as arrivals from "../../src/server/modules/arrivals/arrivals.queries";
import { canonical } from "../../src/server/lib/decimal";
import * as ledger from "../../src/server/modules/ledger/ledger.queries";
import { appendAndUncover, benchKey, inTransaction, run } from "./statements";

/**
 * POST /arrivi, one row (arrivals/register.service.ts registerArrivals), the statements of
 * arrivals.queries.ts and ledger.queries.ts in the service's order: lock the order row, move its arrived
 * quantity, the lot when the article has lots, the delivery note's operation, balance and movement in
 * one statement (appendLedger), the article's last price, then lock and recompute the order. Left out
 * (ours): authentication, the warehouse check, Prisma's transaction round trips.
 */
export async function registerArrival(
  c: pg.ClientBase,
  a: { riga: number; magazzino: number; ddt: string; quantita: string; lotto: string | null; data: string; chiave: number },
): Promise<number> {
  return inTransaction(c, async () => {
    const row = (await run(c, "arrivals.lockOrderRows", arrivals.lockOrderRows([a.riga]))).rows[0];
    if (!row) throw new Error(`riga ${a.riga} inesistente`);
    const moved = await run(c, "arrivals.moveArrived", arrivals.moveArrived(row.id, a.quantita));
    if (moved.rowCount !== 1) throw new Error(`riga ${a.riga}: quantità oltre il residuo`);
    let lotto: number | null = null;
    if (row.gestione_lotti) {
      lotto = (await run(c, "ledger.loadLot", ledger.loadLot(row.articolo_id, a.magazzino, a.lotto ?? "BENCH", null, a.quantita, true)))
        .rows[0]!.id;
    }
    const actor = benchKey(a.chiave);
    const op = (await run(c, "ledger.deliveryNoteOperation", ledger.deliveryNoteOperation(row.fornitore_id, a.ddt, authorColumns(actor))))
      .rows[0]!.id;
    const prezzo = canonical(row.prezzo);
    const mov = await appendAndUncover(
      c,
      "append_ledger",
      ledgerAppend({ operazione: op, origine: "arrivo", causale: `DDT ${a.ddt}`, data: a.data, actor }, [
        {
          natura: "carico",
          magazzino: a.magazzino,
          articolo: row.articolo_id,
          quantita: a.quantita,
          prezzo,
          lotto,
          riferimento: { tipo: "riga_ordine", id: row.id },
        },
      ]),
      [{ articolo: row.articolo_id, magazzino: a.magazzino }],
      a.data,
    );
    await run(c, "arrivals.setLastArrivalPrice", arrivals.setLastArrivalPrice([row.articolo_id], [prezzo]));
    await run(c, "arrivals.lockOrders", arrivals.lockOrders([row.ordine_id]));
    await run(c, "arrivals.recomputeOrders", arrivals.recomputeOrders([row.ordine_id]));
    return mov.rows[0]!.id;
  });
}

/**
 * POST /arrivi/cerca by EAN (arrivals/search.service.ts searchByBarcode → firstExpectedRow → loadOrders →
 * withArticleTotals): the same six statements of arrivals.queries.ts. Left out (ours): authentication,
 * validation, JSON. Returns whether an expected row was found.
 */
export async function searchByEan(c: pg.ClientBase, ean: string): Promise<boolean> {
  const article = (await run(c, "arrivals.scannedArticle.ean", arrivals.scannedArticle({ ean: eanCandidates(ean) }))).rows[0];
  if (!article || article.ha_varianti) return false;
  const first = (await run(c, "arrivals.firstExpectedRow", arrivals.firstExpectedRow(article.id))).rows[0];
  if (!first) return false;
  await run(c, "arrivals.orderHeaders", arrivals.orderHeaders([first.ordine_id]));
  const rows = await run(c, "arrivals.orderRows.rowIs", arrivals.orderRows([first.ordine_id], arrivals.rowIs(first.id)));
  await run(c, "arrivals.standingArrivals", arrivals.standingArrivals(rows.rows.map((r) => r.id)));
  await run(c, "arrivals.articleOpenTotals", arrivals.articleOpenTotals(article.id));
  return true;
}
