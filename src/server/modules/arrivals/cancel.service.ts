import type { Tx } from "../../db/client";
import { first, rows, rowsThenCommit } from "../../db/sql";
import { businessDate, formatDate } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { appended, ledgerAppend, takeBackFromLot } from "../ledger/ledger.service";
import { lockWarehouses, unloadLocation, type ResolvedLocation, type WarehouseInfo } from "../ledger/locations.service";
import * as q from "./arrivals.queries";
import type { ArrivalMovementRow } from "./arrivals.queries";
import type { CancelOutput } from "./arrivals.schemas";
import { lockOrderRows, moveArrived, recomputeOrdersStatements, statesOf } from "./order-rows.service";

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
  const refused = cancelRefusal(actor, m, opts.timeZone);
  if (refused !== null) throw new DomainError("permesso_negato", refused);
  // The warehouse's gate before any row lock, as every stock writer takes it.
  const warehouse = (await lockWarehouses(tx, { magazzino: m.magazzino_id })).get(m.magazzino_id)!;
  const row = (await lockOrderRows(tx, [m.riferimento_id])).get(m.riferimento_id)!;
  const already = await first(tx, q.cancellationOf(id));
  if (already) {
    throw new DomainError("arrivo_gia_annullato", `L'arrivo ${id} è già stato annullato (movimento ${already.id}).`);
  }
  const quantita = canonical(m.quantita);
  // A return to the supplier with riapri (API.md section 12) already took this much off the row.
  if (row.arrivata.lt(m.quantita)) {
    throw new DomainError(
      "arrivo_reso",
      `La riga R${row.id} ha ${canonical(row.arrivata)} arrivati dopo i resi al fornitore: l'arrivo ${id} (${quantita}) non si annulla oltre.`,
    );
  }
  if (m.lotto_id !== null) {
    const given = await takeBackFromLot(tx, m.lotto_id, quantita);
    if (!given.ok) {
      throw new DomainError(
        "lotto_consumato",
        `Il lotto '${m.lotto}' di ${m.codice} ha ${given.residua} disponibili: non può restituire i ${quantita} arrivati. Annullare prima gli scarichi o rettificare l'inventario.`,
      );
    }
  }
  const location = takeBackLocation(m, warehouse);
  if (location !== null) {
    const lotto = m.lotto_id === null ? null : { id: m.lotto_id, codice: m.lotto! };
    const key = { articolo: { id: m.articolo_id, codice: m.codice }, magazzino: m.magazzino_id, ubicazione: location, lotto };
    try {
      await unloadLocation(tx, key, quantita);
    } catch (e) {
      if (!(e instanceof RowError) || e.codice !== "quantita_insufficiente_ubicazione") throw e;
      throw await goodsMoved(tx, m, location.codice, quantita);
    }
  }
  const moved = await moveArrived(tx, row.id, `-${quantita}`);
  // The reversal and the order's new state in one write with the COMMIT: each statement still runs after
  // the one before it, in the lock order (the balance, then the order).
  const [inserted, , recomputed] = await rowsThenCommit(
    tx,
    ledgerAppend(
      { operazione: "nuova", origine: "annullamento", causale: `Annullamento arrivo ${id}`, data: businessDate(opts.timeZone), actor },
      [
        {
          natura: "scarico",
          magazzino: m.magazzino_id,
          articolo: m.articolo_id,
          quantita: `-${quantita}`,
          prezzo: m.prezzo === null ? null : canonical(m.prezzo),
          lotto: m.lotto_id,
          ubicazione: location?.id ?? null,
          riferimento: { tipo: "riga_ordine", id: row.id },
          annulla: id,
        },
      ],
    ),
    ...recomputeOrdersStatements([row.ordine_id]),
  );
  const [movimento] = appended(inserted).ids;
  const states = statesOf(recomputed);
  return {
    annullato: id,
    movimento: movimento!,
    riga: { riga: row.id, arrivata: moved.arrivata, residua: moved.residua },
    ordine: { id: row.ordine_id, stato: states.get(row.ordine_id)! },
  };
}

/**
 * The location a cancellation takes the goods back from: where the arrival put them; for an arrival
 * registered before the warehouse switched locations on, the receiving location, where the switch placed
 * them. Null when the warehouse does not manage locations (now): switching off took the goods out of them.
 */
export function takeBackLocation(m: ArrivalMovementRow, warehouse: WarehouseInfo): ResolvedLocation {
  if (!warehouse.gestione_ubicazioni) return null;
  if (m.ubicazione_id !== null) return { id: m.ubicazione_id, codice: m.ubicazione! };
  return warehouse.ricevimento;
}

/** merce_spostata: the location no longer holds what arrived; the message says where that article (and lot) lies now. */
export async function goodsMoved(tx: Tx, m: ArrivalMovementRow, from: string, quantita: string): Promise<DomainError> {
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
