import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

export interface LabelArticleRow {
  id: number;
  codice: string;
  descrizione: string;
  ean: string | null;
}

export const articleById = (id: number) =>
  query<LabelArticleRow>(Prisma.sql`SELECT id, codice, descrizione, ean FROM articoli WHERE id = ${id}`);

export const warehouseById = (id: number) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM magazzini WHERE id = ${id}`);

export interface LabelLocationRow {
  codice: string;
  descrizione: string | null;
}

/** One location, or the range `da`..`a` of a warehouse by code (byte order, as codes sort everywhere else). */
export const locationsBetween = (magazzino: number, da: string, a: string, take: number) =>
  query<LabelLocationRow>(Prisma.sql`
    SELECT codice, descrizione FROM ubicazioni
     WHERE magazzino_id = ${magazzino} AND codice COLLATE "C" BETWEEN ${da} AND ${a}
     ORDER BY codice COLLATE "C"
     ${limit(take)}`);
