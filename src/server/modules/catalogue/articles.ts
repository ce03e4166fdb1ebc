import type { Db } from "../../db/client";
import { RowError } from "../../lib/errors";

/** What a write needs to know about an article. */
export interface ArticleInfo {
  id: number;
  codice: string;
  ean: string | null;
  descrizione: string;
  gestione_lotti: boolean;
  ha_varianti: boolean;
}

export interface ArticleRef {
  ean?: string;
  codice?: string;
}

/** Loads every article the rows mention, by code and by EAN, in one query. */
export async function loadArticles(db: Db, refs: ArticleRef[]) {
  const codici = [...new Set(refs.flatMap((r) => (r.codice === undefined ? [] : [r.codice])))];
  const eans = [...new Set(refs.flatMap((r) => (r.ean === undefined ? [] : [r.ean])))];
  const rows = await db.$queryRaw<ArticleInfo[]>`
    SELECT id, codice, ean, descrizione, gestione_lotti, ha_varianti
      FROM articoli WHERE codice = ANY(${codici}::text[]) OR ean = ANY(${eans}::text[])`;
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
