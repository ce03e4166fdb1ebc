import type { ModelDb } from "../../db/client";
import { rows } from "../../db/sql";
import { businessDate, formatDateOrNull, formatInstant } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { authorColumns, hasScope, type Actor } from "../auth/actor";
import { assertWarehouses } from "../catalogue/articles";
import * as q from "./arrivals.queries";
import { MAX_TODAY_ARRIVALS, type TodayInput, type TodayOutput } from "./arrivals.schemas";
import { cancelRefusal } from "./cancel.service";

/**
 * arrivals.today: the arrivals registered today (the business date in the service's zone, the date an
 * arrival's movement carries), newest first, from the service rather than from one tab's memory, so any
 * device, and a manager, sees them and can cancel them. `annullabile` is cancelArrival's own rule for
 * this caller, so the screen offers Annulla exactly where the cancellation would be accepted.
 */
export async function todaysArrivals(db: ModelDb, actor: Actor, input: TodayInput, opts: { timeZone: string }): Promise<TodayOutput> {
  if (input.magazzino !== undefined) await assertWarehouses(db, { magazzino: input.magazzino });
  const found = await rows(
    db,
    q.arrivalsOfDay(
      businessDate(opts.timeZone),
      { ddt: input.ddt, magazzino: input.magazzino, author: input.mine ? authorColumns(actor) : undefined },
      MAX_TODAY_ARRIVALS + 1,
    ),
  );
  const mayCancel = hasScope(actor, "scrittura");
  return {
    arrivi: found.slice(0, MAX_TODAY_ARRIVALS).map((m) => ({
      movimento: m.id,
      operazione: m.operazione_id,
      riga: m.riga,
      etichetta: `R${m.riga}`,
      articolo: { id: m.articolo_id, codice: m.codice },
      descrizione: m.descrizione,
      quantita: canonical(m.quantita),
      unita: m.unita,
      lotto: m.lotto,
      scadenza: formatDateOrNull(m.scadenza),
      ddt: m.ddt,
      ordine: { id: m.ordine_id, numero: m.numero },
      fornitore: { id: m.fornitore_id, nome: m.fornitore_nome },
      magazzino: m.magazzino_id,
      utente: m.utente_id === null ? null : { id: m.utente_id, username: m.username! },
      registrato_il: formatInstant(opts.timeZone, m.registrato_ms),
      annullato: m.annullato,
      annullabile: !m.annullato && mayCancel && cancelRefusal(actor, m, opts.timeZone) === null,
    })),
    altri: found.length > MAX_TODAY_ARRIVALS,
  };
}
