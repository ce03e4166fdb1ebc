import { MASTER_DATA_LOCKS, type MasterDataTable } from "../../db/advisory-locks";
import type { Db, Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { changes, hasKeys } from "../../lib/changes";
import { canonicalOrNull } from "../../lib/decimal";
import type { Written } from "../../lib/upsert-rows";
import * as q from "./master-data.queries";
import type { KnownArticle, KnownNamed } from "./master-data.queries";

export type { KnownArticle, KnownNamed } from "./master-data.queries";

/**
 * Writing the catalogue's master data, each entity upserted by its code: warehouses, suppliers, articles
 * with their variants. Each entity has a loader, which reads what the database holds of the codes at
 * hand, and one writer, which takes the database handle, target rows already checked and the loader's
 * result (the caller loads once, checks, then writes), and returns, for every row, its id and whether
 * it was created, updated or left as it was.
 *
 * The writers are the one write path of master data: the REST upserts (master-data-upsert.service.ts,
 * row by row checks) and the import (import-check.ts, whole-file checks) both end here. They decide
 * nothing a check should have refused, and they are set-based: a fixed number of statements per call
 * (one INSERT, one UPDATE of the rows that differ), never one per row. A row equal to what is stored
 * is not written at all, so a repeat changes no version. Clients are written by the clients module,
 * purchase orders by the orders module.
 */

export async function loadWarehousesByCode(db: Db, codes: string[]): Promise<Map<string, KnownNamed>> {
  return new Map((await rows(db, q.namedByCode("magazzini", codes))).map((m) => [m.codice, m]));
}

export async function loadSuppliersByCode(db: Db, codes: string[]): Promise<Map<string, KnownNamed>> {
  return new Map((await rows(db, q.namedByCode("fornitori", codes))).map((f) => [f.codice, f]));
}

/** A warehouse or supplier to write: a field left out keeps the stored value (a new row: `attivo` true). */
export interface NamedRow {
  codice: string;
  nome: string;
  attivo?: boolean;
}

/** Writes warehouses or suppliers: new codes inserted, known ones updated where a value differs. */
export async function writeNamed(
  tx: Tx,
  table: "magazzini" | "fornitori",
  items: NamedRow[],
  known: Map<string, KnownNamed>,
): Promise<Written> {
  const out: Written = new Map();
  const fresh: Required<NamedRow>[] = [];
  const changed: KnownNamed[] = [];
  for (const item of items) {
    const db = known.get(item.codice);
    const target = { codice: item.codice, nome: item.nome, attivo: item.attivo ?? db?.attivo ?? true };
    if (!db) fresh.push(target);
    else if (hasKeys(changes(db, target))) {
      changed.push({ id: db.id, ...target });
      out.set(item.codice, { id: db.id, esito: "aggiornato" });
    } else out.set(item.codice, { id: db.id, esito: "invariato" });
  }
  if (changed.length > 0) {
    await execute(
      tx,
      q.updateNamed(
        table,
        changed.map((c) => c.id),
        changed.map((c) => c.nome),
        changed.map((c) => c.attivo),
      ),
    );
  }
  if (fresh.length > 0) {
    const created = await rows(
      tx,
      q.insertNamed(
        table,
        fresh.map((f) => f.codice),
        fresh.map((f) => f.nome),
        fresh.map((f) => f.attivo),
      ),
    );
    for (const c of created) out.set(c.codice, { id: c.id, esito: "creato" });
  }
  return out;
}

/** Code → id of what was written, for callers that want only the ids. */
export const idsOf = (written: Written): Record<string, number> => Object.fromEntries([...written].map(([codice, w]) => [codice, w.id]));

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

/** What an article row should be after the write: every column. */
export interface ArticleRow {
  codice: string;
  descrizione: string;
  ean: string | null;
  unita: string;
  gestione_lotti: boolean;
  costo_standard: string | null;
  ha_varianti: boolean;
  attivo: boolean;
  /** Pack size, canonical decimal; absent keeps the stored one (a new article: 1). */
  confezione?: string;
  /** Take a new version even when no column differs: the article's preferred locations change with this write. */
  bump?: boolean;
  /**
   * Template code, null for a template or a plain article. The template is a known article or another
   * row of the same write, never itself a variant (the checks saw to it).
   */
  modello: string | null;
}

/**
 * Creates the articles `known` (by code) does not hold and updates those where a column differs. A
 * template named by a row becomes one (`ha_varianti`) if it was not. Statements: the row locks of the
 * articles that change, one UPDATE, one INSERT (two when a new variant's template is new too), one
 * UPDATE of the templates that were not yet templates.
 */
export async function writeArticles(tx: Tx, articles: ArticleRow[], known: Map<string, KnownArticle>): Promise<Written> {
  const out: Written = new Map();
  const inWrite = new Map(articles.map((a) => [a.codice, a]));
  const fresh = articles.filter((a) => !known.has(a.codice));
  const idOf = (code: string) => out.get(code)?.id ?? known.get(code)?.id;

  // Templates that must become templates though no row of this write says so.
  const promote = new Set<number>();
  for (const a of articles) {
    if (a.modello === null || inWrite.has(a.modello)) continue;
    const t = known.get(a.modello)!;
    if (!t.ha_varianti) promote.add(t.id);
  }
  const changed: { id: number; row: ArticleRow; modello_id: number | null }[] = [];
  for (const a of articles) {
    const db = known.get(a.codice);
    if (!db) continue;
    a.confezione ??= db.confezione;
    // A known article's new template is known too, or new in this write (linked once created, below).
    const modelloId = a.modello === null ? null : (known.get(a.modello)?.id ?? -1);
    const same =
      db.descrizione === a.descrizione &&
      db.ean === a.ean &&
      db.unita === a.unita &&
      db.gestione_lotti === a.gestione_lotti &&
      db.costo_standard === a.costo_standard &&
      db.modello_id === modelloId &&
      db.ha_varianti === a.ha_varianti &&
      db.attivo === a.attivo &&
      db.confezione === a.confezione &&
      !a.bump;
    out.set(a.codice, { id: db.id, esito: same ? "invariato" : "aggiornato" });
    if (!same) changed.push({ id: db.id, row: a, modello_id: modelloId });
  }

  const locked = [...changed.map((c) => c.id), ...promote];
  if (locked.length > 0) await execute(tx, q.lockArticles(locked));

  // New articles: those whose template is known (or none) first, then the variants of new templates.
  const first = fresh.filter((a) => a.modello === null || known.has(a.modello));
  const second = fresh.filter((a) => a.modello !== null && !known.has(a.modello));
  for (const batch of [first, second]) {
    if (batch.length === 0) continue;
    const created = await rows(
      tx,
      q.insertArticles({ ...columns(batch, (a) => (a.modello === null ? null : idOf(a.modello)!)), codice: batch.map((a) => a.codice) }),
    );
    for (const c of created) out.set(c.codice, { id: c.id, esito: "creato" });
  }
  if (changed.length > 0) {
    for (const c of changed) if (c.modello_id === -1) c.modello_id = idOf(c.row.modello!)!;
    const cols = columns(
      changed.map((c) => c.row),
      (_, i) => changed[i]!.modello_id,
    );
    await execute(
      tx,
      q.updateArticles(
        changed.map((c) => c.id),
        cols,
        changed.map((c) => c.row.bump === true),
      ),
    );
  }
  if (promote.size > 0) await execute(tx, q.markTemplates([...promote]));
  return out;
}

function columns(batch: ArticleRow[], modelloId: (a: ArticleRow, i: number) => number | null): Omit<q.ArticleColumns, "codice"> {
  return {
    descrizione: batch.map((a) => a.descrizione),
    ean: batch.map((a) => a.ean),
    unita: batch.map((a) => a.unita),
    gestione_lotti: batch.map((a) => a.gestione_lotti),
    costo_standard: batch.map((a) => a.costo_standard),
    modello_id: batch.map(modelloId),
    ha_varianti: batch.map((a) => a.ha_varianti),
    attivo: batch.map((a) => a.attivo),
    confezione: batch.map((a) => a.confezione ?? "1"),
  };
}

/** The lock of one master-data list's writers, held to commit: the clients' upsert takes it from here. */
export async function lockMasterData(tx: Tx, table: MasterDataTable): Promise<void> {
  await execute(tx, q.lockMasterData(table));
}

/**
 * The import's locks: imports run one at a time (the checks and the writes see one state), and it holds
 * every master-data table, in one order, so that no REST upsert writes between the check and the write.
 */
export async function lockForImport(tx: Tx): Promise<void> {
  await execute(tx, q.lockImports());
  for (const table of Object.keys(MASTER_DATA_LOCKS) as MasterDataTable[]) await execute(tx, q.lockMasterData(table));
}
