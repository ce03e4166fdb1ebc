import type { Tx } from "../../db/client";
import { execute } from "../../db/sql";
import { RowError } from "../../lib/errors";
import type { UpsertOutput } from "../../lib/upsert-rows";
import { articleRowCheck, namedRowCheck, type ArticleRowCheck } from "./master-data.schemas";
import * as q from "./master-data.queries";
import type { KnownArticle } from "./master-data.queries";
import { loadArticlesByCode, loadSuppliersByCode, writeArticles, writeNamed, type ArticleRow } from "./master-data.service";
import { loadPreferred, type Preferred, resolvePreferred, samePreferred, writePreferred } from "../locations/preferred-locations.service";
import { UpsertRows, type CheckedRow } from "../../lib/upsert-rows";

/**
 * POST /fornitori, /articoli (docs/api.md section 9; /magazzini: warehouses-upsert.service.ts): each row checked on its own and refused
 * with its code, nothing written for it; the rows that pass go to the same writers as the import
 * (master-data.service.ts), in a fixed number of statements. Each call holds its table's advisory lock
 * from the load to the commit, so two calls never create the same code nor give one EAN to two articles.
 */

/**
 * Suppliers: `nome` is required for a new code; `attivo` false hides them from the pickers. (Warehouses, which
 * also carry their locations settings, are warehouses-upsert.service.ts's.)
 */
export async function upsertSupplierRows(tx: Tx, input: Record<string, unknown>[]): Promise<UpsertOutput> {
  const table = "fornitori";
  const batch = new UpsertRows(input, namedRowCheck, table);
  await execute(tx, q.lockMasterData(table));
  const known = await loadSuppliersByCode(tx, batch.codes);
  const rows: { codice: string; nome: string; attivo?: boolean }[] = [];
  for (const { indice, value } of batch.accepted) {
    const db = known.get(value.codice);
    const nome = value.nome ?? db?.nome;
    if (nome === undefined) {
      batch.refuse(
        indice,
        value.codice,
        null,
        new RowError("campo_non_valido", `Riga ${indice} ('${value.codice}'): campo 'nome' obbligatorio per un fornitore nuovo.`),
      );
      continue;
    }
    rows.push({ codice: value.codice, nome, attivo: value.attivo });
  }
  return batch.answer(await writeNamed(tx, table, rows, known), (c) => known.get(c)?.id);
}

/**
 * Articles. What the contract leaves open, decided here:
 * - a new article takes `unita` PZ, `gestione_lotti` false and no cost, or, when it is a variant, its
 *   template's; afterwards each article's fields are its own (a template's change does not reach its
 *   variants: the import, whose file lists variants under their template, keeps them in step);
 * - `modello` names a template: a registered article or another row of the call, which is not itself a
 *   variant; the template becomes one (`ha_varianti`) if it was not, and it must then have neither
 *   movements nor order rows (a template is never stocked nor ordered); `ha_varianti` is never cleared:
 *   a template stays a template (as in the import);
 * - what the ledger has counted stays as counted: once an article has movements, `gestione_lotti`
 *   (gestione_lotti_bloccata), `unita` and `modello` can no longer change (campo_non_valido);
 * - an EAN held by another article is `ean_in_uso` even when the same call takes it away from that
 *   article: moving an EAN takes two calls (clear it, then give it).
 */
