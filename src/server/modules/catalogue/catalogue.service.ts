import type { Db } from "../../db/client";
import type { SearchArticlesInput } from "./catalogue.schemas";
import { containsPattern } from "../../lib/sql";

export async function listWarehouses(db: Db) {
  return db.magazzino.findMany({ orderBy: { codice: "asc" }, select: { id: true, codice: true, nome: true } });
}

/** Suppliers by name, each with how many of its orders still expect goods. */
export async function listSuppliers(db: Db) {
  const rows = await db.$queryRaw<{ id: number; codice: string; nome: string; ordini_aperti: number }[]>`
    SELECT f.id, f.codice, f.nome,
           (SELECT count(*) FROM ordini_acquisto o WHERE o.fornitore_id = f.id AND o.stato <> 'evaso')::int AS ordini_aperti
      FROM fornitori f ORDER BY f.nome, f.id`;
  return rows;
}

/** Articles for pickers: an exact code or EAN first, then codes and descriptions containing the text. */
export async function searchArticles(db: Db, input: SearchArticlesInput) {
  const text = input.cerca;
  const pattern = containsPattern(text);
  return db.$queryRaw<{ id: number; codice: string; ean: string | null; descrizione: string; gestione_lotti: boolean; ha_varianti: boolean }[]>`
    SELECT id, codice, ean, descrizione, gestione_lotti, ha_varianti
      FROM articoli
     WHERE codice ILIKE ${pattern} OR descrizione ILIKE ${pattern} OR ean = ${text}
     ORDER BY (upper(codice) = upper(${text}) OR ean = ${text}) DESC, codice
     LIMIT ${input.limite ?? 20}`;
}
