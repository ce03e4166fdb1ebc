import { Prisma } from "../../db/client";

/**
 * The stock writers' warehouse gate as a SQL fragment, not a statement of a queries file: the ledger locks it
 * alone (location-balances.queries.ts) and the article look-up folds it into its first statement
 * (catalogue/catalogue.queries.ts), so both import it from here.
 */

/** A warehouse as a stock writer sees it: whether it keeps stock by location, and where arrivals land. */
export interface WarehouseRow {
  id: number;
  gestione_ubicazioni: boolean;
  ubicazione_ricevimento_id: number | null;
  ubicazione_ricevimento: string | null;
}

/**
 * The warehouse gate, shared (lock order 1a), with what the writer needs of each warehouse. The gate is
 * the warehouse's ROW lock, FOR SHARE, taken by id: the switch (location-switch.service.ts) holds the row
 * exclusively, and a row lock that waited on it reads the row as the switch committed it (READ
 * COMMITTED re-reads a row it had to wait for), so the flag read here is never the one from before a
 * switch this writer queued behind; an advisory lock taken in the same statement would not be (the
 * statement's snapshot predates the wait). `FOR SHARE` does not conflict with the foreign keys' `FOR KEY
 * SHARE` of the movements and balances.
 */
export const SHARED_WAREHOUSE_GATE = (ids: number[]) => Prisma.sql`
  SELECT g.id, g.gestione_ubicazioni, g.ubicazione_ricevimento_id, u.codice AS ubicazione_ricevimento
    FROM (SELECT id, gestione_ubicazioni, ubicazione_ricevimento_id FROM magazzini
           WHERE id = ANY(${ids}::int[]) ORDER BY id FOR SHARE) g
    LEFT JOIN ubicazioni u ON u.id = g.ubicazione_ricevimento_id`;
