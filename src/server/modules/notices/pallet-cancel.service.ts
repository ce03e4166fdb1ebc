import type { Tx } from "../../db/client";
import { execute, first, rows, rowsInOrder } from "../../db/sql";
import { compareCodePoints } from "../../lib/code-point-order";
import { businessDate } from "../../lib/dates";
import { canonical, Decimal } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import * as arrivalsQ from "../arrivals/arrivals.queries";
import { cancelRefusal, goodsMoved, takeBackLocation } from "../arrivals/cancel.service";
import { lockOrderRows, moveArrived, recomputeOrdersStatements } from "../arrivals/order-rows.service";
import { appended, ledgerAppend, type LedgerRow, takeBackFromLot } from "../ledger/ledger.service";
import { type LocationKey, locationLockOrder, lockWarehouses, unloadLocation } from "../ledger/locations.service";
import type { CancelPalletOutput } from "./notices.schemas";
import * as q from "./notices.queries";
import { lockedPallet } from "./pallets.service";

/**
 * POST /colli/{sscc}/annulla (API.md section 12): every arrival of a pallet's receipt cancelled at once, all
 * or nothing, each as POST /arrivi/{id}/annulla cancels one (same checks, same codes), but as ONE writer in
 * the lock order (ARCHITECTURE.md): the warehouse's gate, every order row, the lots, the location stock, then
 * one ledger append (the balances) and the orders. Cancelling arrival by arrival took an order (6) at the end
 * of each and then the next arrival's lot and balance (3, 5): against a receipt of another pallet of the same
 * orders, which holds those balances and waits on the order, a deadlock (pallet-cancel-race.test.ts).
 */
