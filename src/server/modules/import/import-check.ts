import type { Db } from "../../db/client";
import { loadClientsByCode, type KnownClient } from "../clients/clients-upsert.service";
import { MAX_ORDER_ROWS_PER_CALL } from "../orders/orders.schemas";
import type { Located, LooseRef, ParsedFile, Problems } from "./import-parse";
import type { VariantInput } from "../catalogue/import.schemas";
import {
  type ArticleRow,
  type KnownArticle,
  type KnownNamed,
  loadArticlesByCode,
  loadSuppliersByCode,
  loadWarehousesByCode,
} from "../catalogue/master-data.service";

/**
 * Checking a parsed file as a whole, against itself and against the database, before anything is
 * written: every problem goes to `problems` with its path in the file. Existing orders are the orders'
 * upsert's to judge (POST /ordini-acquisto): the import reports its refusals when it writes.
 */

/** What the database holds of the codes, EANs and order numbers the file mentions. */
export interface ImportState {
  magazzini: Map<string, KnownNamed>;
  fornitori: Map<string, KnownNamed>;
  articoli: Map<string, KnownArticle>;
  articoliByEan: Map<string, KnownArticle>;
  /** Template id → its variants. */
  varianti: Map<number, KnownArticle[]>;
  clienti: Map<string, KnownClient>;
}

/** What an article row should be after the import, and where in the file that comes from. */
export interface ArticleTarget {
  at: string;
  /** The item whose lots and unit this article takes: itself, or its template for a variant. */
  definedAt: string;
  db: KnownArticle | undefined;
  row: ArticleRow;
}

export const emptyState = (): ImportState => ({
  magazzini: new Map(),
  fornitori: new Map(),
  articoli: new Map(),
  articoliByEan: new Map(),
  varianti: new Map(),
  clienti: new Map(),
});

export async function loadImportState(db: Db, file: ParsedFile): Promise<ImportState> {
  const { loose } = file;
  const codesOf = (section: "magazzini" | "fornitori" | "articoli", declared: LooseRef[]) => [
    ...new Set([...declared.map((d) => d.code), ...loose.references.filter((r) => r.section === section).map((r) => r.code)]),
  ];
  // One after the other: `db` may be a transaction, which is one connection.
  const magazzini = await loadWarehousesByCode(db, codesOf("magazzini", loose.magazzini));
  const fornitori = await loadSuppliersByCode(db, codesOf("fornitori", loose.fornitori));
  const articleCodes = codesOf("articoli", [...loose.articoli, ...loose.templates]);
  const articoli = await loadArticlesByCode(
    db,
    articleCodes,
    loose.eans.map((e) => e.code),
  );
  const clienti = await loadClientsByCode(
    db,
    file.clienti.map((c) => c.value.codice),
  );
  return { magazzini, fornitori, articoli: articoli.byCode, articoliByEan: articoli.byEan, varianti: articoli.variants, clienti };
}

/** Runs every check of the file; returns what each article should become, for the write. */
export function checkFile(file: ParsedFile, state: ImportState, problems: Problems): ArticleTarget[] {
  checkDuplicates(file, problems);
  checkEanOwners(file, state, problems);
  checkReferences(file, state, problems);
  const articles = articleTargets(file, state, problems);
  checkArticles(articles, problems);
  checkOrderSizes(file, problems);
  return articles;
}

function checkDuplicates({ loose }: ParsedFile, problems: Problems) {
  const unique = (refs: LooseRef[], label: string, field: string) => {
    const first = new Map<string, string>();
    for (const { at, code } of refs) {
      const seen = first.get(code);
      if (seen === undefined) first.set(code, at);
      else
        problems.push({
          campo: `${at}.${field}`,
          messaggio: `${label} '${code}' ripetuto: compare già in ${seen}; indicarlo una sola volta`,
        });
    }
  };
  unique(loose.magazzini, "codice", "codice");
  unique(loose.fornitori, "codice", "codice");
  unique(loose.clienti, "codice", "codice");
  unique(loose.articoli, "codice", "codice");
  unique(loose.ordini, "numero", "numero");
  unique(loose.eans, "EAN", "ean");
}

/** An EAN identifies one article: one already carried by another article in the database is refused. */
function checkEanOwners({ loose }: ParsedFile, state: ImportState, problems: Problems) {
  for (const { at, code, owner } of loose.eans) {
    const holder = state.articoliByEan.get(code);
    if (holder && owner !== undefined && holder.codice !== owner) {
      problems.push({ campo: `${at}.ean`, messaggio: `l'EAN '${code}' è già dell'articolo '${holder.codice}': correggerlo o toglierlo` });
    }
  }
}

/**
 * An article with `modello` is a variant of that template, as if listed in its `varianti`: of a template
 * in the file, it joins that template's variants; of a registered template, it takes that template's lots,
 * unit and cost, and the template becomes one if it was not (never one with movements or order rows).
 */
