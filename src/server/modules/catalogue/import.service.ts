import type { z } from "zod";
import type { Db, PrismaClient, Tx } from "../../db/client";
import { inTransaction } from "../../db/transaction";
import { businessDate, dateFromIso, formatDate } from "../../lib/dates";
import { canonical, canonicalOrNull } from "../../lib/decimal";
import { DomainError, type FieldProblem } from "../../lib/errors";
import { NUL_MESSAGE, nulPaths } from "../../lib/nul";
import { clientFields } from "../clients/clients.service";
import {
  articleInput,
  clientInput,
  importFileInput,
  orderInput,
  orderRowInput,
  supplierInput,
  variantInput,
  warehouseInput,
  type ArticleInput,
  type ClientInput,
  type ImportIds,
  type OrderInput,
  type OrderRowInput,
  type SupplierInput,
  type VariantInput,
  type WarehouseInput,
} from "./import.schemas";

/**
 * Master data import (API.md section 6): warehouses, articles with variants, suppliers, clients and
 * purchase orders, referenced by code (orders by number), upserted in one transaction.
 *
 * The whole file is checked before anything is written, and every problem is reported with its path
 * in the file (`articoli[3].varianti[0].ean`), so the operator fixes the file in one round.
 *
 * A re-import is an upsert by code, and importing the same file twice changes nothing. With changed
 * values:
 * - descriptive fields (names, descriptions, EAN, cost, client contact fields) are updated; a field
 *   absent from the file is left as it is, `null` clears it;
 * - an order whose number already exists is left as it is (its rows may have arrivals), and a
 *   difference from the file is reported as a warning, not a problem;
 * - variants inherit lots, unit and cost from their template, so changing them on the template changes
 *   every variant, listed in the file or not;
 * - the import never deletes: variants missing from the file stay, a template stays a template;
 * - structure, lots and unit follow the ledger: once an article has movements its `gestione_lotti` and
 *   `unita` cannot change, it cannot become a template or move to another template; an article on order rows
 *   cannot become a template either (a template is never stocked nor ordered). A variant listed as a
 *   stand-alone article is refused: the file must list it under its template.
 */

/** Serialises imports (and the demo seeding, which imports): the checks and the writes see one state. */
const IMPORT_LOCK = 7_246_301_010;

type Problems = FieldProblem[];

interface Located<T> {
  value: T;
  /** Path of the item in the file, e.g. `articoli[3]`. */
  at: string;
}

interface ParsedFile {
  magazzini: Located<WarehouseInput>[];
  fornitori: Located<SupplierInput>[];
  clienti: Located<ClientInput>[];
  articoli: (Located<Omit<ArticleInput, "varianti">> & { varianti: Located<VariantInput>[] })[];
  ordini: (Located<Omit<OrderInput, "righe">> & { righe: Located<OrderRowInput>[] })[];
  loose: LooseFile;
}

/** A string found at a path of the file. */
interface LooseRef {
  at: string;
  code: string;
}

/**
 * Codes, EANs and references read from every item, whether it parsed or not: duplicates and unknown
 * references are reported even beside a type error in the same item, and a reference to an item with
 * a typo in another field is not reported a second time as unknown.
 */
interface LooseFile {
  magazzini: LooseRef[];
  fornitori: LooseRef[];
  clienti: LooseRef[];
  /** Articles and variants. */
  articoli: LooseRef[];
  ordini: LooseRef[];
  eans: (LooseRef & { owner: string | undefined })[];
  /** Template code → its variant codes. */
  modelli: Map<string, string[]>;
  references: (LooseRef & { section: "magazzini" | "fornitori" | "articoli" })[];
}

interface DbArticle {
  id: number;
  codice: string;
  ean: string | null;
  descrizione: string;
  unita: string;
  gestione_lotti: boolean;
  costo_standard: string | null;
  modello_id: number | null;
  modello: string | null;
  ha_varianti: boolean;
  movimentato: boolean;
  ordinato: boolean;
}

type DbClient = Awaited<ReturnType<typeof loadClients>>[number];

interface DbOrder {
  id: number;
  fornitore: string;
  magazzino: string;
  data: string;
  righe: { articolo: string; ordinata: string; prezzo: string }[];
}

interface DbState {
  magazzini: Map<string, { id: number; nome: string }>;
  fornitori: Map<string, { id: number; nome: string }>;
  articoli: Map<string, DbArticle>;
  articoliByEan: Map<string, DbArticle>;
  /** Template id → its variants. */
  varianti: Map<number, DbArticle[]>;
  clienti: Map<string, DbClient>;
  ordini: Map<string, DbOrder>;
}

