import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

/** The statements of the reservations' expiry and of the lots' (expiry.service.ts, docs/api.md section 14). */

/**
 * Locks up to `n` reservations `attiva` whose `scade_il` is at or before `at` (the database's `now()` when null),
 * FOR UPDATE SKIP LOCKED (level 2b): a reservation another sweep, an update, a cancel or an unload holds is left
 * to the next sweep, which sees what that one committed; a row lock is never waited for. `in_prelievo` is never
 * taken: it does not expire while its pick list is open. Answers, with each, the database's business day in the
 * service's time zone (by its real `now()`: the day lots are judged by, as every writer's `oggi`).
 */
export const lockDue = (n: number, at: string | null, timeZone: string) =>
  query<{ id: number; oggi: string }>(Prisma.sql`
    SELECT p.id, (now() AT TIME ZONE ${timeZone})::date::text AS oggi FROM prenotazioni p
     WHERE p.stato = 'attiva' AND p.scade_il <= coalesce(${at}::timestamptz, now())
     ORDER BY p.scade_il, p.id
     ${limit(n)}
       FOR UPDATE OF p SKIP LOCKED`);

/**
 * The (article, warehouse) pairs the rows of these (locked) reservations hold or mark uncovered, in balance lock
 * order: the balances the sweep takes before it releases them. A statement of its own after the lock, so that its
 * snapshot sees the rows a writer of the reservation committed before the lock was granted.
 */
export const pairsOfReservations = (ids: number[]) =>
  query<{ articolo_id: number; magazzino_id: number }>(Prisma.sql`
    SELECT DISTINCT r.articolo_id, r.magazzino_id FROM righe_prenotazione r
     WHERE r.prenotazione_id = ANY(${ids}::int[]) AND (r.prenotata <> r.prelevata OR r.scoperta <> 0)
     ORDER BY r.articolo_id, r.magazzino_id`);

/**
 * Turns these locked reservations into `scaduta` and releases their rows as a cancel does: `prenotata` falls to
 * what is picked (`prelevata`, nothing for an `attiva` reservation), `scoperta` to 0. Its UPDATE of the reservation
 * takes a new version (banchina_versione_sempre), so `prenotazione.modificata` is recorded at commit. The UPDATE
 * checks the state again.
 */
export const expireLocked = (ids: number[]) =>
  query<{ id: number }>(Prisma.sql`
    WITH released AS (
      UPDATE righe_prenotazione r SET prenotata = r.prelevata, scoperta = 0
       WHERE r.prenotazione_id = ANY(${ids}::int[]) AND (r.prenotata <> r.prelevata OR r.scoperta <> 0)
    )
    UPDATE prenotazioni p SET stato = 'scaduta'
     WHERE p.id = ANY(${ids}::int[]) AND p.stato = 'attiva'
    RETURNING p.id`);

/**
 * The lots' expiry (docs/api.md section 14, "A lot passing its expiry"): the day the sweep last looked (null: never)
 * and the business day now, in the service's time zone, by the database's clock (`at`: the tests' hook).
 */
export const lotCheckDay = (at: string | null, timeZone: string) =>
  query<{ giorno: string | null; oggi: string }>(Prisma.sql`
    SELECT c.giorno::text AS giorno, (coalesce(${at}::timestamptz, now()) AT TIME ZONE ${timeZone})::date::text AS oggi
      FROM scadenze_lotti_controllo c`);

/** The same row, locked for the sweep that records the day: SKIP LOCKED, another instance's sweep holds it. */
export const lockLotCheckDay = () =>
  query<{ giorno: string | null }>(Prisma.sql`
    SELECT c.giorno::text AS giorno FROM scadenze_lotti_controllo c FOR UPDATE SKIP LOCKED`);

/**
 * The (article, warehouse) pairs that hold something now and have a lot with stock whose `scadenza` is before
 * `oggi` and not before `giorno` (the lots that expired since the sweep last looked; all of them when it never
 * did), in balance lock order. Lots are read unlocked: the balances are locked next, and the uncovering reads
 * them again under those locks.
 */
export const pairsWithLotsExpiredSince = (giorno: string | null, oggi: string) =>
  query<{ articolo_id: number; magazzino_id: number }>(Prisma.sql`
    SELECT DISTINCT r.articolo_id, r.magazzino_id
      FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
     WHERE r.prenotata > 0 AND banchina_prenotazione_tiene(p.stato, p.scade_il)
       AND EXISTS (SELECT 1 FROM lotti l
                    WHERE l.articolo_id = r.articolo_id AND l.magazzino_id = r.magazzino_id AND l.residua > 0
                      AND l.scadenza < ${oggi}::date AND (${giorno}::date IS NULL OR l.scadenza >= ${giorno}::date))
     ORDER BY r.articolo_id, r.magazzino_id`);

/** Records the day the sweep looked. */
export const recordLotCheckDay = (oggi: string) => query<never>(Prisma.sql`UPDATE scadenze_lotti_controllo SET giorno = ${oggi}::date`);
