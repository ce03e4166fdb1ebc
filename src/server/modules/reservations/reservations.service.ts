import type { Db, Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { businessDate, formatInstant } from "../../lib/dates";
import { Decimal } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import { cursors, feedPage } from "../feeds/feeds.service";
import { lockHeldPairs } from "../ledger/ledger.service";
import { uncoverPairs } from "../ledger/uncover";
import type { CancelReservationInput, ListReservationsInput, ReservationOutput } from "./reservations.schemas";
import * as q from "./reservations.queries";

/**
 * GET /prenotazioni and POST /prenotazioni/{id}/annulla (docs/api.md section 14). The reservation is built by the
 * database function banchina_prenotazione_json, the same that its event `prenotazione.modificata` records.
 */

/** A reservation as the contract shows it (the list, the cancel's answer, and the event). */
export function toReservationOutput(r: q.StoredReservation, timeZone: string): ReservationOutput {
  const { scade_ms, ...rest } = r;
  return {
    ...rest,
    stato: r.stato as ReservationOutput["stato"],
    versione: Number(r.versione),
    scade_il: scade_ms === null ? null : formatInstant(timeZone, Number(scade_ms)),
  };
}

export async function listReservations(db: Db, input: ListReservationsInput, timeZone: string) {
  const p = await feedPage(db, input, "prenotazioni", (w, take) => q.reservationsPage(w, take, input));
  return { prenotazioni: p.rows.map((r) => toReservationOutput(r.prenotazione, timeZone)), ...cursors(p) };
}

/**
 * Releases every row, or the rows named: what is picked stays held. When nothing stays held the reservation is
 * `annullata`. One already `annullata` answers as it is; one `evasa`, `scaduta` (or past its `scade_il`) is
 * closed (`prenotazione_chiusa`). What it releases may cover other reservations of the same stock again
 * (docs/api.md section 14, `scoperta`): the balances of the released rows are locked (level 5, after the
 * reservation at 2b, as an upsert takes them) before any row is written, so no writer of that stock, which holds
 * the balance when it recomputes, ever waits for a row this cancel holds; then their `scoperta` is recomputed.
 */
export async function cancelReservation(tx: Tx, input: CancelReservationInput, timeZone: string): Promise<ReservationOutput> {
  const [r] = await rows(tx, q.lockReservation(input.id));
  if (!r) throw new DomainError("non_trovato", `La prenotazione ${input.id} non esiste.`);
  const read = async () => toReservationOutput((await rows(tx, q.reservationsByIds([r.id])))[0]!.prenotazione, timeZone);
  if (r.stato === "annullata") return read();
  if (!r.tiene || r.stato !== "attiva") {
    const why = r.stato === "attiva" ? "scaduta" : r.stato;
    throw new DomainError("prenotazione_chiusa", `La prenotazione ${r.riferimento} è ${why}: non c'è nulla da annullare.`);
  }
  const mine = await rows(tx, q.rowsOfReservations([r.id]));
  const named = input.righe ?? mine.map((x) => x.numero_riga);
  const unknown = named.filter((n) => !mine.some((x) => x.numero_riga === n));
  if (unknown.length > 0) {
    throw new DomainError("riga_non_trovata", `La prenotazione ${r.riferimento} non ha le righe ${unknown.join(", ")}.`, {
      campo: "righe",
    });
  }
  const release = mine.filter((x) => named.includes(x.numero_riga) && new Decimal(x.prenotata).gt(x.prelevata));
  if (release.length === 0) return read();
  const pairs = new Map(release.map((x) => [`${x.articolo_id}:${x.magazzino_id}`, { articolo: x.articolo_id, magazzino: x.magazzino_id }]));
  const held = await lockHeldPairs(tx, [...pairs.values()]);
  await execute(tx, q.releaseRows(release.map((x) => x.id)));
  await uncoverPairs(tx, held, businessDate(timeZone));
  const released = new Set(release.map((x) => x.id));
  const stillHeld = mine.some((x) => (released.has(x.id) ? new Decimal(x.prelevata) : new Decimal(x.prenotata)).gt(0));
  // The header last: its UPDATE takes the new version, and the event follows it at commit.
  await execute(tx, q.setState(r.id, stillHeld ? "attiva" : "annullata"));
  return read();
}
