import type pg from "pg";
import { canonicalOrNull } from "../../src/server/lib/decimal";
import * as masterData from "../../src/server/modules/catalogue/master-data.queries";
import { inTransaction } from "./statements";

/**
 * POST /articoli, plain articles (catalogue/master-data-upsert.service.ts upsertArticleRows, writer
 * master-data.service.ts writeArticles), the statements of master-data.queries.ts in the service's
 * order: the table's advisory lock, the load by code and EAN, the row locks and one UPDATE of the rows
 * that differ, one INSERT of the new ones. Left out (ours): authentication, the row checks (codes,
 * fields, EAN owners, lots, templates), Prisma's transaction round trips, the JSON of 500 outcomes.
 */
export async function upsertArticles(
  c: pg.ClientBase,
  rows: { codice: string; descrizione: string; ean: string | null; costo: string | null }[],
): Promise<{ creati: number; aggiornati: number }> {
  const run = <R extends pg.QueryResultRow>(name: string, q: { sql: { text: string; values: unknown[] } }) =>
    c.query<R>({ name, text: q.sql.text, values: q.sql.values });
  return inTransaction(c, async () => {
    await run("md_lock", masterData.lockMasterData("articoli"));
    const codes = rows.map((r) => r.codice);
    const eans = rows.flatMap((r) => (r.ean ? [r.ean] : []));
    const loaded = await run<masterData.KnownArticle>("md_load", masterData.articlesByCodeOrEan(codes, eans));
    const known = new Map(loaded.rows.map((a) => [a.codice, a]));
    const fresh = rows.filter((r) => !known.has(r.codice));
    const changed = rows.filter((r) => {
      const k = known.get(r.codice);
      return k !== undefined && (k.descrizione !== r.descrizione || k.ean !== r.ean || canonicalOrNull(k.costo_standard) !== r.costo);
    });
    const cols = (batch: typeof rows) => ({
      descrizione: batch.map((r) => r.descrizione),
      ean: batch.map((r) => r.ean),
      unita: batch.map((r) => known.get(r.codice)?.unita ?? "PZ"),
      gestione_lotti: batch.map((r) => known.get(r.codice)?.gestione_lotti ?? false),
      costo_standard: batch.map((r) => r.costo),
      modello_id: batch.map((r) => known.get(r.codice)?.modello_id ?? null),
      ha_varianti: batch.map((r) => known.get(r.codice)?.ha_varianti ?? false),
      attivo: batch.map((r) => known.get(r.codice)?.attivo ?? true),
      confezione: batch.map((r) => known.get(r.codice)?.confezione ?? "1"),
    });
    if (changed.length > 0) {
      const ids = changed.map((r) => known.get(r.codice)!.id);
      await run("md_lock_rows", masterData.lockArticles(ids));
      await run(
        "md_update",
        masterData.updateArticles(
          ids,
          cols(changed),
          ids.map(() => false),
        ),
      );
    }
    if (fresh.length > 0) await run("md_insert", masterData.insertArticles({ ...cols(fresh), codice: fresh.map((r) => r.codice) }));
    return { creati: fresh.length, aggiornati: changed.length };
  });
}
