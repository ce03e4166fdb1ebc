import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * The statements of the locations' master data (API.md section 11): look-ups by (warehouse, code), the set-based
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
 * The location gate's class (design of issue 24, lock order 1b: a two-key advisory lock, the location id the
 * second key): shared by a writer that puts goods into a location, exclusive by whoever must see it stay empty
 * of new goods until commit (a complete count; here, a deactivation checking that it holds nothing).
 */
export const LOCATION_GATE = 0x5543;

/** The exclusive location gates of these locations, by id ascending. */
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
