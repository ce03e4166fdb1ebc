import type { Db, Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { changes, hasKeys } from "../../lib/changes";
import { canonicalOrNull } from "../../lib/decimal";
import type { SupplierInput, WarehouseInput } from "./import.schemas";
import * as q from "./master-data.queries";
import type { KnownArticle } from "./master-data.queries";

/**
 * Writing the catalogue's master data, each entity upserted by its code: warehouses, suppliers, articles
 * with their variants. Each entity has a loader, which reads what the database holds of the codes at
 * hand, and one writer, which takes the database handle, rows already checked and the loader's result
 * (the caller loads once, checks, then writes), and returns code → id for every row written.
 * The writers decide nothing a check should have refused: the import checks a whole file first
 * (import-check.ts). Clients are written by the clients module, purchase orders by the orders module.
 */

/** A warehouse or a supplier as stored: a code and a name. */
export interface KnownNamed {
  id: number;
  codice: string;
  nome: string;
}

export async function loadWarehousesByCode(db: Db, codes: string[]): Promise<Map<string, KnownNamed>> {
  const found = await db.magazzino.findMany({ where: { codice: { in: codes } }, select: { id: true, codice: true, nome: true } });
  return new Map(found.map((m) => [m.codice, m]));
}

export async function loadSuppliersByCode(db: Db, codes: string[]): Promise<Map<string, KnownNamed>> {
  const found = await db.fornitore.findMany({ where: { codice: { in: codes } }, select: { id: true, codice: true, nome: true } });
  return new Map(found.map((f) => [f.codice, f]));
}

/** New warehouses are created, known ones renamed when the name differs. */
export function upsertWarehouses(tx: Tx, warehouses: WarehouseInput[], known: Map<string, KnownNamed>): Promise<Record<string, number>> {
  return upsertNamed(warehouses, known, {
    insert: (data) => tx.magazzino.createManyAndReturn({ data, select: { id: true, codice: true } }),
    rename: (id, nome) => tx.magazzino.update({ where: { id }, data: { nome }, select: { id: true } }),
  });
}

/** New suppliers are created, known ones renamed when the name differs. */
export function upsertSuppliers(tx: Tx, suppliers: SupplierInput[], known: Map<string, KnownNamed>): Promise<Record<string, number>> {
  return upsertNamed(suppliers, known, {
    insert: (data) => tx.fornitore.createManyAndReturn({ data, select: { id: true, codice: true } }),
    rename: (id, nome) => tx.fornitore.update({ where: { id }, data: { nome }, select: { id: true } }),
  });
}

async function upsertNamed(
  items: { codice: string; nome: string }[],
  existing: Map<string, { id: number; nome: string }>,
  ops: {
    insert: (rows: { codice: string; nome: string }[]) => Promise<{ id: number; codice: string }[]>;
    rename: (id: number, nome: string) => Promise<unknown>;
  },
): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  const fresh: { codice: string; nome: string }[] = [];
  for (const value of items) {
    const db = existing.get(value.codice);
    if (!db) fresh.push(value);
    else {
      ids[value.codice] = db.id;
      if (db.nome !== value.nome) await ops.rename(db.id, value.nome);
    }
  }
  if (fresh.length > 0) for (const c of await ops.insert(fresh)) ids[c.codice] = c.id;
  return ids;
}

/** The articles a write concerns, as the database holds them. */
interface KnownArticles {
  byCode: Map<string, KnownArticle>;
  byEan: Map<string, KnownArticle>;
  /** Template id → its variants, by code. */
  variants: Map<number, KnownArticle[]>;
}

/** The articles with these codes or EANs, and the variants of the templates among the codes. */
export async function loadArticlesByCode(db: Db, codes: string[], eans: string[]): Promise<KnownArticles> {
  const articoli = await rows(db, q.articlesByCodeOrEan(codes, eans));
  for (const a of articoli) a.costo_standard = canonicalOrNull(a.costo_standard);
  const variants = new Map<number, KnownArticle[]>();
  for (const a of [...articoli].sort((x, y) => (x.codice < y.codice ? -1 : 1))) {
    if (a.modello_id !== null) variants.set(a.modello_id, [...(variants.get(a.modello_id) ?? []), a]);
  }
  return {
    byCode: new Map(articoli.map((a) => [a.codice, a])),
    byEan: new Map(articoli.filter((a) => a.ean !== null).map((a) => [a.ean!, a])),
    variants,
  };
}

/** What an article row should be after the write. */
export interface ArticleRow {
  codice: string;
  descrizione: string;
  ean: string | null;
  unita: string;
  gestione_lotti: boolean;
  costo_standard: string | null;
  ha_varianti: boolean;
  /** Template code, null for a template or a plain article; the template is among the rows. */
  modello: string | null;
}

/**
 * Creates the articles `known` (by code) does not hold and updates the fields that differ on those it
 * does; a variant's lots, unit and cost are its template's, already copied into its row.
 */
export async function upsertArticles(tx: Tx, articles: ArticleRow[], known: Map<string, KnownArticle>): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  for (const a of articles) {
    const db = known.get(a.codice);
    if (db) ids[a.codice] = db.id;
  }
  const fresh = articles.filter((a) => !known.has(a.codice));
  // New articles in one statement (the sync gate on articoli is then taken once), templates unlinked:
  // a new variant's new template has no id yet, so the links follow in one update.
  if (fresh.length > 0) {
    const created = await tx.articolo.createManyAndReturn({
      data: fresh.map(({ modello: _modello, ...row }) => row),
      select: { id: true, codice: true },
    });
    for (const c of created) ids[c.codice] = c.id;
    const links = fresh.filter((a) => a.modello !== null);
    if (links.length > 0) {
      await execute(
        tx,
        q.linkVariants(
          links.map((a) => ids[a.codice]!),
          links.map((a) => ids[a.modello!]!),
        ),
      );
    }
  }
  for (const a of articles) {
    const db = known.get(a.codice);
    if (!db) continue;
    const { modello, ...row } = a;
    const diff = changes(db, { ...row, modello_id: modello === null ? null : ids[modello]! });
    if (hasKeys(diff)) await tx.articolo.update({ where: { id: db.id }, data: diff, select: { id: true } });
  }
  return ids;
}
