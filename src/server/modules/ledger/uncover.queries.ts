import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * The statements of the uncovering (uncover.ts, docs/api.md section 14): the work is the database function
 * banchina_scopri (migrations 20261202230000_prenotazioni_scoperte, and 20261203010000_scopri_senza_blocchi
 * for its current body: it reads without locks first), one statement however many pairs.
 */

/** Recomputes `scoperta` on the held rows of the pairs; answers the reservations whose rows changed. */
export const uncoverPairs = (articoli: number[], magazzini: number[], oggi: string) =>
  query<{ prenotazione: number }>(Prisma.sql`
    SELECT s.prenotazione FROM banchina_scopri(${articoli}::int[], ${magazzini}::int[], ${oggi}::date) AS s(prenotazione)`);

export interface UncoveredPair {
  articolo_id: number;
  magazzino_id: number;
  /** What the holding rows hold and mark uncovered, and what can cover them (banchina_copribile): text. */
  tenuta: string;
  scoperta: string;
  copribile: string;
}

/**
 * verify: the pairs (and, with `lotto_id`, the lots) whose holds are neither covered nor marked uncovered:
 * held − scoperta above what can cover them (never below zero), for the holding reservations' rows.
 */
export const holdsNotCovered = (oggi: string) =>
  query<UncoveredPair & { lotto_id: number | null }>(Prisma.sql`
    WITH righe AS (
      SELECT r.articolo_id, r.magazzino_id, r.lotto_id, r.prenotata, r.scoperta
        FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
       WHERE r.prenotata > 0 AND banchina_prenotazione_tiene(p.stato, p.scade_il)
    )
    SELECT articolo_id, magazzino_id, lotto_id, trim_scale(tenuta)::text AS tenuta, trim_scale(scoperta)::text AS scoperta,
           trim_scale(copribile)::text AS copribile
      FROM (
      SELECT articolo_id, magazzino_id, NULL::int AS lotto_id, sum(prenotata) AS tenuta, sum(scoperta) AS scoperta,
             banchina_copribile(articolo_id, magazzino_id, ${oggi}::date) AS copribile
        FROM righe GROUP BY articolo_id, magazzino_id
      UNION ALL
      SELECT articolo_id, magazzino_id, lotto_id, sum(prenotata), sum(scoperta), coalesce(banchina_lotto_copribile(lotto_id, ${oggi}::date), 0)
        FROM righe WHERE lotto_id IS NOT NULL GROUP BY articolo_id, magazzino_id, lotto_id
    ) s
     WHERE s.tenuta - s.scoperta > greatest(s.copribile, 0)
     ORDER BY articolo_id, magazzino_id, lotto_id NULLS FIRST`);
