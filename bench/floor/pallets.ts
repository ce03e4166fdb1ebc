import type pg from "pg";
import { authorColumns } from "../../src/server/modules/auth/actor";
import { ledgerAppend, type LedgerRow } from "../../src/server/modules/ledger/ledger.service";
import * as arrivals from "../../src/server/modules/arrivals/arrivals.queries";
import { canonical } from "../../src/server/lib/decimal";
import * as ledger from "../../src/server/modules/ledger/ledger.queries";
import * as pallets from "../../src/server/modules/arrivals/pallets.queries";
import { appendAndUncover, benchKey, inTransaction, run } from "./statements";

// ---------------------------------------------------------------- pallets (docs/api.md section 12)

/**
 * POST /colli/{sscc}/ricevi of a pallet without differences: the pallet and its notice locked, its rows, the
 * order rows locked and moved, one delivery-note operation and one append of every row, the last prices, the
 * orders' states, the receipt record. Left out: the per-row checks in JavaScript (lots, expiries, inactive
 * articles) and the warehouse and location gates (the bench's warehouses do not manage locations).
 */
export async function receivePallet(c: pg.ClientBase, p: { sscc: string; ddt: string; data: string; chiave: number }): Promise<void> {
  await inTransaction(c, async () => {
    const pallet = (await run(c, "notices.lockPallet", pallets.lockPallet(p.sscc))).rows[0];
    if (!pallet || pallet.ricevimento_id !== null) throw new Error(`collo ${p.sscc} non ricevibile`);
    const righe = (await run(c, "notices.palletRows", pallets.palletRows(pallet.id))).rows;
    const locked = new Map(
      (
        await run(c, "arrivals.lockOrderRows", arrivals.lockOrderRows([...new Set(righe.map((r) => r.riga))].sort((a, b) => a - b)))
      ).rows.map((r) => [r.id, r]),
    );
    for (const r of righe) {
      const moved = await run(c, "arrivals.moveArrived", arrivals.moveArrived(r.riga, r.quantita));
      if (moved.rowCount !== 1) throw new Error(`riga ${r.riga}: quantità oltre il residuo`);
    }
    const actor = benchKey(p.chiave);
    const op = (
      await run(c, "ledger.deliveryNoteOperation", ledger.deliveryNoteOperation(pallet.fornitore_id, p.ddt, authorColumns(actor)))
    ).rows[0]!.id;
    const rows: LedgerRow[] = righe.map((r) => ({
      natura: "carico",
      magazzino: pallet.magazzino_id,
      articolo: r.articolo_id,
      quantita: r.quantita,
      prezzo: canonical(locked.get(r.riga)!.prezzo),
      lotto: null,
      riferimento: { tipo: "riga_ordine", id: r.riga },
    }));
    const movimenti = (
      await appendAndUncover(
        c,
        "append_ledger_collo",
        ledgerAppend({ operazione: op, origine: "arrivo", causale: `DDT ${p.ddt}`, data: p.data, actor }, rows),
        rows,
        p.data,
      )
    ).rows.map((m) => m.id);
    const prices = new Map(rows.map((r) => [r.articolo, r.prezzo!]));
    const articles = [...prices.keys()].sort((a, b) => a - b);
    await run(
      c,
      "arrivals.setLastArrivalPrice",
      arrivals.setLastArrivalPrice(
        articles,
        articles.map((a) => prices.get(a)!),
      ),
    );
    const orders = [...new Set([...locked.values()].map((r) => r.ordine_id))].sort((a, b) => a - b);
    await run(c, "arrivals.lockOrders", arrivals.lockOrders(orders));
    await run(c, "arrivals.recomputeOrders", arrivals.recomputeOrders(orders));
    const receipt = (
      await run(
        c,
        "notices.insertReceipt",
        pallets.insertReceipt({ collo: pallet.id, operazione: op, ddt: p.ddt, movimenti, author: authorColumns(actor) }),
      )
    ).rows[0]!.id;
    await run(c, "notices.markReceived", pallets.markReceived(pallet.id, receipt));
    await run(c, "notices.touchNotice", pallets.touchNotice(pallet.avviso_id));
  });
}
