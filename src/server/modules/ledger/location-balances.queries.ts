import { LOCATION_GATE } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import { SHARED_WAREHOUSE_GATE, type WarehouseRow } from "./warehouse-gate";

export const lockWarehousesShared = (ids: number[]) => query<WarehouseRow>(SHARED_WAREHOUSE_GATE(ids));

/** The switch's exclusive warehouse gate: the warehouse's row, FOR NO KEY UPDATE (it then updates it). */
export const lockWarehouseExclusive = (id: number) =>
  query<WarehouseRow>(Prisma.sql`
    SELECT g.id, g.gestione_ubicazioni, g.ubicazione_ricevimento_id, u.codice AS ubicazione_ricevimento
      FROM (SELECT id, gestione_ubicazioni, ubicazione_ricevimento_id FROM magazzini WHERE id = ${id} FOR NO KEY UPDATE) g
      LEFT JOIN ubicazioni u ON u.id = g.ubicazione_ricevimento_id`);

export const setWarehouseLocations = (id: number, on: boolean) =>
  query<never>(Prisma.sql`UPDATE magazzini SET gestione_ubicazioni = ${on} WHERE id = ${id}`);

/** A location as a writer resolves it. */
export interface LocationRow {
  id: number;
  magazzino_id: number;
  codice: string;
  attiva: boolean;
}

/**
 * The locations named by (warehouse, code), with the shared gate (lock order 1b) of those goods go into,
 * taken by id ascending: the sorted subquery feeds the outer list row by row.
 */
export const locationsForWrite = (refs: { magazzino: number[]; codice: string[]; entrata: boolean[] }) =>
  query<LocationRow & { varco: string | null }>(Prisma.sql`
    SELECT s.id, s.magazzino_id, s.codice, COALESCE(r.attiva, s.attiva) AS attiva, g.varco
      FROM (SELECT u.id, u.magazzino_id, u.codice, u.attiva, bool_or(w.entrata) AS entrata
              FROM unnest(${refs.magazzino}::int[], ${refs.codice}::text[], ${refs.entrata}::bool[]) AS w(magazzino, codice, entrata)
              JOIN ubicazioni u ON u.magazzino_id = w.magazzino AND u.codice = w.codice
             GROUP BY u.id ORDER BY u.id) s
     CROSS JOIN LATERAL (SELECT CASE WHEN s.entrata THEN pg_advisory_xact_lock_shared(${LOCATION_GATE}::int, s.id)::text END AS varco) g
      -- After the gate, the row itself, locked: the statement's snapshot predates a wait on the gate, and a
      -- row lock reads the row as a deactivation queued ahead of us committed it (READ COMMITTED follows
      -- the update), so goods never go into a location deactivated meanwhile.
      LEFT JOIN LATERAL (SELECT l.attiva FROM ubicazioni l WHERE s.entrata AND g.varco IS NOT NULL AND l.id = s.id FOR SHARE) r ON true`);

/** The exclusive gate of one location (a complete count holds the location against loads until it commits). */
export const lockLocationExclusive = (id: number) =>
  query<{ varco: string }>(Prisma.sql`SELECT pg_advisory_xact_lock(${LOCATION_GATE}::int, ${id}::int)::text AS varco`);

// ---------------------------------------------------------------- location stock (lock order 4)

