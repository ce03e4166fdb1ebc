import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** The statements of a warehouse's locations settings (POST /magazzini, docs/api.md section 11). */

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