export async function upsertArticleRows(tx: Tx, input: Record<string, unknown>[]): Promise<UpsertOutput> {
  const batch = new UpsertRows(input, articleRowCheck, "articoli");
  await execute(tx, q.lockMasterData("articoli"));
  const accepted = batch.accepted;
  const codes = [...new Set([...batch.codes, ...accepted.flatMap((r) => (r.value.modello ? [r.value.modello] : []))])];
  const eans = accepted.flatMap((r) => (r.value.ean ? [r.value.ean] : []));
  const known = await loadArticlesByCode(tx, codes, eans);
  const refuse = (r: CheckedRow<ArticleRowCheck>, codice: ConstructorParameters<typeof RowError>[0], messaggio: string) =>
    batch.refuse(
      r.indice,
      r.value.codice,
      known.byCode.get(r.value.codice)?.id ?? null,
      new RowError(codice, `Riga ${r.indice} ('${r.value.codice}'): ${messaggio}`),
    );

  // Pass 1: each row against what it is and its own fields.
  const targets = new Map<string, { r: CheckedRow<ArticleRowCheck>; db: KnownArticle | undefined; row: ArticleRow }>();
  const eanTaken = new Map<string, string>();
  for (const r of accepted) {
    const v = r.value;
    const db = known.byCode.get(v.codice);
    if (!db && v.descrizione === undefined) {
      refuse(r, "campo_non_valido", "campo 'descrizione' obbligatorio per un articolo nuovo.");
      continue;
    }
    if (v.ean) {
      const holder = known.byEan.get(v.ean);
      const claimed = eanTaken.get(v.ean);
      if (holder && holder.codice !== v.codice) {
        refuse(r, "ean_in_uso", `l'EAN ${v.ean} è già dell'articolo '${holder.codice}': toglierlo da quello prima, o correggere l'EAN.`);
        continue;
      }
      if (claimed !== undefined) {
        refuse(
          r,
          "ean_in_uso",
          `l'EAN ${v.ean} è già dato all'articolo '${claimed}' in questa chiamata: ogni EAN identifica un solo articolo.`,
        );
        continue;
      }
    }
    if (db?.movimentato && v.gestione_lotti !== undefined && v.gestione_lotti !== db.gestione_lotti) {
      refuse(
        r,
        "gestione_lotti_bloccata",
        `l'articolo ha già movimenti ${db.gestione_lotti ? "a lotti" : "senza lotti"}: la gestione a lotti non si può più cambiare; lasciare ${db.gestione_lotti} o usare un codice nuovo.`,
      );
      continue;
    }
    if (db?.movimentato && v.unita !== undefined && v.unita !== db.unita) {
      refuse(
        r,
        "campo_non_valido",
        `campo 'unita': l'articolo ha già movimenti in ${db.unita}, l'unità di misura non si può più cambiare; lasciare "${db.unita}".`,
      );
      continue;
    }
    const modello = v.modello !== undefined ? v.modello : (db?.modello ?? null);
    if (modello !== null && modello === v.codice) {
      refuse(r, "campo_non_valido", "campo 'modello': un articolo non può essere variante di sé stesso.");
      continue;
    }
    if (db && modello !== db.modello) {
      if (db.movimentato) {
        refuse(
          r,
          "campo_non_valido",
          `campo 'modello': l'articolo ha già movimenti ${db.modello ? `come variante di '${db.modello}'` : "senza modello"}: il modello non si può più cambiare; usare un codice nuovo.`,
        );
        continue;
      }
      if (modello !== null && db.ha_varianti) {
        refuse(
          r,
          "campo_non_valido",
          `campo 'modello': l'articolo è un modello con varianti e non può diventare una variante di '${modello}'.`,
        );
        continue;
      }
    }
    if (v.ean) eanTaken.set(v.ean, v.codice);
    targets.set(v.codice, {
      r,
      db,
      row: {
        codice: v.codice,
        descrizione: v.descrizione ?? db!.descrizione,
        ean: v.ean !== undefined ? v.ean : (db?.ean ?? null),
        unita: v.unita ?? db?.unita ?? "PZ",
        gestione_lotti: v.gestione_lotti ?? db?.gestione_lotti ?? false,
        costo_standard: v.costo !== undefined ? v.costo : (db?.costo_standard ?? null),
        ha_varianti: db?.ha_varianti ?? false,
        attivo: v.attivo ?? db?.attivo ?? true,
        modello,
        confezione: v.confezione,
      },
    });
  }

  // Pass 2: the templates, as they will be after the call; a refusal may refuse the variants naming it.
  const refusedCodes = new Map(accepted.filter((r) => !targets.has(r.value.codice)).map((r) => [r.value.codice, r.indice]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [codice, t] of targets) {
      const { modello } = t.row;
      if (modello === null || (t.db && t.db.modello === modello)) continue;
      const problem = templateProblem(modello, targets, known.byCode, refusedCodes);
      if (problem) {
        refuse(t.r, problem[0], problem[1]);
        targets.delete(codice);
        refusedCodes.set(codice, t.r.indice);
        changed = true;
      }
    }
  }
  // A template named by a row becomes one; a new variant without its own lots, unit or cost takes its template's.
  for (const t of targets.values()) {
    const modello = t.row.modello;
    if (modello === null) continue;
    const tpl = targets.get(modello);
    if (tpl) tpl.row.ha_varianti = true;
    if (!t.db) {
      const source = tpl?.row ?? known.byCode.get(modello)!;
      const v = t.r.value;
      if (v.unita === undefined) t.row.unita = source.unita;
      if (v.gestione_lotti === undefined) t.row.gestione_lotti = source.gestione_lotti;
      if (v.costo === undefined) t.row.costo_standard = source.costo_standard;
      if (v.confezione === undefined) t.row.confezione = source.confezione;
    }
  }
  // Preferred locations: resolved (or the row refused) before anything is written; a changed list bumps the version.
  const preferred = await resolvePreferred(
    tx,
    new Map(
      [...targets.values()].flatMap((t) =>
        t.r.value.ubicazioni_preferite !== undefined ? [[t.r.indice, t.r.value.ubicazioni_preferite ?? []]] : [],
      ),
    ),
  );
  const stored = await loadPreferred(
    tx,
    [...targets.values()].flatMap((t) => (t.db && preferred.has(t.r.indice) ? [t.db.id] : [])),
  );
  for (const [codice, t] of targets) {
    const list = preferred.get(t.r.indice);
    if (list instanceof RowError) {
      refuse(t.r, list.codice as Parameters<typeof refuse>[1], list.message);
      targets.delete(codice);
    } else if (list && t.db && !samePreferred(list, stored.get(t.db.id) ?? [])) t.row.bump = true;
  }
  const written = await writeArticles(
    tx,
    [...targets.values()].map((t) => t.row),
    known.byCode,
  );
  const replaced = new Map<number, Preferred>();
  for (const t of targets.values()) {
    const list = preferred.get(t.r.indice);
    if (list instanceof RowError || list === undefined) continue;
    if (t.row.bump || (!t.db && list.length > 0)) replaced.set(written.get(t.row.codice)!.id, list);
  }
  await writePreferred(tx, replaced);
  return batch.answer(written, (c) => known.byCode.get(c)?.id);
}