/** The guarded unload: no row comes back when the location holds less than asked of that article and lot. */
export const unloadLocation = (articolo: number, ubicazione: number, lotto: number | null, quantita: string) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE giacenze_ubicazioni SET quantita = quantita - ${quantita}::numeric, aggiornata_il = now()
     WHERE articolo_id = ${articolo} AND ubicazione_id = ${ubicazione} AND lotto_id IS NOT DISTINCT FROM ${lotto}::int
       AND quantita >= ${quantita}::numeric
    RETURNING id`);

/** Takes the row lock of a location's stock of an article and lot, when the row exists (a move's lower location first). */
export const lockLocationRow = (articolo: number, ubicazione: number, lotto: number | null) =>
  query<{ id: number }>(Prisma.sql`
    SELECT id FROM giacenze_ubicazioni
     WHERE articolo_id = ${articolo} AND ubicazione_id = ${ubicazione} AND lotto_id IS NOT DISTINCT FROM ${lotto}::int
       FOR UPDATE`);

/** What a location holds of an article and lot (no row: never held any). */
export const locationHolding = (articolo: number, ubicazione: number, lotto: number | null) =>
  query<{ quantita: Prisma.Decimal }>(Prisma.sql`
    SELECT quantita FROM giacenze_ubicazioni
     WHERE articolo_id = ${articolo} AND ubicazione_id = ${ubicazione} AND lotto_id IS NOT DISTINCT FROM ${lotto}::int`);

/**
 * Goods into a location: the row is created, or topped up; `caricata_il` restarts when it was empty, and
 * `arrivo_id` is cleared for the movement that fills it to set (trigger of migration 20261202100000).
 */
export const loadLocation = (articolo: number, magazzino: number, ubicazione: number, lotto: number | null, quantita: string) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, lotto_id, quantita)
    VALUES (${articolo}, ${magazzino}, ${ubicazione}, ${lotto}::int, ${quantita}::numeric)
    ON CONFLICT ON CONSTRAINT giacenze_ubicazioni_chiave DO UPDATE
      SET quantita = giacenze_ubicazioni.quantita + EXCLUDED.quantita, aggiornata_il = now(),
          caricata_il = CASE WHEN giacenze_ubicazioni.quantita = 0 THEN now() ELSE giacenze_ubicazioni.caricata_il END,
          arrivo_id = CASE WHEN giacenze_ubicazioni.quantita = 0 THEN NULL ELSE giacenze_ubicazioni.arrivo_id END
    RETURNING id`);

/** Undoes a lot change of a row refused later in the same transaction (the lot's row lock is already held). */
export const adjustLot = (id: number, delta: string) =>
  query<never>(Prisma.sql`UPDATE lotti SET residua = residua + ${delta}::numeric WHERE id = ${id}`);

/**
 * Drops a lot that holds nothing and that nothing names: one the refused row itself created (every other
 * lot came with a movement).
 */
export const dropUnusedLot = (id: number) =>
  query<never>(Prisma.sql`
    DELETE FROM lotti t WHERE t.id = ${id} AND t.residua = 0
       AND NOT EXISTS (SELECT 1 FROM movimenti m WHERE m.articolo_id = t.articolo_id AND m.lotto_id = t.id)
       AND NOT EXISTS (SELECT 1 FROM giacenze_ubicazioni s WHERE s.articolo_id = t.articolo_id AND s.lotto_id = t.id)`);

// ---------------------------------------------------------------- the switch

/**
 * What a warehouse holds, per (article, lot), to place in its receiving location: each lot's residual,
 * and what of the balance no lot explains (lot null). Read under the exclusive warehouse gate: no writer
 * of the warehouse is running.
 */
export const warehouseStockByLot = (magazzino: number) =>
  query<{ articolo: number; articolo_codice: string; lotto: number | null; lotto_codice: string | null; quantita: string }>(Prisma.sql`
    WITH g AS (SELECT articolo_id, quantita FROM giacenze WHERE magazzino_id = ${magazzino}),
         l AS (SELECT articolo_id, id, codice, residua FROM lotti WHERE magazzino_id = ${magazzino} AND residua <> 0)
    SELECT x.articolo, a.codice AS articolo_codice, x.lotto, x.lotto_codice, x.quantita::text AS quantita FROM (
      SELECT articolo_id AS articolo, id AS lotto, codice AS lotto_codice, residua AS quantita FROM l
      UNION ALL
      SELECT g.articolo_id, NULL, NULL, g.quantita - COALESCE((SELECT sum(residua) FROM l WHERE l.articolo_id = g.articolo_id), 0) FROM g
    ) x JOIN articoli a ON a.id = x.articolo
     WHERE x.quantita <> 0
     ORDER BY x.articolo, x.lotto_codice COLLATE "C" NULLS FIRST`);