export async function cancelPallet(tx: Tx, actor: Actor, raw: string, opts: { timeZone: string }): Promise<CancelPalletOutput> {
  const pallet = await lockedPallet(tx, raw);
  if (pallet.ricevimento_id === null)
    throw new DomainError("collo_non_ricevuto", `Il collo ${pallet.sscc} non risulta ricevuto: non c'è nulla da annullare.`, {
      campo: "sscc",
    });
  const receipt = (await first(tx, q.receiptOf(pallet.ricevimento_id)))!;
  const movements: arrivalsQ.ArrivalMovementRow[] = [];
  for (const id of [...receipt.movimenti].sort((a, b) => a - b)) {
    const m = await first(tx, arrivalsQ.arrivalMovement(id));
    if (m?.riferimento_id == null) throw new Error(`ricevimento ${receipt.id}: il movimento ${id} non è un arrivo`);
    const refused = cancelRefusal(actor, m, opts.timeZone);
    if (refused !== null) throw new DomainError("permesso_negato", refused);
    movements.push(m);
  }
  if (movements.length === 0) return finish(tx, pallet, receipt.id, []);

  // 1. The warehouse's gate (a pallet lands in its notice's warehouse), 2. every order row, by id.
  const warehouse = (await lockWarehouses(tx, { magazzino: pallet.magazzino_id })).get(pallet.magazzino_id)!;
  const orderRows = await lockOrderRows(
    tx,
    movements.map((m) => m.riferimento_id!),
  );
  const left = new Map<number, Decimal>();
  for (const m of movements) {
    const already = await first(tx, arrivalsQ.cancellationOf(m.id));
    if (already) throw new DomainError("arrivo_gia_annullato", `L'arrivo ${m.id} è già stato annullato (movimento ${already.id}).`);
    // A return to the supplier with riapri (API.md section 12) may have taken part of it off the row already.
    const row = orderRows.get(m.riferimento_id!)!;
    const rest = (left.get(row.id) ?? new Decimal(row.arrivata.toString())).minus(m.quantita.toString());
    if (rest.lt(0))
      throw new DomainError(
        "arrivo_reso",
        `La riga R${row.id} ha ${canonical(row.arrivata)} arrivati dopo i resi al fornitore: l'arrivo ${m.id} (${canonical(m.quantita)}) non si annulla oltre.`,
      );
    left.set(row.id, rest);
  }
  // 3. Lots, by article then code by code points (receiptMovements' order; the ids sort stands for nothing).
  const byLot = movements
    .filter((m) => m.lotto_id !== null)
    .sort((a, b) => a.articolo_id - b.articolo_id || compareCodePoints(a.lotto!, b.lotto!) || a.id - b.id);
  for (const m of byLot) {
    const given = await takeBackFromLot(tx, m.lotto_id!, canonical(m.quantita));
    if (!given.ok)
      throw new DomainError(
        "lotto_consumato",
        `Il lotto '${m.lotto}' di ${m.codice} ha ${given.residua} disponibili: non può restituire i ${canonical(m.quantita)} arrivati. Annullare prima gli scarichi o rettificare l'inventario.`,
      );
  }
  // 4. Location stock, in its order.
  const places = movements.flatMap((m) => {
    const location = takeBackLocation(m, warehouse);
    if (location === null) return [];
    const lotto = m.lotto_id === null ? null : { id: m.lotto_id, codice: m.lotto! };
    const key: LocationKey = { articolo: { id: m.articolo_id, codice: m.codice }, magazzino: m.magazzino_id, ubicazione: location, lotto };
    return [{ m, key }];
  });
  places.sort((a, b) => locationLockOrder(a.key, b.key) || a.m.id - b.m.id);
  for (const { m, key } of places) {
    try {
      await unloadLocation(tx, key, canonical(m.quantita));
    } catch (e) {
      if (!(e instanceof RowError) || e.codice !== "quantita_insufficiente_ubicazione") throw e;
      throw await goodsMoved(tx, m, key.ubicazione.codice, canonical(m.quantita));
    }
  }
  // The rows give the quantities back (their locks are held), then one append (balances, 5) and the orders (6).
  const moved = new Map<number, { arrivata: string; residua: string }>();
  for (const m of movements) moved.set(m.id, await moveArrived(tx, m.riferimento_id!, `-${canonical(m.quantita)}`));
  const location = new Map(places.map((p) => [p.m.id, p.key.ubicazione.id]));
  const ledger: LedgerRow[] = movements.map((m) => ({
    natura: "scarico",
    magazzino: m.magazzino_id,
    articolo: m.articolo_id,
    quantita: `-${canonical(m.quantita)}`,
    prezzo: m.prezzo === null ? null : canonical(m.prezzo),
    lotto: m.lotto_id,
    ubicazione: location.get(m.id) ?? null,
    riferimento: { tipo: "riga_ordine", id: m.riferimento_id! },
    annulla: m.id,
  }));
  const [inserted] = await rowsInOrder(
    tx,
    ledgerAppend(
      {
        operazione: "nuova",
        origine: "annullamento",
        causale: `Annullamento collo ${pallet.sscc}`,
        data: businessDate(opts.timeZone),
        actor,
      },
      ledger,
    ),
    ...recomputeOrdersStatements(movements.map((m) => orderRows.get(m.riferimento_id!)!.ordine_id)),
  );
  // The append's rows come back in insertion order of the ledger rows (one statement, ids drawn in order).
  const ids = appended(inserted).ids;
  return finish(
    tx,
    pallet,
    receipt.id,
    movements.map((m, i) => ({ annullato: m.id, movimento: ids[i]!, riga: { riga: m.riferimento_id!, ...moved.get(m.id)! } })),
  );
}

/** The receipt voided with its differences, the notice's version moved (its pallet is expected again). */
async function finish(tx: Tx, pallet: q.LockedPallet, receipt: number, righe: CancelPalletOutput["righe"]): Promise<CancelPalletOutput> {
  const [voided] = await rows(tx, q.cancelReceipt(pallet.id, receipt));
  await execute(tx, q.touchNotice(pallet.avviso_id));
  return { annullati: righe.length, righe, differenze_annullate: voided?.annullate ?? 0, collo: { sscc: pallet.sscc, stato: "atteso" } };
}
