import type { Db } from "../../db/client";
import { rows as rowsOf } from "../../db/sql";
import { DomainError, RowError } from "../../lib/errors";
import { warehouseInfo } from "../ledger/location-balances.service";
import * as q from "./catalogue.queries";
import type { ArticleInfo } from "./catalogue.queries";

export type { ArticleInfo } from "./catalogue.queries";
/** The suggested purchase price of article `a`, a SQL fragment. */
export { SUGGESTED_PRICE } from "./catalogue.queries";

/**
 * The lookup rule for an article code typed or scanned on the operator's side (screens, the arrival
 * search): the code as written, or in upper case. Every import writes the codes the catalogue comes
 * with, and they are upper case (`VITE-TE-M6X40`); an operator types `vite-te-m6x40` on a handheld
 * that does not capitalise. The exact code wins when both exist. Both candidates are read through the
 * unique index on `codice`. An EAN is digits and needs no such rule.
 * Writes through the REST contract keep the exact `codice`: an integrator sends the code as it was
 * imported, and a write must never pick an article by a guess.
 */
export function codeCandidates(typed: string): string[] {
  const upper = typed.toUpperCase();
  return upper === typed ? [typed] : [typed, upper];
}

export interface ArticleRef {
  ean?: string;
  codice?: string;
}

/** Warehouses a request names, by field (`magazzino`, `magazzino_origine`); undefined when not given. */
export type WarehouseFields = Record<string, number | undefined>;

export function warehouseIds(fields: WarehouseFields): number[] {
  return Object.values(fields).filter((v): v is number => v !== undefined);
}

/** Refuses the request when a named warehouse is not among those found. */
export function assertWarehousesFound(fields: WarehouseFields, found: Set<number>): void {
  for (const [campo, id] of Object.entries(fields)) {
    if (id !== undefined && !found.has(id)) throw new DomainError("magazzino_non_trovato", `Il magazzino ${id} non esiste.`, { campo });
  }
}

/** Refuses the request when a warehouse it names does not exist. */
export async function assertWarehouses(db: Db, fields: WarehouseFields): Promise<void> {
  const found = await rowsOf(db, q.warehousesAmong(warehouseIds(fields)));
  assertWarehousesFound(fields, new Set(found.map((r) => r.id)));
}

/**
 * Loads every article the rows mention, by code and by EAN, in one query; with `withPrice`, each
 * with its suggested purchase price (last arrival, else last purchase order, else standard cost).
 * With `warehouses`, the same statement takes their shared gate (lock order 1a, ledger.service.ts), reads
 * their locations settings (`magazzini`) and refuses the request (magazzino_non_trovato) when one does not
 * exist: a write's first round trip does all of it.
 */
export async function loadArticles(db: Db, refs: ArticleRef[], opts: { withPrice?: boolean; warehouses?: WarehouseFields } = {}) {
  const codici = [...new Set(refs.flatMap((r) => (r.codice === undefined ? [] : [r.codice])))];
  const eans = [...new Set(refs.flatMap((r) => (r.ean === undefined ? [] : [r.ean])))];
  // One row at least (the warehouses found), then one per article; the article columns are null when none matched.
  const found = await rowsOf(
    db,
    q.articlesAndWarehouses({ codici, eans, warehouseIds: warehouseIds(opts.warehouses ?? {}) }, opts.withPrice ?? false),
  );
  const magazzini = new Map((found[0]?.magazzini_trovati ?? []).map((w) => [w.id, warehouseInfo(w)]));
  if (opts.warehouses) assertWarehousesFound(opts.warehouses, new Set(magazzini.keys()));
  const rows: ArticleInfo[] = found.filter((r) => r.id !== null).map(({ magazzini_trovati: _, ...article }) => article);
  const byCode = new Map(rows.map((r) => [r.codice, r]));
  const byEan = new Map(rows.filter((r) => r.ean !== null).map((r) => [r.ean!, r]));
  const templates = rows.filter((r) => r.ha_varianti).map((r) => r.id);
  const variants = new Map<number, string[]>();
  if (templates.length > 0) {
    const vs = await rowsOf(db, q.variantsOf(templates));
    for (const v of vs) variants.set(v.modello_id, [...(variants.get(v.modello_id) ?? []), v.codice]);
  }
  return { byCode, byEan, variants, magazzini };
}

export type ArticleIndex = Awaited<ReturnType<typeof loadArticles>>;

/**
 * Resolves one row's reference to a stockable article, or refuses the row with the contract's code.
 * A template is never stocked: the refusal names its variants.
 */
export function resolveArticle(index: ArticleIndex, ref: ArticleRef): ArticleInfo {
  const byCode = ref.codice === undefined ? undefined : index.byCode.get(ref.codice);
  const byEan = ref.ean === undefined ? undefined : index.byEan.get(ref.ean);
  if (ref.codice !== undefined && !byCode) throw new RowError("articolo_non_trovato", `Nessun articolo con codice '${ref.codice}'.`);
  if (ref.ean !== undefined && !byEan) throw new RowError("articolo_non_trovato", `Nessun articolo con EAN '${ref.ean}'.`);
  if (byCode && byEan && byCode.id !== byEan.id) {
    throw new RowError(
      "articolo_ambiguo",
      `Il codice '${ref.codice}' e l'EAN '${ref.ean}' indicano articoli diversi (${byCode.codice} e ${byEan.codice}): indicarne uno solo.`,
    );
  }
  const article = (byCode ?? byEan)!;
  if (article.ha_varianti) {
    const names = index.variants.get(article.id) ?? [];
    throw new RowError(
      "articolo_con_varianti",
      `L'articolo '${article.codice}' ha varianti e non si movimenta: indicare una variante (${names.join(", ") || "nessuna definita"}).`,
    );
  }
  return article;
}