type Targets = Map<string, { db: KnownArticle | undefined; row: ArticleRow }>;

/** Why `modello` cannot be a template after this call, if it cannot. */
function templateProblem(
  modello: string,
  targets: Targets,
  known: Map<string, KnownArticle>,
  refused: Map<string, number>,
): ["modello_non_trovato" | "campo_non_valido", string] | undefined {
  const inCall = targets.get(modello);
  const db = known.get(modello);
  if (!inCall && !db && refused.has(modello)) {
    return [
      "modello_non_trovato",
      `campo 'modello': il modello '${modello}' non esiste e la sua riga (${refused.get(modello)}) è stata rifiutata: correggere quella riga.`,
    ];
  }
  if (!inCall && !db) {
    return ["modello_non_trovato", `campo 'modello': l'articolo '${modello}' non esiste: registrarlo prima, o nella stessa chiamata.`];
  }
  const after = inCall?.row.modello ?? (inCall ? null : db!.modello);
  if (after !== null)
    return ["campo_non_valido", `campo 'modello': '${modello}' è una variante di '${after}', e una variante non può fare da modello.`];
  if (db && !db.ha_varianti && (db.movimentato || db.ordinato)) {
    return [
      "campo_non_valido",
      `campo 'modello': '${modello}' ha già ${db.movimentato ? "movimenti" : "righe d'ordine"} e non può diventare un modello (un modello non ha giacenza né ordini): indicare un altro modello o crearne uno nuovo.`,
    ];
  }
  return undefined;
}
