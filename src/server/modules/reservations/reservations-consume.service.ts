import type { Tx } from "../../db/client";
import { type Query, rowsInOrder } from "../../db/sql";
import { canonical, Decimal } from "../../lib/decimal";
import { RowError } from "../../lib/errors";
import * as q from "./reservations.queries";

/**
 * An unload of POST /movimenti that names a reservation (docs/api.md section 14) consumes its hold as the goods ship
 * outside the picking flow. The reservations are locked FOR UPDATE by id (lock order 2b, where POST /prenotazioni and
 * the cancel take them: after the gates, before the lots), so an unload and an update of the same reservation queue,
 * and two unloads of one reservation read each other's consumption. What the stock writer then checks against the
 * free stock is only the part beyond the hold (stock-holds.ts, `consumed`).
 */

/** One unload row naming a reservation, in the call's order. */
export interface UnloadClaim {
  /** The caller's key of the row (its index in the call). */
  indice: number;
  prenotazione: number;
  articolo: number;
  codice: string;
  magazzino: number;
  /** The unload's lot code; null for an article not handled in lots. */
  lotto: string | null;
  quantita: string;
}

export interface ConsumptionPlan {
  /** Claims refused before any stock moves, by `indice`. */
  refused: Map<number, RowError>;
  /** By `indice`: the part of the unload the hold covers (`0` when the reservation row holds nothing now). */
  consumed: Map<number, string>;
  /** By `indice`: what each reservation row gives. */
  takes: Map<number, { riga: number; prenotazione: number; quantita: Decimal }[]>;
}

const ZERO = new Decimal(0);

/**
 * Locks the reservations named and decides, claim by claim in the call's order, what each consumes: the rows of
 * the claim's article whose lot is the unload's (a row naming a lot is consumed only by goods of that lot), those
 * naming the lot first, then those without lot, each by `numero_riga`, up to what each still holds and is not
 * picked. Two claims of one call take from the same rows one after the other. No statement without claims.
 */
export async function planConsumption(tx: Tx, claims: UnloadClaim[]): Promise<ConsumptionPlan> {
  const plan: ConsumptionPlan = { refused: new Map(), consumed: new Map(), takes: new Map() };
  if (claims.length === 0) return plan;
  const ids = [...new Set(claims.map((c) => c.prenotazione))].sort((a, b) => a - b);
  const [locked, rowsOf] = await rowsInOrder(tx, q.lockReservationsById(ids), q.rowsToConsume(ids));
  const reservations = new Map(locked.map((r) => [r.id, r]));
  const left = new Map(rowsOf.map((r) => [r.id, new Decimal(r.consumabile)]));
  for (const c of claims) {
    try {
      const r = reservations.get(c.prenotazione);
      if (!r) throw new RowError("prenotazione_non_trovata", `La prenotazione ${c.prenotazione} non esiste.`);
      const name = `La prenotazione ${c.prenotazione} (${r.riferimento})`;
      if (r.stato === "in_prelievo") {
        throw new RowError(
          "prenotazione_in_prelievo",
          `${name} è in prelievo: la sua merce esce con la lista di prelievo, non con uno scarico che la nomina.`,
        );
      }
      if (r.stato !== "attiva" || !r.tiene) {
        const why = r.stato === "attiva" ? "scaduta" : r.stato;
        throw new RowError("prenotazione_chiusa", `${name} è ${why}: non tiene più merce da consumare; togliere 'prenotazione'.`);
      }
      if (r.magazzino_id !== c.magazzino) {
        throw new RowError(
          "magazzino_diverso",
          `${name} è del magazzino ${r.magazzino_id}: lo scarico è dal magazzino ${c.magazzino}. Scaricare dal magazzino ${r.magazzino_id}.`,
        );
      }
      const ofArticle = rowsOf.filter((x) => x.prenotazione_id === r.id && x.articolo_id === c.articolo);
      if (ofArticle.length === 0) {
        throw new RowError("prenotazione_non_trovata", `${name} non ha righe dell'articolo ${c.codice}.`);
      }
      const ofLot = ofArticle.filter((x) => x.lotto !== null && x.lotto === c.lotto);
      const candidates = [...ofLot, ...ofArticle.filter((x) => x.lotto === null)];
      if (candidates.length === 0) {
        const lots = [...new Set(ofArticle.map((x) => x.lotto))].join(", ");
        throw new RowError(
          "prenotazione_non_trovata",
          `${name} tiene l'articolo ${c.codice} nel lotto ${lots}: lo scarico è ${c.lotto === null ? "senza lotto" : `del lotto '${c.lotto}'`}.`,
        );
      }
      let rest = new Decimal(c.quantita);
      const takes: { riga: number; prenotazione: number; quantita: Decimal }[] = [];
      for (const row of candidates) {
        const take = Decimal.min(rest, left.get(row.id) ?? ZERO);
        if (take.lte(0)) continue;
        takes.push({ riga: row.id, prenotazione: r.id, quantita: take });
        left.set(row.id, left.get(row.id)!.minus(take));
        rest = rest.minus(take);
      }
      plan.takes.set(c.indice, takes);
      plan.consumed.set(c.indice, canonical(new Decimal(c.quantita).minus(rest)));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      plan.refused.set(c.indice, e);
    }
  }
  return plan;
}

/**
 * The statements that record what the written claims consumed: the rows first, then their reservations' headers
 * (a new version each, `evasa` when nothing stays held). None when nothing was consumed: a reservation whose row held
 * nothing is left as it is. The caller sends them in its write, under the reservations' locks taken by planConsumption.
 */
export function consumptionStatements(plan: ConsumptionPlan, written: readonly number[]): Query<never>[] {
  const byRow = new Map<number, Decimal>();
  const reservations = new Set<number>();
  for (const indice of written) {
    for (const t of plan.takes.get(indice) ?? []) {
      byRow.set(t.riga, (byRow.get(t.riga) ?? ZERO).plus(t.quantita));
      reservations.add(t.prenotazione);
    }
  }
  if (byRow.size === 0) return [];
  const rowIds = [...byRow.keys()].sort((a, b) => a - b);
  return [
    q.consumeRows(
      rowIds,
      rowIds.map((id) => canonical(byRow.get(id)!)),
    ),
    q.settleConsumed([...reservations].sort((a, b) => a - b)),
  ];
}