/** What lies in the warehouse's locations, per (article, location, lot), above zero. */
export const warehouseLocationStock = (magazzino: number) =>
  query<{
    articolo: number;
    articolo_codice: string;
    ubicazione: number;
    ubicazione_codice: string;
    lotto: number | null;
    lotto_codice: string | null;
    quantita: string;
  }>(Prisma.sql`
    SELECT s.articolo_id AS articolo, a.codice AS articolo_codice, s.ubicazione_id AS ubicazione, u.codice AS ubicazione_codice,
           s.lotto_id AS lotto, t.codice AS lotto_codice, s.quantita::text AS quantita
      FROM giacenze_ubicazioni s
      JOIN articoli a ON a.id = s.articolo_id
      JOIN ubicazioni u ON u.id = s.ubicazione_id
      LEFT JOIN lotti t ON t.id = s.lotto_id
     WHERE s.magazzino_id = ${magazzino} AND s.quantita > 0
     ORDER BY s.articolo_id, s.ubicazione_id, t.codice COLLATE "C" NULLS FIRST`);

// ---------------------------------------------------------------- the ledger check (verify)

/** Location stock that differs from the sum of its movements (by article, location, lot). */
export const locationDifferences = () =>
  query<{ articolo: number; ubicazione: number; lotto: number | null; ledger: string; quantita: string }>(Prisma.sql`
    SELECT COALESCE(l.articolo_id, s.articolo_id) AS articolo, COALESCE(l.ubicazione_id, s.ubicazione_id) AS ubicazione,
           COALESCE(l.lotto_id, s.lotto_id) AS lotto, COALESCE(l.somma, 0)::text AS ledger, COALESCE(s.quantita, 0)::text AS quantita
      FROM (SELECT articolo_id, ubicazione_id, lotto_id, sum(quantita) AS somma FROM movimenti
             WHERE ubicazione_id IS NOT NULL GROUP BY 1, 2, 3) l
      FULL JOIN giacenze_ubicazioni s
        ON s.articolo_id = l.articolo_id AND s.ubicazione_id = l.ubicazione_id
       -- FULL JOIN needs an equality: no lot is 0 on both sides (ids start at 1).
       AND COALESCE(s.lotto_id, 0) = COALESCE(l.lotto_id, 0)
     WHERE COALESCE(l.somma, 0) <> COALESCE(s.quantita, 0)`);

/**
 * In a warehouse that manages locations, articles whose balance differs from the sum of their location
 * stock: a movement written there without its location (the switch's own transfers net to zero).
 */
export const unlocatedStock = () =>
  query<{ articolo: number; magazzino: number; saldo: string; ubicazioni: string }>(Prisma.sql`
    SELECT g.articolo_id AS articolo, g.magazzino_id AS magazzino, g.quantita::text AS saldo, COALESCE(s.somma, 0)::text AS ubicazioni
      FROM giacenze g
      JOIN magazzini w ON w.id = g.magazzino_id AND w.gestione_ubicazioni
      LEFT JOIN (SELECT articolo_id, magazzino_id, sum(quantita) AS somma FROM giacenze_ubicazioni GROUP BY 1, 2) s
        ON s.articolo_id = g.articolo_id AND s.magazzino_id = g.magazzino_id
     WHERE g.quantita <> COALESCE(s.somma, 0)`);

export const locationStockCount = () => query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM giacenze_ubicazioni`);

/** Undoes a location change of a row refused later in the same transaction (the row's lock is already held). */
export const adjustLocation = (articolo: number, ubicazione: number, lotto: number | null, delta: string) =>
  query<never>(Prisma.sql`
    UPDATE giacenze_ubicazioni SET quantita = quantita + ${delta}::numeric
     WHERE articolo_id = ${articolo} AND ubicazione_id = ${ubicazione} AND lotto_id IS NOT DISTINCT FROM ${lotto}::int`);

/** A location row a refused load leaves empty goes with it (its lot, created by the row, may then go too). */
export const dropEmptyLocation = (articolo: number, ubicazione: number, lotto: number | null) =>
  query<never>(Prisma.sql`
    DELETE FROM giacenze_ubicazioni
     WHERE articolo_id = ${articolo} AND ubicazione_id = ${ubicazione} AND lotto_id IS NOT DISTINCT FROM ${lotto}::int AND quantita = 0`);
