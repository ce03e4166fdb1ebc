import type { Tx } from "../../db/client";
import { first, rows } from "../../db/sql";
import { businessDate, formatDate } from "../../lib/dates";
import { canonical, Decimal } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { lockWarehouses, type ResolvedLocation, type WarehouseInfo } from "../ledger/location-balances.service";
import { type StockIntent, type StockShortfall, writeStock } from "../ledger/stock-writer";
import * as q from "./arrivals.queries";
import type { ArrivalMovementRow } from "./arrivals.queries";
import type { CancelOutput } from "./arrivals.schemas";
import { lockOrderRows, moveArrived, type OrderState, recomputeOrdersStatements, statesOf } from "./order-rows.service";

/**
 * Who may cancel an arrival, beyond the write permission: an operator corrects their own mistakes of the
 * day; anything older or someone else's is a manager's call. Null when the actor may; else the refusal.
 * Also what arrivals.today shows as `annullabile`.
 */
export function cancelRefusal(actor: Actor, m: { id: number; utente_id: number | null; data: Date }, timeZone: string): string | null {
  if (actor.kind !== "utente" || actor.ruolo !== "operatore") return null;
  if (m.utente_id !== actor.id) return `L'arrivo ${m.id} è stato registrato da un altro utente: può annullarlo solo un responsabile.`;
  if (formatDate(m.data) !== businessDate(timeZone))
    return `L'arrivo ${m.id} non è di oggi: un operatore annulla solo i propri arrivi del giorno, chiedere a un responsabile.`;
  return null;
}

/** POST /arrivi/{id}/annulla: an arrival cancelled by a reversing movement; the lot and the order row give it back. */
export async function cancelArrival(tx: Tx, actor: Actor, id: number, opts: { timeZone: string }): Promise<CancelOutput> {
  const m = await first(tx, q.arrivalMovement(id));
  if (m?.origine !== "arrivo" || m.riferimento_tipo !== "riga_ordine" || m.riferimento_id === null) {
    throw new DomainError("non_trovato", `Il movimento ${id} non è un arrivo registrato: indicare l'id del movimento di arrivo.`);
  }
  const [done] = await cancelArrivals(tx, actor, [m], { ...opts, causale: `Annullamento arrivo ${id}`, last: true });
  return { annullato: id, movimento: done!.movimento, riga: done!.riga, ordine: done!.ordine };
}

/** The receipt's arrival movements, by id, each checked to be an arrival: what a pallet's cancellation cancels. */
export async function arrivalsOfReceipt(tx: Tx, receipt: number, ids: number[]): Promise<ArrivalMovementRow[]> {
  const movements: ArrivalMovementRow[] = [];
  for (const id of [...ids].sort((a, b) => a - b)) {
    const m = await first(tx, q.arrivalMovement(id));
    if (m?.riferimento_id == null) throw new Error(`ricevimento ${receipt}: il movimento ${id} non è un arrivo`);
    movements.push(m);
  }
  return movements;
}

/** One cancelled arrival: its reversing movement, its order row and its order after the cancellation. */
export interface CancelledArrival {
  annullato: number;
  movimento: number;
  riga: { riga: number; arrivata: string; residua: string };
  ordine: { id: number; stato: OrderState };
}

/**
 * The one cancellation of arrivals: one arrival (POST /arrivi/{id}/annulla) or every arrival of a pallet
 * (POST /colli/{sscc}/annulla), all or nothing, with the same checks and refusals, as ONE writer in the lock
 * order: the warehouses' gates, every order row, then the stock writer (lots, location stock, one append
 * with the balances, the orders). Arrival by arrival would take an order at the end of each and then the
 * next arrival's lot and balance: against a receipt of another pallet of the same orders, which holds
 * those balances and waits on the order, a deadlock (pallet-cancel-race.test.ts). `last`: the
 * cancellation ends the unit of work (its COMMIT goes with the append).
 */
