import { Prisma, type Db } from "../../db/client";
import { DomainError, RowError } from "../../lib/errors";

/** What a write needs to know about an article. */
export interface ArticleInfo {
  id: number;
  codice: string;
  ean: string | null;
  descrizione: string;
  gestione_lotti: boolean;
  ha_varianti: boolean;
  /** With `withPrice`: the suggested purchase price (SUGGESTED_PRICE). */
  prezzo_suggerito?: { toString(): string } | null;
}

/**
 * The suggested purchase price of article `a` (API.md section 5): the last arrival price, else the
 * last purchase-order price, else the standard cost, else null. COALESCE stops at the first value,
 * so the order lookup runs only for articles never received.
 */
export const SUGGESTED_PRICE = Prisma.sql`COALESCE(a.ultimo_prezzo_arrivo,
  (SELECT r.prezzo FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
    WHERE r.articolo_id = a.id ORDER BY o.data DESC, r.id DESC LIMIT 1),
  a.costo_standard)`;

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
  const found = await db.$queryRaw<{ id: number }[]>`SELECT id FROM magazzini WHERE id = ANY(${warehouseIds(fields)}::int[])`;
  assertWarehousesFound(fields, new Set(found.map((r) => r.id)));
}

/**
 * Loads every article the rows mention, by code and by EAN, in one query; with `withPrice`, each
 * with its suggested purchase price (last arrival, else last purchase order, else standard cost).
 * With `warehouses`, the same statement checks that the request's warehouses exist and refuses the
 * request (magazzino_non_trovato) when one does not: a write's first round trip does both.
 */
export async function loadArticles(db: Db, refs: ArticleRef[], opts: { withPrice?: boolean; warehouses?: WarehouseFields } = {}) {
  const codici = [...new Set(refs.flatMap((r) => (r.codice === undefined ? [] : [r.codice])))];
  const eans = [...new Set(refs.flatMap((r) => (r.ean === undefined ? [] : [r.ean])))];
  const price = opts.withPrice ? Prisma.sql`, ${SUGGESTED_PRICE} AS prezzo_suggerito` : Prisma.empty;
  // One row at least (the warehouses found), then one per article; the article columns are null when none matched.
  const found = await db.$queryRaw<(ArticleInfo & { magazzini_trovati: number[] })[]>`
    SELECT w.trovati AS magazzini_trovati, a.id, a.codice, a.ean, a.descrizione, a.gestione_lotti, a.ha_varianti ${price}
      FROM (SELECT coalesce(array_agg(id), '{}') AS trovati FROM magazzini WHERE id = ANY(${warehouseIds(opts.warehouses ?? {})}::int[])) w
      LEFT JOIN articoli a ON a.codice = ANY(${codici}::text[]) OR a.ean = ANY(${eans}::text[])`;
  if (opts.warehouses) assertWarehousesFound(opts.warehouses, new Set(found[0]?.magazzini_trovati ?? []));
  const rows: ArticleInfo[] = found.filter((r) => r.id !== null).map(({ magazzini_trovati: _, ...article }) => article);
  const byCode = new Map(rows.map((r) => [r.codice, r]));
  const byEan = new Map(rows.filter((r) => r.ean !== null).map((r) => [r.ean!, r]));
  const templates = rows.filter((r) => r.ha_varianti).map((r) => r.id);
  const variants = new Map<number, string[]>();
  if (templates.length > 0) {
    const vs = await db.$queryRaw<{ modello_id: number; codice: string }[]>`
      SELECT modello_id, codice FROM articoli WHERE modello_id = ANY(${templates}::int[]) ORDER BY codice`;
    for (const v of vs) variants.set(v.modello_id, [...(variants.get(v.modello_id) ?? []), v.codice]);
  }
  return { byCode, byEan, variants };
}

export type ArticleIndex = Awaited<ReturnType<typeof loadArticles>>;

/**
 * Resolves one row's reference to a stockable article, or refuses the row with the contract's code.
 * A template is never stocked: the refusal names its variants.
 */
export function resolveArticle(index: ArticleIndex, ref: ArticleRef): ArticleInfo {
  const byCode = ref.codice === undefined ? undefined : index.byCode.get(ref.codice);
  const byEan = ref.ean === undefined ? undefined : index.byEan.get(ref.ean);
  if (ref.codice !== undefined && !byCode)
    throw new RowError("articolo_non_trovato", `Nessun articolo con codice '${ref.codice}'.`);
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
