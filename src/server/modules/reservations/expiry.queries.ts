import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

/** The statements of the reservations' expiry (expiry.service.ts, docs/api.md section 14). */

/**
 * Turns up to `n` reservations `attiva` whose `scade_il` is at or before `at` (the database's `now()` when
 * null) into `scaduta`, in one statement, and releases their rows as a cancel does: `prenotata` falls to what
 * is picked (`prelevata`, nothing for an `attiva` reservation), `scoperta` to 0. Its UPDATE of the reservation
 * takes a new version (banchina_versione_sempre), so `prenotazione.modificata` is recorded at commit.
 *
 * Once across instances: the reservations are locked FOR UPDATE SKIP LOCKED, so a reservation another sweep,
 * an update or a cancel holds is left to the next sweep (which sees what that one committed), and a row lock
 * is never waited for; the UPDATE checks the state again, on the version it locked. `in_prelievo` is never
 * taken: it does not expire while its pick list is open.
 */
export const expireDue = (n: number, at: string | null) =>
  query<{ id: number }>(Prisma.sql`
    WITH due AS MATERIALIZED (
      SELECT p.id FROM prenotazioni p
       WHERE p.stato = 'attiva' AND p.scade_il <= coalesce(${at}::timestamptz, now())
       ORDER BY p.scade_il, p.id
       ${limit(n)}
         FOR UPDATE OF p SKIP LOCKED
    ), released AS (
      UPDATE righe_prenotazione r SET prenotata = r.prelevata, scoperta = 0
        FROM due
       WHERE r.prenotazione_id = due.id AND (r.prenotata <> r.prelevata OR r.scoperta <> 0)
    )
    UPDATE prenotazioni p SET stato = 'scaduta'
      FROM due
     WHERE p.id = due.id AND p.stato = 'attiva'
    RETURNING p.id`);