/** What an article row should be after the import. */
interface ArticleTarget {
  at: string;
  /** The item whose lots and unit this article takes: itself, or its template for a variant. */
  definedAt: string;
  db: DbArticle | undefined;
  row: {
    codice: string;
    descrizione: string;
    ean: string | null;
    unita: string;
    gestione_lotti: boolean;
    costo_standard: string | null;
    ha_varianti: boolean;
    /** Template code, null for a template or a plain article. */
    modello: string | null;
  };
}

interface ImportPlan {
  file: ParsedFile;
  state: DbState;
  articles: ArticleTarget[];
}

interface Analysis {
  problemi: Problems;
  avvisi: Problems;
  plan: ImportPlan;
}

export interface ImportOutcome {
  ids: ImportIds;
  /** Not problems: what the import deliberately left as it was (an existing order that differs). */
  avvisi: FieldProblem[];
}

/** Checks a whole file against itself and the database; writes nothing. */
export async function validateImport(data: unknown, db: Db): Promise<{ problemi: FieldProblem[]; avvisi: FieldProblem[] }> {
  const { problemi, avvisi } = await analyseImport(db, data);
  return { problemi, avvisi };
}

/**
 * Validates, then writes everything in one transaction. Any problem: a DomainError whose `dettagli`
 * list every problem (`campo` is the path in the file), and nothing is written.
 */
export async function importMasterData(prisma: PrismaClient, data: unknown, opts: { timeZone: string }): Promise<ImportOutcome> {
  // A large catalogue takes longer than a request: the transaction gets minutes, not seconds.
  return inTransaction(prisma, (tx) => importInTransaction(tx, data, opts), { timeout: 300_000 });
}

/** The import inside a caller's transaction (the demo seeding imports and writes stock in one). */
export async function importInTransaction(tx: Tx, data: unknown, opts: { timeZone: string }): Promise<ImportOutcome> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${IMPORT_LOCK}::bigint)`;
  const { problemi, avvisi, plan } = await analyseImport(tx, data);
  if (problemi.length > 0) {
    throw new DomainError(
      "richiesta_non_valida",
      `Il file contiene ${problemi.length === 1 ? "un problema" : `${problemi.length} problemi`}: nulla è stato importato. Correggerli e ripetere l'importazione.`,
      { dettagli: problemi },
    );
  }
  return { ids: await writeImport(tx, plan, opts.timeZone), avvisi };
}

async function analyseImport(db: Db, data: unknown): Promise<Analysis> {
  const problemi: Problems = [];
  const avvisi: Problems = [];
  const file = parseFile(data, problemi);
  // Text with U+0000 cannot even be looked up in the database: the file is refused before reading it.
  const nul = nulPaths(data);
  if (nul.length > 0) {
    problemi.push(...nul.map((path) => ({ campo: pathOf("", path), messaggio: NUL_MESSAGE })));
    return { problemi: sortByPath(problemi), avvisi, plan: { file, state: emptyState(), articles: [] } };
  }
  const state = await loadState(db, file);
  checkDuplicates(file, problemi);
  checkEanOwners(file, state, problemi);
  checkReferences(file, state, problemi);
  const articles = articleTargets(file, state);
  checkArticles(articles, state, problemi);
  warnExistingOrders(file, state, avvisi);
  return { problemi: sortByPath(problemi), avvisi: sortByPath(avvisi), plan: { file, state, articles } };
}

// ---------------------------------------------------------------- parsing

function pathOf(base: string, keys: readonly PropertyKey[]): string {
  let s = base;
  for (const k of keys) s = typeof k === "number" ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k);
  return s || "file";
}

function parseAt<S extends z.ZodType>(schema: S, value: unknown, at: string, problems: Problems): z.output<S> | undefined {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  for (const issue of r.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({ campo: pathOf(at, [...issue.path, key]), messaggio: "campo non previsto: toglierlo o correggerne il nome" });
      }
    } else {
      problems.push({ campo: pathOf(at, issue.path), messaggio: issue.message });
    }
  }
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const arrayIn = (v: unknown, key: string): unknown[] => (isRecord(v) && Array.isArray(v[key]) ? v[key] : []);
const stringIn = (v: unknown, key: string): string | undefined => (isRecord(v) && typeof v[key] === "string" ? v[key].trim() : undefined);

