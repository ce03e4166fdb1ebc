import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import { SHARED_WAREHOUSE_GATE, type WarehouseRow } from "../ledger/warehouse-gate";

/** What a write needs to know about an article. */
export interface ArticleInfo {
  id: number;
  codice: string;
  ean: string | null;
  descrizione: string;
  gestione_lotti: boolean;
  ha_varianti: boolean;
  /** An inactive article stays in history and availability but is not ordered, received or sold. */
  attivo: boolean;
  /** With `withPrice`: the suggested purchase price (SUGGESTED_PRICE). */
  prezzo_suggerito?: { toString(): string } | null;
}

/**
 * The suggested purchase price of article `a` (docs/api.md section 5): the last arrival price, else the
 * last purchase-order price, else the standard cost, else null. COALESCE stops at the first value,
 * so the order lookup runs only for articles never received.
 */
export const SUGGESTED_PRICE = Prisma.sql`COALESCE(a.ultimo_prezzo_arrivo,
  (SELECT r.prezzo FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
    WHERE r.articolo_id = a.id ORDER BY o.data DESC, r.id DESC LIMIT 1),
  a.costo_standard)`;

/** Suppliers by name, each with how many of its orders still expect goods. */
export const suppliers = () =>
  query<{ id: number; codice: string; nome: string; ordini_aperti: number }>(Prisma.sql`
    SELECT f.id, f.codice, f.nome,
           (SELECT count(*) FROM ordini_acquisto o WHERE o.fornitore_id = f.id AND o.stato <> 'evaso')::int AS ordini_aperti
      FROM fornitori f
     -- An inactive supplier is no longer offered, unless goods are still expected from it.
     WHERE f.attivo OR EXISTS (SELECT 1 FROM ordini_acquisto o WHERE o.fornitore_id = f.id AND o.stato <> 'evaso')
     ORDER BY f.nome, f.id`);

/** Articles whose code or description contains `pattern`, or whose EAN is `text`; an exact code or EAN first. */
export const articlesMatching = (text: string, pattern: string, limite: number) =>
  query<{ id: number; codice: string; ean: string | null; descrizione: string; gestione_lotti: boolean; ha_varianti: boolean }>(Prisma.sql`
    SELECT id, codice, ean, descrizione, gestione_lotti, ha_varianti
      FROM articoli
     WHERE codice ILIKE ${pattern} OR descrizione ILIKE ${pattern} OR ean = ${text}
     ORDER BY (upper(codice) = upper(${text}) OR ean = ${text}) DESC, codice
     ${limit(limite)}`);

export const warehousesAmong = (ids: number[]) => query<{ id: number }>(Prisma.sql`SELECT id FROM magazzini WHERE id = ANY(${ids}::int[])`);

/**
 * The warehouses found among `warehouseIds` (one row at least), under their shared gate (lock order 1a,
 * SHARED_WAREHOUSE_GATE) and with their locations settings, then one row per article with one of the
 * codes or EANs; the article columns are null when none matched. With `withPrice`, each article with its
 * SUGGESTED_PRICE.
 */
export function articlesAndWarehouses(refs: { codici: string[]; eans: string[]; warehouseIds: number[] }, withPrice: boolean) {
  const price = withPrice ? Prisma.sql`, ${SUGGESTED_PRICE} AS prezzo_suggerito` : Prisma.empty;
  return query<ArticleInfo & { magazzini_trovati: WarehouseRow[] }>(Prisma.sql`
    SELECT w.trovati AS magazzini_trovati, a.id, a.codice, a.ean, a.descrizione, a.gestione_lotti, a.ha_varianti, a.attivo ${price}
      FROM (SELECT coalesce(jsonb_agg(to_jsonb(g)), '[]') AS trovati FROM (${SHARED_WAREHOUSE_GATE(refs.warehouseIds)}) g) w
      LEFT JOIN articoli a ON a.codice = ANY(${refs.codici}::text[]) OR a.ean = ANY(${refs.eans}::text[])`);
}

/** The variants of templates, by code. */
export const variantsOf = (templates: number[]) =>
  query<{ modello_id: number; codice: string }>(Prisma.sql`
    SELECT modello_id, codice FROM articoli WHERE modello_id = ANY(${templates}::int[]) ORDER BY codice`);

/** Articles by any of these codes or EANs (the lookup of typed or scanned references, resolveArticles). */
export const articlesByCodeOrEan = (codici: string[], eans: string[]) =>
  query<{ id: number; codice: string; ean: string | null; gestione_lotti: boolean; ha_varianti: boolean }>(Prisma.sql`
    SELECT id, codice, ean, gestione_lotti, ha_varianti FROM articoli
     WHERE codice = ANY(${codici}::text[]) OR ean = ANY(${eans}::text[])`);