function flatVariants(file: ParsedFile, state: ImportState, problems: Problems) {
  const inFile = new Map(file.articoli.map((a) => [a.value.codice, a]));
  const ofFileTemplate = new Map<string, Located<VariantInput>[]>();
  const ofDbTemplate: { at: string; value: VariantInput; template: KnownArticle }[] = [];
  for (const a of file.articoli) {
    const { modello, gestione_lotti, unita, costo, ...rest } = a.value;
    if (modello === undefined) continue;
    const own = Object.entries({ gestione_lotti, unita, costo }).filter(([, v]) => v !== undefined);
    const problem = (field: string, messaggio: string) => problems.push({ campo: `${a.at}.${field}`, messaggio });
    for (const [k] of own) problem(k, `una variante prende ${k} dal modello '${modello}': toglierlo`);
    if (a.varianti.length > 0)
      problem("modello", "un articolo con varianti non può essere a sua volta una variante: togliere modello o varianti");
    const variant = { codice: rest.codice, ean: rest.ean, descrizione: rest.descrizione, attivo: rest.attivo };
    const inFileTemplate = inFile.get(modello);
    const db = state.articoli.get(modello);
    if (modello === rest.codice) {
      problem("modello", "un articolo non può essere variante di sé stesso");
    } else if (inFileTemplate) {
      if (inFileTemplate.value.modello !== undefined) {
        problem("modello", `'${modello}' è a sua volta una variante nel file: una variante non può fare da modello`);
      } else ofFileTemplate.set(modello, [...(ofFileTemplate.get(modello) ?? []), { at: a.at, value: variant }]);
    } else if (!db) {
      problem("modello", `modello '${modello}' sconosciuto: aggiungerlo in articoli o correggere il codice`);
    } else if (db.modello !== null) {
      problem("modello", `'${modello}' è una variante di '${db.modello}': una variante non può fare da modello`);
    } else if (!db.ha_varianti && (db.movimentato || db.ordinato)) {
      problem(
        "modello",
        `'${modello}' ha già ${db.movimentato ? "movimenti" : "righe d'ordine"}: non può diventare un modello con varianti (un modello non ha giacenza né ordini)`,
      );
    } else ofDbTemplate.push({ at: a.at, value: variant, template: db });
  }
  return { ofFileTemplate, ofDbTemplate };
}

function articleTargets(file: ParsedFile, state: ImportState, problems: Problems): ArticleTarget[] {
  const inFile = new Set(file.articoli.flatMap((a) => [a.value.codice, ...a.varianti.map((v) => v.value.codice)]));
  const targets: ArticleTarget[] = [];
  const flat = flatVariants(file, state, problems);
  for (const { at, value: v, template } of flat.ofDbTemplate) {
    const vdb = state.articoli.get(v.codice);
    targets.push({
      at,
      definedAt: at,
      db: vdb,
      row: {
        codice: v.codice,
        descrizione: v.descrizione ?? vdb?.descrizione ?? `${template.descrizione} ${v.codice}`,
        ean: v.ean !== undefined ? v.ean : (vdb?.ean ?? null),
        unita: template.unita,
        gestione_lotti: template.gestione_lotti,
        costo_standard: template.costo_standard,
        ha_varianti: false,
        attivo: v.attivo ?? vdb?.attivo ?? true,
        modello: template.codice,
      },
    });
  }
  for (const listed of file.articoli) {
    if (listed.value.modello !== undefined) continue;
    const a = { ...listed, varianti: [...listed.varianti, ...(flat.ofFileTemplate.get(listed.value.codice) ?? [])] };
    const { value } = a;
    const db = state.articoli.get(value.codice);
    const inherited = {
      unita: value.unita ?? db?.unita ?? "PZ",
      gestione_lotti: value.gestione_lotti ?? db?.gestione_lotti ?? false,
      costo_standard: value.costo !== undefined ? value.costo : (db?.costo_standard ?? null),
    };
    targets.push({
      at: a.at,
      definedAt: a.at,
      db,
      row: {
        codice: value.codice,
        descrizione: value.descrizione,
        ean: value.ean !== undefined ? value.ean : (db?.ean ?? null),
        ...inherited,
        ha_varianti: a.varianti.length > 0 || db?.ha_varianti === true,
        attivo: value.attivo ?? db?.attivo ?? true,
        modello: null,
      },
    });
    for (const v of a.varianti) {
      const vdb = state.articoli.get(v.value.codice);
      targets.push({
        at: v.at,
        definedAt: a.at,
        db: vdb,
        row: {
          codice: v.value.codice,
          descrizione: v.value.descrizione ?? vdb?.descrizione ?? `${value.descrizione} ${v.value.codice}`,
          ean: v.value.ean !== undefined ? v.value.ean : (vdb?.ean ?? null),
          ...inherited,
          ha_varianti: false,
          attivo: v.value.attivo ?? vdb?.attivo ?? true,
          modello: value.codice,
        },
      });
    }
    // Variants the file does not list still follow their template's lots, unit and cost.
    for (const v of db ? (state.varianti.get(db.id) ?? []) : []) {
      if (inFile.has(v.codice)) continue;
      targets.push({
        at: a.at,
        definedAt: a.at,
        db: v,
        row: {
          codice: v.codice,
          descrizione: v.descrizione,
          ean: v.ean,
          ...inherited,
          ha_varianti: false,
          attivo: v.attivo,
          modello: value.codice,
        },
      });
    }
  }
  return targets;
}