/** Parses each item of a section with its schema; nested lists are parsed item by item by `nested`. */
function parseSection<S extends z.ZodType, N>(
  data: unknown,
  section: string,
  schema: S,
  problems: Problems,
  nested?: { key: string; schema: z.ZodType<N> },
): (Located<z.output<S>> & { nested: Located<N>[] })[] {
  const out: (Located<z.output<S>> & { nested: Located<N>[] })[] = [];
  arrayIn(data, section).forEach((item, i) => {
    const at = `${section}[${i}]`;
    const value = parseAt(schema, item, at, problems);
    // Nested items are checked even when their parent is not, so every problem shows in one pass.
    const children = nested
      ? arrayIn(item, nested.key).flatMap((child, j) => {
          const cat = `${at}.${nested.key}[${j}]`;
          const parsed = parseAt(nested.schema, child, cat, problems);
          return parsed === undefined ? [] : [{ value: parsed, at: cat }];
        })
      : [];
    if (value !== undefined) out.push({ value, at, nested: children });
  });
  return out;
}

function readLoose(data: unknown): LooseFile {
  const codes = (section: string, key = "codice") =>
    arrayIn(data, section).flatMap((item, i) => {
      const code = stringIn(item, key);
      return code === undefined ? [] : [{ at: `${section}[${i}]`, code }];
    });
  const loose: LooseFile = {
    magazzini: codes("magazzini"),
    fornitori: codes("fornitori"),
    clienti: codes("clienti"),
    articoli: [],
    ordini: codes("ordini", "numero"),
    eans: [],
    modelli: new Map(),
    references: [],
  };
  arrayIn(data, "articoli").forEach((article, i) => {
    const items = [{ item: article, at: `articoli[${i}]` }, ...arrayIn(article, "varianti").map((item, j) => ({ item, at: `articoli[${i}].varianti[${j}]` }))];
    for (const { item, at } of items) {
      const code = stringIn(item, "codice");
      const ean = stringIn(item, "ean");
      if (code !== undefined) loose.articoli.push({ at, code });
      if (ean !== undefined) loose.eans.push({ at, code: ean, owner: code });
    }
    const code = stringIn(article, "codice");
    const variants = items.slice(1).flatMap(({ item }) => stringIn(item, "codice") ?? []);
    if (code !== undefined && items.length > 1) loose.modelli.set(code, variants);
  });
  arrayIn(data, "ordini").forEach((order, i) => {
    const at = `ordini[${i}]`;
    for (const [key, section] of [["fornitore", "fornitori"], ["magazzino", "magazzini"]] as const) {
      const code = stringIn(order, key);
      if (code !== undefined) loose.references.push({ at: `${at}.${key}`, code, section });
    }
    arrayIn(order, "righe").forEach((row, j) => {
      const code = stringIn(row, "articolo");
      if (code !== undefined) loose.references.push({ at: `${at}.righe[${j}].articolo`, code, section: "articoli" });
    });
  });
  return loose;
}

function parseFile(data: unknown, problems: Problems): ParsedFile {
  parseAt(importFileInput, data, "", problems);
  return {
    magazzini: parseSection(data, "magazzini", warehouseInput, problems),
    fornitori: parseSection(data, "fornitori", supplierInput, problems),
    clienti: parseSection(data, "clienti", clientInput, problems),
    articoli: parseSection(data, "articoli", articleInput, problems, { key: "varianti", schema: variantInput }).map(
      ({ value: { varianti: _list, ...value }, at, nested }) => ({ value, at, varianti: nested }),
    ),
    ordini: parseSection(data, "ordini", orderInput, problems, { key: "righe", schema: orderRowInput }).map(
      ({ value: { righe: _list, ...value }, at, nested }) => ({ value, at, righe: nested }),
    ),
    loose: readLoose(data),
  };
}

