import { LOCATION_GATE } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * The statements of the locations' master data (docs/api.md section 11): look-ups by (warehouse, code), the set-based
 * writes of POST /ubicazioni and of the import, and what a deactivation must know.
 */

/** A location as a write compares it with what it is asked to write. */
export interface KnownLocation {
  id: number;
  magazzino_id: number;
  codice: string;
  descrizione: string | null;
  tipo: "ricevimento" | "stoccaggio" | "quarantena";
  attiva: boolean;
  /** It is its warehouse's receiving location. */
  ricevimento: boolean;
}

/** The locations with these (warehouse id, code) pairs, pair i of the two arrays together. */
export const locationsByKey = (warehouses: number[], codes: string[]) =>
  query<KnownLocation>(Prisma.sql`
    SELECT u.id, u.magazzino_id, u.codice, u.descrizione, u.tipo, u.attiva,
           coalesce(m.ubicazione_ricevimento_id = u.id, false) AS ricevimento
      FROM (SELECT DISTINCT * FROM unnest(${warehouses}::int[], ${codes}::text[])) AS k(magazzino_id, codice)
      JOIN ubicazioni u ON u.magazzino_id = k.magazzino_id AND u.codice = k.codice
      JOIN magazzini m ON m.id = u.magazzino_id`);

/**
 * The exclusive location gates of these locations, by id ascending (lock order 1b: the ledger's writers take it
 * shared to put goods into a location), for a deactivation that must see the location stay empty until commit.
 */
export const lockLocationGates = (ids: number[]) =>
  query<never>(Prisma.sql`
    SELECT pg_advisory_xact_lock(${LOCATION_GATE}::int, id)
      FROM (SELECT DISTINCT unnest(${ids}::int[]) AS id ORDER BY 1) AS g`);

/** What each of these locations holds above zero: how many (article, lot) rows, and their article codes. */
export const locationsHolding = (ids: number[]) =>
  query<{ ubicazione_id: number; articoli: string[] }>(Prisma.sql`
    SELECT g.ubicazione_id, array_agg(DISTINCT a.codice ORDER BY a.codice) AS articoli
      FROM giacenze_ubicazioni g JOIN articoli a ON a.id = g.articolo_id
     WHERE g.ubicazione_id = ANY(${ids}::int[]) AND g.quantita > 0
     GROUP BY g.ubicazione_id`);

export interface LocationColumns {
  descrizione: (string | null)[];
  tipo: string[];
  attiva: boolean[];
}

/** New locations, in one statement (the ids' gate, tag 10, is taken once). */
export const insertLocations = (warehouses: number[], codes: string[], c: LocationColumns) =>
  query<{ id: number; magazzino_id: number; codice: string }>(Prisma.sql`
    INSERT INTO ubicazioni (magazzino_id, codice, descrizione, tipo, attiva)
    SELECT * FROM unnest(${warehouses}::int[], ${codes}::text[], ${c.descrizione}::text[], ${c.tipo}::text[], ${c.attiva}::boolean[])
    RETURNING id, magazzino_id, codice`);

/** Changed locations, in one statement: only rows whose values differ are passed. */
export const updateLocations = (ids: number[], c: LocationColumns) =>
  query<never>(Prisma.sql`
    UPDATE ubicazioni t SET descrizione = u.descrizione, tipo = u.tipo, attiva = u.attiva
      FROM unnest(${ids}::int[], ${c.descrizione}::text[], ${c.tipo}::text[], ${c.attiva}::boolean[]) AS u(id, descrizione, tipo, attiva)
     WHERE t.id = u.id`);

/** The preferred locations of these articles. */
export const preferredOf = (articles: number[]) =>
  query<{ articolo_id: number; magazzino_id: number; ubicazione_id: number }>(Prisma.sql`
    SELECT articolo_id, magazzino_id, ubicazione_id FROM ubicazioni_preferite
     WHERE articolo_id = ANY(${articles}::int[]) ORDER BY articolo_id, magazzino_id`);

export const deletePreferred = (articles: number[]) =>
  query<never>(Prisma.sql`DELETE FROM ubicazioni_preferite WHERE articolo_id = ANY(${articles}::int[])`);

export const insertPreferred = (articles: number[], warehouses: number[], locations: number[]) =>
  query<never>(Prisma.sql`
    INSERT INTO ubicazioni_preferite (articolo_id, magazzino_id, ubicazione_id)
    SELECT * FROM unnest(${articles}::int[], ${warehouses}::int[], ${locations}::int[])`);

/** A warehouse's locations settings, as a write compares them. */
export interface WarehouseSettings {
  id: number;
  gestione_ubicazioni: boolean;
  ubicazione_ricevimento_id: number | null;
  ubicazione_ricevimento: string | null;
}

export const warehouseSettings = (ids: number[]) =>
  query<WarehouseSettings>(Prisma.sql`
    SELECT m.id, m.gestione_ubicazioni, m.ubicazione_ricevimento_id, u.codice AS ubicazione_ricevimento
      FROM magazzini m LEFT JOIN ubicazioni u ON u.id = m.ubicazione_ricevimento_id
     WHERE m.id = ANY(${ids}::int[])`);

/**
 * The rows of these warehouses, FOR NO KEY UPDATE by id: the warehouse gate (lock order 1a, exclusive) that an
 * UPDATE of them would take anyway, taken in id order as the stock writers take it shared.
 */
export const lockWarehouses = (ids: number[]) =>
  query<{ id: number }>(Prisma.sql`SELECT id FROM magazzini WHERE id = ANY(${ids}::int[]) ORDER BY id FOR NO KEY UPDATE`);

/** Sets the receiving locations of these warehouses, in one statement. */
export const setReceiving = (ids: number[], locations: (number | null)[]) =>
  query<never>(Prisma.sql`
    UPDATE magazzini m SET ubicazione_ricevimento_id = u.ubicazione
      FROM unnest(${ids}::int[], ${locations}::int[]) AS u(id, ubicazione)
     WHERE m.id = u.id`);

export const savepoint = () => query<never>(Prisma.sql`SAVEPOINT magazzino`);
export const releaseSavepoint = () => query<never>(Prisma.sql`RELEASE SAVEPOINT magazzino`);
export const rollbackToSavepoint = () => query<never>(Prisma.sql`ROLLBACK TO SAVEPOINT magazzino`);

/** Whether a warehouse holds anything: a balance other than zero, or goods in a location. */
export const warehouseHolding = (id: number) =>
  query<{ x: number }>(Prisma.sql`
    SELECT 1 AS x WHERE EXISTS (SELECT 1 FROM giacenze WHERE magazzino_id = ${id}::int AND quantita <> 0)
                     OR EXISTS (SELECT 1 FROM giacenze_ubicazioni WHERE magazzino_id = ${id}::int AND quantita > 0)`);