function checkArticles(targets: ArticleTarget[], problems: Problems) {
  for (const { at, definedAt, db, row } of targets) {
    if (!db) continue;
    if (row.modello === null && db.modello !== null) {
      problems.push({
        campo: `${at}.codice`,
        messaggio: `'${row.codice}' è una variante di '${db.modello}': elencarla in varianti di '${db.modello}', oppure usare un codice nuovo`,
      });
    } else if (row.modello !== null && db.ha_varianti) {
      problems.push({
        campo: `${at}.codice`,
        messaggio: `'${row.codice}' è un modello con varianti e non può diventare una variante di '${row.modello}': usare un codice nuovo`,
      });
    } else if (row.modello !== null && db.modello !== row.modello && db.movimentato) {
      problems.push({
        campo: `${at}.codice`,
        messaggio: `'${row.codice}' ha già movimenti ${db.modello ? `come variante di '${db.modello}'` : "come articolo senza varianti"}: non può diventare una variante di '${row.modello}'; usare un codice nuovo`,
      });
    }
    if (row.ha_varianti && !db.ha_varianti && db.modello === null && (db.movimentato || db.ordinato)) {
      problems.push({
        campo: `${at}.varianti`,
        messaggio: `'${row.codice}' ha già ${db.movimentato ? "movimenti" : "righe d'ordine"}: non può diventare un modello con varianti (un modello non ha giacenza né ordini); creare il modello con un codice nuovo`,
      });
    }
    // Stock already recorded was counted in lots and in this unit: changing either would change its meaning.
    const who = row.modello === null ? `'${row.codice}'` : `la variante '${row.codice}'`;
    if (row.gestione_lotti !== db.gestione_lotti && db.movimentato) {
      problems.push({
        campo: `${definedAt}.gestione_lotti`,
        messaggio: `${who} ha già movimenti ${db.gestione_lotti ? "a lotti" : "senza lotti"}: la gestione a lotti non si può più cambiare; lasciare ${db.gestione_lotti}`,
      });
    }
    if (row.unita !== db.unita && db.movimentato) {
      problems.push({
        campo: `${definedAt}.unita`,
        messaggio: `${who} ha già movimenti in ${db.unita}: l'unità di misura non si può più cambiare; lasciare "${db.unita}"`,
      });
    }
  }
}

function checkReferences({ loose }: ParsedFile, state: ImportState, problems: Problems) {
  const declared = {
    magazzini: new Set(loose.magazzini.map((r) => r.code)),
    fornitori: new Set(loose.fornitori.map((r) => r.code)),
    articoli: new Set(loose.articoli.map((r) => r.code)),
  };
  const what = { magazzini: "magazzino", fornitori: "fornitore", articoli: "articolo" } as const;
  for (const { at, code, section } of loose.references) {
    const db = state[section].get(code);
    if (!declared[section].has(code) && !db) {
      problems.push({ campo: at, messaggio: `${what[section]} '${code}' sconosciuto: aggiungerlo in ${section} o correggere il codice` });
      continue;
    }
    const article = section === "articoli" ? state.articoli.get(code) : undefined;
    if (section === "articoli" && (loose.modelli.has(code) || article?.ha_varianti)) {
      const inDb = article ? (state.varianti.get(article.id) ?? []).map((v) => v.codice) : [];
      const names = [...new Set([...(loose.modelli.get(code) ?? []), ...inDb])];
      problems.push({
        campo: at,
        messaggio: `l'articolo '${code}' ha varianti e non si ordina: indicare una variante (${names.join(", ")})`,
      });
    }
  }
}

/** An order is written by one call of the orders' upsert: no more rows than a call takes. */
function checkOrderSizes(file: ParsedFile, problems: Problems) {
  for (const o of file.ordini) {
    if (o.righe.length > MAX_ORDER_ROWS_PER_CALL) {
      problems.push({
        campo: `${o.at}.righe`,
        messaggio: `l'ordine '${o.value.numero}' ha ${o.righe.length} righe: al massimo ${MAX_ORDER_ROWS_PER_CALL} per ordine; dividerlo in più ordini`,
      });
    }
  }
}