/** File order: by section name, then by row number (numbers compared as numbers). */
function sortByPath(problems: Problems): Problems {
  const key = (p: FieldProblem) => p.campo.replace(/\d+/g, (n) => n.padStart(10, "0"));
  return problems.map((p) => ({ p, k: key(p) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map(({ p }) => p);
}

// ---------------------------------------------------------------- database state

async function loadClients(db: Db, codici: string[]) {
  return db.cliente.findMany({
    where: { codice: { in: codici } },
    select: clientFields,
  });
}

const emptyState = (): DbState => ({
  magazzini: new Map(),
  fornitori: new Map(),
  articoli: new Map(),
  articoliByEan: new Map(),
  varianti: new Map(),
  clienti: new Map(),
  ordini: new Map(),
});

async function loadState(db: Db, file: ParsedFile): Promise<DbState> {
  const { loose } = file;
  const codesOf = (section: "magazzini" | "fornitori" | "articoli", declared: LooseRef[]) => [
    ...new Set([...declared.map((d) => d.code), ...loose.references.filter((r) => r.section === section).map((r) => r.code)]),
  ];
  const articleCodes = codesOf("articoli", loose.articoli);

  // One after the other: `db` may be a transaction, which is one connection.
  const magazzini = await db.magazzino.findMany({
    where: { codice: { in: codesOf("magazzini", loose.magazzini) } },
    select: { id: true, codice: true, nome: true },
  });
  const fornitori = await db.fornitore.findMany({
    where: { codice: { in: codesOf("fornitori", loose.fornitori) } },
    select: { id: true, codice: true, nome: true },
  });
  // The variants of every template mentioned come along: they inherit from it and name it in messages.
  const articoli = await db.$queryRaw<DbArticle[]>`
    SELECT a.id, a.codice, a.ean, a.descrizione, a.unita, a.gestione_lotti, a.costo_standard::text AS costo_standard,
           a.modello_id, m.codice AS modello, a.ha_varianti,
           EXISTS (SELECT 1 FROM movimenti WHERE articolo_id = a.id) AS movimentato,
           EXISTS (SELECT 1 FROM righe_ordine WHERE articolo_id = a.id) AS ordinato
      FROM articoli a LEFT JOIN articoli m ON m.id = a.modello_id
     WHERE a.codice = ANY(${articleCodes}::text[]) OR a.ean = ANY(${loose.eans.map((e) => e.code)}::text[])
        OR a.modello_id IN (SELECT id FROM articoli WHERE codice = ANY(${articleCodes}::text[]) AND ha_varianti)`;
  const clienti = await loadClients(db, file.clienti.map((c) => c.value.codice));
  // Flat queries: Prisma loads nested relations concurrently, which a transaction's one connection queues.
  const numeri = file.ordini.map((o) => o.value.numero);
  const ordini = await db.$queryRaw<{ id: number; numero: string; data: Date; fornitore: string; magazzino: string }[]>`
    SELECT o.id, o.numero, o.data, f.codice AS fornitore, m.codice AS magazzino
      FROM ordini_acquisto o JOIN fornitori f ON f.id = o.fornitore_id JOIN magazzini m ON m.id = o.magazzino_id
     WHERE o.numero = ANY(${numeri}::text[])`;
  const righe = await db.$queryRaw<{ ordine_id: number; articolo: string; ordinata: string; prezzo: string }[]>`
    SELECT r.ordine_id, a.codice AS articolo, r.ordinata::text AS ordinata, r.prezzo::text AS prezzo
      FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id
     WHERE r.ordine_id = ANY(${ordini.map((o) => o.id)}::int[])
     ORDER BY r.ordine_id, r.posizione`;
  const rowsOf = new Map<number, DbOrder["righe"]>();
  for (const r of righe) {
    rowsOf.set(r.ordine_id, [...(rowsOf.get(r.ordine_id) ?? []), { articolo: r.articolo, ordinata: canonical(r.ordinata), prezzo: canonical(r.prezzo) }]);
  }
  for (const a of articoli) a.costo_standard = canonicalOrNull(a.costo_standard);
  const varianti = new Map<number, DbArticle[]>();
  for (const a of [...articoli].sort((x, y) => (x.codice < y.codice ? -1 : 1))) {
    if (a.modello_id !== null) varianti.set(a.modello_id, [...(varianti.get(a.modello_id) ?? []), a]);
  }
  return {
    magazzini: new Map(magazzini.map((m) => [m.codice, m])),
    fornitori: new Map(fornitori.map((f) => [f.codice, f])),
    articoli: new Map(articoli.map((a) => [a.codice, a])),
    articoliByEan: new Map(articoli.filter((a) => a.ean !== null).map((a) => [a.ean!, a])),
    varianti,
    clienti: new Map(clienti.map((c) => [c.codice, c])),
    ordini: new Map(
      ordini.map((o) => [
        o.numero,
        {
          id: o.id,
          fornitore: o.fornitore,
          magazzino: o.magazzino,
          data: formatDate(o.data),
          righe: rowsOf.get(o.id) ?? [],
        },
      ]),
    ),
  };
}

// ---------------------------------------------------------------- checks

function checkDuplicates({ loose }: ParsedFile, problems: Problems) {
  const unique = (refs: LooseRef[], label: string, field: string) => {
    const first = new Map<string, string>();
    for (const { at, code } of refs) {
      const seen = first.get(code);
      if (seen === undefined) first.set(code, at);
      else problems.push({ campo: `${at}.${field}`, messaggio: `${label} '${code}' ripetuto: compare già in ${seen}; indicarlo una sola volta` });
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
function checkEanOwners({ loose }: ParsedFile, state: DbState, problems: Problems) {
  for (const { at, code, owner } of loose.eans) {
    const holder = state.articoliByEan.get(code);
    if (holder && owner !== undefined && holder.codice !== owner) {
      problems.push({ campo: `${at}.ean`, messaggio: `l'EAN '${code}' è già dell'articolo '${holder.codice}': correggerlo o toglierlo` });
    }
  }
}

function articleTargets(file: ParsedFile, state: DbState): ArticleTarget[] {
  const inFile = new Set(file.articoli.flatMap((a) => [a.value.codice, ...a.varianti.map((v) => v.value.codice)]));
  const targets: ArticleTarget[] = [];
  for (const a of file.articoli) {
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
        row: { codice: v.codice, descrizione: v.descrizione, ean: v.ean, ...inherited, ha_varianti: false, modello: value.codice },
      });
    }
  }
  return targets;
}

function checkArticles(targets: ArticleTarget[], state: DbState, problems: Problems) {
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

function checkReferences({ loose }: ParsedFile, state: DbState, problems: Problems) {
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
      problems.push({ campo: at, messaggio: `l'articolo '${code}' ha varianti e non si ordina: indicare una variante (${names.join(", ")})` });
    }
  }
}

/** An existing order is left as it is; a file that says otherwise gets a warning, not a refusal. */
function warnExistingOrders(file: ParsedFile, state: DbState, warnings: Problems) {
  for (const o of file.ordini) {
    const existing = state.ordini.get(o.value.numero);
    if (existing && !sameOrder(existing, o)) {
      warnings.push({
        campo: o.at,
        messaggio: `l'ordine '${o.value.numero}' esiste già (id ${existing.id}) ed è rimasto com'era: le differenze nel file sono state ignorate, perché le sue righe possono avere arrivi registrati`,
      });
    }
  }
}

function sameOrder(db: DbOrder, o: ParsedFile["ordini"][number]): boolean {
  return (
    db.fornitore === o.value.fornitore &&
    db.magazzino === o.value.magazzino &&
    db.data === o.value.data &&
    db.righe.length === o.righe.length &&
    db.righe.every((r, i) => {
      const f = o.righe[i]!.value;
      return r.articolo === f.articolo && r.ordinata === canonical(f.quantita) && r.prezzo === canonical(f.prezzo);
    })
  );
}

// ---------------------------------------------------------------- writes

/** Fields of `next` that differ from `current`; decimals are canonical strings on both sides, so === compares values. */
function changes<T extends object>(current: object, next: T): Partial<T> {
  const cur = current as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== cur[k]) out[k] = v;
  return out as Partial<T>;
}

const hasKeys = (o: object) => Object.keys(o).length > 0;

async function writeImport(tx: Tx, plan: ImportPlan, timeZone: string): Promise<ImportIds> {
  const { file, state } = plan;

  const magazzini = await upsertNamed(file.magazzini, state.magazzini, {
    insert: (data) => tx.magazzino.createManyAndReturn({ data, select: { id: true, codice: true } }),
    rename: (id, nome) => tx.magazzino.update({ where: { id }, data: { nome }, select: { id: true } }),
  });
  const fornitori = await upsertNamed(file.fornitori, state.fornitori, {
    insert: (data) => tx.fornitore.createManyAndReturn({ data, select: { id: true, codice: true } }),
    rename: (id, nome) => tx.fornitore.update({ where: { id }, data: { nome }, select: { id: true } }),
  });
  const articleIds = await writeArticles(tx, plan.articles);
  const clienti = await writeClients(tx, file.clienti, state.clienti, businessDate(timeZone));

  const idOf = (ids: Record<string, number>, existing: Map<string, { id: number }>, code: string) => ids[code] ?? existing.get(code)!.id;
  const ordini: Record<string, number> = {};
  const newOrders = file.ordini.filter((o) => !state.ordini.has(o.value.numero));
  for (const o of file.ordini) {
    const existing = state.ordini.get(o.value.numero);
    if (existing) ordini[o.value.numero] = existing.id;
  }
  if (newOrders.length > 0) {
    const created = await tx.ordineAcquisto.createManyAndReturn({
      data: newOrders.map(({ value }) => ({
        numero: value.numero,
        fornitore_id: idOf(fornitori, state.fornitori, value.fornitore),
        magazzino_id: idOf(magazzini, state.magazzini, value.magazzino),
        data: dateFromIso(value.data),
      })),
      select: { id: true, numero: true },
    });
    for (const c of created) ordini[c.numero] = c.id;
    await tx.rigaOrdine.createMany({
      data: newOrders.flatMap((o) =>
        o.righe.map((r, i) => ({
          ordine_id: ordini[o.value.numero]!,
          posizione: i + 1,
          articolo_id: idOf(articleIds, state.articoli, r.value.articolo),
          ordinata: r.value.quantita,
          prezzo: r.value.prezzo,
        })),
      ),
    });
  }

  const listed = (items: Located<{ codice: string }>[], ids: Record<string, number>) =>
    Object.fromEntries(items.map((i) => [i.value.codice, ids[i.value.codice]!]));
  return {
    magazzini: listed(file.magazzini, magazzini),
    articoli: listed(
      file.articoli.flatMap((a) => [a, ...a.varianti]),
      articleIds,
    ),
    fornitori: listed(file.fornitori, fornitori),
    ordini,
    clienti: listed(file.clienti, clienti),
  };
}

async function upsertNamed(
  items: Located<{ codice: string; nome: string }>[],
  existing: Map<string, { id: number; nome: string }>,
  ops: {
    insert: (rows: { codice: string; nome: string }[]) => Promise<{ id: number; codice: string }[]>;
    rename: (id: number, nome: string) => Promise<unknown>;
  },
): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  const fresh: { codice: string; nome: string }[] = [];
  for (const { value } of items) {
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

async function writeArticles(tx: Tx, targets: ArticleTarget[]): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  for (const t of targets) if (t.db) ids[t.row.codice] = t.db.id;
  const fresh = targets.filter((t) => !t.db);
  // New articles in one statement (the sync gate on articoli is then taken once), templates unlinked:
  // a new variant's new template has no id yet, so the links follow in one update.
  if (fresh.length > 0) {
    const created = await tx.articolo.createManyAndReturn({
      data: fresh.map(({ row: { modello: _modello, ...row } }) => row),
      select: { id: true, codice: true },
    });
    for (const c of created) ids[c.codice] = c.id;
    const links = fresh.filter((t) => t.row.modello !== null);
    if (links.length > 0) {
      await tx.$executeRaw`
        UPDATE articoli a SET modello_id = l.modello
          FROM unnest(${links.map((t) => ids[t.row.codice]!)}::int[], ${links.map((t) => ids[t.row.modello!]!)}::int[]) AS l(id, modello)
         WHERE a.id = l.id`;
    }
  }
  for (const t of targets) {
    if (!t.db) continue;
    const { modello, ...row } = t.row;
    const diff = changes(t.db, { ...row, modello_id: modello === null ? null : ids[modello]! });
    if (hasKeys(diff)) await tx.articolo.update({ where: { id: t.db.id }, data: diff, select: { id: true } });
  }
  return ids;
}

async function writeClients(
  tx: Tx,
  items: Located<ClientInput>[],
  existing: Map<string, DbClient>,
  today: string,
): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  const fresh: ClientInput[] = [];
  for (const { value } of items) {
    const db = existing.get(value.codice);
    if (!db) fresh.push(value);
    else {
      ids[value.codice] = db.id;
      const diff = changes(db, value);
      if (hasKeys(diff)) await tx.cliente.update({ where: { id: db.id }, data: diff, select: { id: true } });
    }
  }
  // One statement: the sync gate on clienti is taken once for the whole batch.
  if (fresh.length > 0) {
    const created = await tx.cliente.createManyAndReturn({
      data: fresh.map((c) => ({ ...c, data: dateFromIso(today) })),
      select: { id: true, codice: true },
    });
    for (const c of created) ids[c.codice] = c.id;
  }
  return ids;
}
