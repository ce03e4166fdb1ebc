import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import type { SearchArticlesInput } from "./catalogue.schemas";
import { containsPattern } from "../../lib/sql";
import * as q from "./catalogue.queries";

/**
 * The warehouses a screen offers: the active ones. An inactive warehouse is only not offered: writes that
 * name it are still accepted, so that its stock can be moved out and counted to zero.
 */
export async function listWarehouses(db: Db) {
  return db.magazzino.findMany({ where: { attivo: true }, orderBy: { codice: "asc" }, select: { id: true, codice: true, nome: true } });
}

/** Suppliers by name, each with how many of its orders still expect goods. */
export async function listSuppliers(db: Db) {
  return rows(db, q.suppliers());
}

/** Articles for pickers: an exact code or EAN first, then codes and descriptions containing the text. */
export async function searchArticles(db: Db, input: SearchArticlesInput) {
  const text = input.cerca;
  const pattern = containsPattern(text);
  return rows(db, q.articlesMatching(text, pattern, input.limite ?? 20));
}
