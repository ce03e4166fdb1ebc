import { LOCATION_GATE } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * A count's statements (the alignment, modules/alignment), set-based: one per step whatever the row count.
 * `articoli` and `codici` are the lot units, in lotLockOrder; a read taken with `lock` holds its rows until
 * commit. They live here because only the ledger takes the lots', location stock's and balances' locks.
 */

/** Lots that do not exist yet are created, so that they can be locked like the others. */
export const createMissingLots = (magazzino: number, articoli: number[], codici: string[]) =>
  query<never>(Prisma.sql`
    INSERT INTO lotti (articolo_id, magazzino_id, codice, residua)
    SELECT a, ${magazzino}, c, 0 FROM unnest(${articoli}::int[], ${codici}::text[]) AS t(a, c)
    ON CONFLICT DO NOTHING`);

/** The units' lots, in lot lock order (article, then code by code points). */
export const lots = (magazzino: number, articoli: number[], codici: string[], lock: boolean) =>
  query<{ id: number; articolo_id: number; codice: string; residua: Prisma.Decimal }>(Prisma.sql`
    SELECT l.id, l.articolo_id, l.codice, l.residua FROM lotti l
      JOIN unnest(${articoli}::int[], ${codici}::text[]) AS t(a, c)
        ON l.articolo_id = t.a AND l.codice = t.c
     WHERE l.magazzino_id = ${magazzino}
     ORDER BY l.articolo_id, l.codice COLLATE "C"
     ${lock ? Prisma.sql`FOR UPDATE OF l` : Prisma.empty}`);

/** Likewise the balances that do not exist yet. */
export const createMissingBalances = (magazzino: number, articoli: number[]) =>
  query<never>(Prisma.sql`
    INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
    SELECT id, ${magazzino}, 0 FROM unnest(${articoli}::int[]) AS id
    ON CONFLICT DO NOTHING`);

/** The articles' balances in the warehouse, in balance lock order. */
export const balances = (magazzino: number, articoli: number[], lock: boolean) =>
  query<{ articolo_id: number; quantita: Prisma.Decimal }>(Prisma.sql`
    SELECT articolo_id, quantita FROM giacenze
     WHERE magazzino_id = ${magazzino} AND articolo_id = ANY(${articoli}::int[])
     ORDER BY articolo_id
     ${lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`);

/** Sets counted lots to their count (the lots are locked). */
export const setLotResiduals = (ids: number[], residue: string[]) =>
  query<never>(Prisma.sql`
    UPDATE lotti l SET residua = v.residua
      FROM unnest(${ids}::int[], ${residue}::numeric[]) AS v(id, residua)
     WHERE l.id = v.id`);

// ---------------------------------------------------------------- counting by location (docs/api.md section 11)

/**
 * The counted locations' state, and with `lock` their gates (lock order 1b), by id ascending in one
 * statement: exclusive for the location counted as a whole (`completa`), which holds it against loads
 * until commit, shared for the others, into which the count may put goods as any load does.
 */
export const countedLocations = (ids: number[], whole: number | null, lock: boolean) =>
  query<{ id: number; attiva: boolean; varco: string | null }>(Prisma.sql`
    SELECT u.id, u.attiva,
           CASE WHEN NOT ${lock} THEN NULL
                WHEN u.id = ${whole}::int THEN pg_advisory_xact_lock(${LOCATION_GATE}::int, u.id)::text
                ELSE pg_advisory_xact_lock_shared(${LOCATION_GATE}::int, u.id)::text END AS varco
      FROM (SELECT id, attiva FROM ubicazioni WHERE id = ANY(${ids}::int[]) ORDER BY id) u`);

/**
 * Location stock rows that do not exist yet are created at zero, in lock order 4, so that they can be
 * locked like the others: a load racing the count into a location it holds shared would otherwise
 * create the row between the count's read and its write.
 */
export const createMissingLocationRows = (magazzino: number, articoli: number[], ubicazioni: number[], lotti: (number | null)[]) =>
  query<never>(Prisma.sql`
    INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, lotto_id, quantita)
    SELECT t.a, ${magazzino}, t.u, t.l, 0
      FROM unnest(${articoli}::int[], ${ubicazioni}::int[], ${lotti}::int[]) AS t(a, u, l)
      LEFT JOIN lotti x ON x.id = t.l
     ORDER BY t.a, t.u, x.codice COLLATE "C"
    ON CONFLICT ON CONSTRAINT giacenze_ubicazioni_chiave DO NOTHING`);

/** The units' location stock, in lock order 4 (article, location id, lot code by code points). */
export const locationRows = (articoli: number[], ubicazioni: number[], lotti: (number | null)[], lock: boolean) =>
  query<{ articolo_id: number; ubicazione_id: number; lotto_id: number | null; quantita: Prisma.Decimal }>(Prisma.sql`
    SELECT g.articolo_id, g.ubicazione_id, g.lotto_id, g.quantita
      FROM giacenze_ubicazioni g
      JOIN (SELECT DISTINCT * FROM unnest(${articoli}::int[], ${ubicazioni}::int[], ${lotti}::int[]) AS t(a, u, l)) t
        ON g.articolo_id = t.a AND g.ubicazione_id = t.u AND g.lotto_id IS NOT DISTINCT FROM t.l
      LEFT JOIN lotti x ON x.id = g.lotto_id
     ORDER BY g.articolo_id, g.ubicazione_id, x.codice COLLATE "C"
     ${lock ? Prisma.sql`FOR UPDATE OF g` : Prisma.empty}`);