export async function cancelArrivals(
  tx: Tx,
  actor: Actor,
  movements: ArrivalMovementRow[],
  opts: { timeZone: string; causale: string; last?: boolean },
): Promise<CancelledArrival[]> {
  for (const m of movements) {
    const refused = cancelRefusal(actor, m, opts.timeZone);
    if (refused !== null) throw new DomainError("permesso_negato", refused);
  }
  if (movements.length === 0) return [];
  // The warehouses' gates before any row lock, as every stock writer takes them; then the order rows, by id.
  // (A movement's warehouse exists: the field names are never shown.)
  const ids = [...new Set(movements.map((m) => m.magazzino_id))];
  const warehouses = await lockWarehouses(tx, Object.fromEntries(ids.map((id, i) => [i === 0 ? "magazzino" : `magazzino_${id}`, id])));
  const orderRows = await lockOrderRows(
    tx,
    movements.map((m) => m.riferimento_id!),
  );
  const left = new Map<number, Decimal>();
  for (const m of movements) {
    const already = await first(tx, q.cancellationOf(m.id));
    if (already) throw new DomainError("arrivo_gia_annullato", `L'arrivo ${m.id} è già stato annullato (movimento ${already.id}).`);
    // A return to the supplier with riapri (docs/api.md section 12) may have taken part of it off the row already.
    const row = orderRows.get(m.riferimento_id!)!;
    const rest = (left.get(row.id) ?? new Decimal(row.arrivata.toString())).minus(m.quantita.toString());
    if (rest.lt(0))
      throw new DomainError(
        "arrivo_reso",
        `La riga R${row.id} ha ${canonical(row.arrivata)} arrivati dopo i resi al fornitore: l'arrivo ${m.id} (${canonical(m.quantita)}) non si annulla oltre.`,
      );
    left.set(row.id, rest);
  }
  // The rows give the quantities back (their locks are held); the stock follows in its own order.
  const moved = new Map<number, { arrivata: string; residua: string }>();
  for (const m of movements) moved.set(m.id, await moveArrived(tx, m.riferimento_id!, `-${canonical(m.quantita)}`));
  const arrivalOf = new Map<StockIntent, ArrivalMovementRow>();
  const intents = movements.map((m) => {
    const intent: StockIntent = {
      natura: "scarico",
      magazzino: m.magazzino_id,
      articolo: m.articolo_id,
      codice: m.codice,
      quantita: `-${canonical(m.quantita)}`,
      prezzo: m.prezzo === null ? null : canonical(m.prezzo),
      lotto: m.lotto_id === null ? null : { id: m.lotto_id, codice: m.lotto! },
      ubicazione: takeBackLocation(m, warehouses.get(m.magazzino_id)!),
      riferimento: { tipo: "riga_ordine", id: m.riferimento_id! },
      annulla: m.id,
    };
    arrivalOf.set(intent, m);
    return intent;
  });
  const written = await writeStock(
    tx,
    { operazione: "nuova", origine: "annullamento", causale: opts.causale, data: businessDate(opts.timeZone), actor },
    intents,
    {
      refuse: (intent, why) => refusal(tx, arrivalOf.get(intent)!, intent, why),
      after: recomputeOrdersStatements(movements.map((m) => orderRows.get(m.riferimento_id!)!.ordine_id)),
      last: opts.last,
    },
  );
  const states = statesOf(written.after[1]);
  return movements.map((m, i) => {
    const ordine = orderRows.get(m.riferimento_id!)!.ordine_id;
    return {
      annullato: m.id,
      movimento: written.ids[i]!,
      riga: { riga: m.riferimento_id!, ...moved.get(m.id)! },
      ordine: { id: ordine, stato: states.get(ordine)! },
    };
  });
}

/** A cancellation's refusals where the stock no longer holds what arrived: the lot was consumed, or the goods moved. */
async function refusal(tx: Tx, m: ArrivalMovementRow, intent: StockIntent, why: StockShortfall): Promise<Error> {
  const quantita = canonical(m.quantita);
  if (why.step === "lotto") {
    return new DomainError(
      "lotto_consumato",
      `Il lotto '${m.lotto}' di ${m.codice} ha ${why.residua} disponibili: non può restituire i ${quantita} arrivati. Annullare prima gli scarichi o rettificare l'inventario.`,
    );
  }
  if (why.error.codice !== "quantita_insufficiente_ubicazione") return why.error;
  return goodsMoved(tx, m, intent.ubicazione!.codice, quantita);
}

/**
 * The location a cancellation takes the goods back from: where the arrival put them; for an arrival
 * registered before the warehouse switched locations on, the receiving location, where the switch placed
 * them. Null when the warehouse does not manage locations (now): switching off took the goods out of them.
 */
function takeBackLocation(m: ArrivalMovementRow, warehouse: WarehouseInfo): ResolvedLocation {
  if (!warehouse.gestione_ubicazioni) return null;
  if (m.ubicazione_id !== null) return { id: m.ubicazione_id, codice: m.ubicazione! };
  return warehouse.ricevimento;
}

/** merce_spostata: the location no longer holds what arrived; the message says where that article (and lot) lies now. */
async function goodsMoved(tx: Tx, m: ArrivalMovementRow, from: string, quantita: string): Promise<DomainError> {
  const where = await rows(tx, q.whereGoodsAre(m.articolo_id, m.magazzino_id, m.lotto_id));
  const what = `${quantita} di ${m.codice}${m.lotto === null ? "" : ` (lotto '${m.lotto}')`}`;
  const now =
    where.length === 0
      ? "non è più in nessuna ubicazione del magazzino"
      : `ora si trova in ${where.map((w) => `${w.codice}: ${canonical(w.quantita)}`).join(", ")}`;
  return new DomainError(
    "merce_spostata",
    `La merce dell'arrivo ${m.id} (${what}) non è più tutta nell'ubicazione ${from}: ${now}. Riportarla in ${from}, poi annullare l'arrivo.`,
  );
}
