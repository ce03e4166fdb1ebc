import type { ModelDb } from "../../db/client";
import { rows } from "../../db/sql";
import { eanCandidates, parseScan } from "../../../lib/barcode";
import { codeCandidates } from "./articles";
import type { ResolveArticlesInput, ResolveArticlesOutput, SearchArticlesInput } from "./catalogue.schemas";
import { containsPattern } from "../../lib/sql";
import * as q from "./catalogue.queries";

/**
 * The warehouses a screen offers: the active ones. An inactive warehouse is only not offered: writes that
 * name it are still accepted, so that its stock can be moved out and counted to zero.
 */
export async function listWarehouses(db: ModelDb) {
  return db.magazzino.findMany({ where: { attivo: true }, orderBy: { codice: "asc" }, select: { id: true, codice: true, nome: true } });
}

/** Suppliers by name, each with how many of its orders still expect goods. */
export async function listSuppliers(db: ModelDb) {
  return rows(db, q.suppliers());
}

/** Articles for pickers: an exact code or EAN first, then codes and descriptions containing the text. */
export async function searchArticles(db: ModelDb, input: SearchArticlesInput) {
  const text = input.cerca;
  const pattern = containsPattern(text);
  return rows(db, q.articlesMatching(text, pattern, input.limite ?? 20));
}

/**
 * What the operator typed or scanned, to the article it names, by the one lookup rule of the screens:
 * an article code as written or in upper case (codeCandidates; the exact code wins), else an EAN
 * (GTIN-14 with leading zeros included) or the GTIN of a GS1 string. Null when nothing matches (an
 * order label R<riga> names a row, not an article). Two queries for any number of references.
 */
export async function resolveArticles(db: ModelDb, input: ResolveArticlesInput): Promise<ResolveArticlesOutput> {
  const letture = input.letture.map((l) => l.trim());
  const gtinOf = (l: string) => {
    const scan = parseScan(l);
    return scan.kind === "ean" || scan.kind === "gs1" ? scan.gtin : undefined;
  };
  const codici = [...new Set(letture.flatMap(codeCandidates))];
  const eans = [
    ...new Set(
      letture.flatMap((l) => {
        const gtin = gtinOf(l);
        return gtin === undefined ? [] : eanCandidates(gtin);
      }),
    ),
  ];
  const found = await rows(db, q.articlesByCodeOrEan(codici, eans));
  const byCode = new Map(found.map((a) => [a.codice, a]));
  const byEan = new Map(found.filter((a) => a.ean !== null).map((a) => [a.ean!, a]));
  const firstFound = <T>(keys: string[], map: Map<string, T>) => keys.map((k) => map.get(k)).find((a) => a !== undefined);
  return {
    articoli: letture.map((lettura) => {
      const gtin = gtinOf(lettura);
      const article =
        firstFound(codeCandidates(lettura), byCode) ?? (gtin === undefined ? undefined : firstFound(eanCandidates(gtin), byEan));
      if (!article) return { lettura, articolo: null };
      const { id, codice, gestione_lotti, ha_varianti } = article;
      return { lettura, articolo: { id, codice, gestione_lotti, ha_varianti } };
    }),
  };
}
