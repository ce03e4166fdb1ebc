import type { z } from "zod";
import type { FieldProblem } from "../../lib/errors";
import {
  articleInput,
  clientInput,
  importFileInput,
  locationInput,
  orderInput,
  orderRowInput,
  supplierInput,
  variantInput,
  warehouseInput,
  type ArticleInput,
  type ClientInput,
  type LocationInput,
  type OrderInput,
  type OrderRowInput,
  type SupplierInput,
  type VariantInput,
  type WarehouseInput,
} from "../catalogue/import.schemas";

/**
 * Parsing the master data file (docs/api.md section 6): each item on its own, so that one malformed item
 * does not hide the problems of the others; nothing here reads the database.
 */

export type Problems = FieldProblem[];

export interface Located<T> {
  value: T;
  /** Path of the item in the file, e.g. `articoli[3]`. */
  at: string;
}

type ParsedArticle = Located<Omit<ArticleInput, "varianti">> & { varianti: Located<VariantInput>[] };
export type ParsedOrder = Located<Omit<OrderInput, "righe">> & { righe: Located<OrderRowInput>[] };

/** The items of the file that parsed, each with its path. */
export interface ParsedFile {
  magazzini: Located<WarehouseInput>[];
  ubicazioni: Located<LocationInput>[];
  fornitori: Located<SupplierInput>[];
  clienti: Located<ClientInput>[];
  articoli: ParsedArticle[];
  ordini: ParsedOrder[];
  loose: LooseFile;
}

/** A string found at a path of the file. */
export interface LooseRef {
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
  /** Templates named by an article's `modello`. */
  templates: LooseRef[];
  references: (LooseRef & { section: "magazzini" | "fornitori" | "articoli" })[];
}

export function pathOf(base: string, keys: readonly PropertyKey[]): string {
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
    templates: [],
    references: [],
  };
  arrayIn(data, "articoli").forEach((article, i) => {
    const items = [
      { item: article, at: `articoli[${i}]` },
      ...arrayIn(article, "varianti").map((item, j) => ({ item, at: `articoli[${i}].varianti[${j}]` })),
    ];
    for (const { item, at } of items) {
      const code = stringIn(item, "codice");
      const ean = stringIn(item, "ean");
      if (code !== undefined) loose.articoli.push({ at, code });
      if (ean !== undefined) loose.eans.push({ at, code: ean, owner: code });
    }
    const code = stringIn(article, "codice");
    const variants = items.slice(1).flatMap(({ item }) => stringIn(item, "codice") ?? []);
    if (code !== undefined && items.length > 1) loose.modelli.set(code, [...(loose.modelli.get(code) ?? []), ...variants]);
    const template = stringIn(article, "modello");
    if (template !== undefined) {
      loose.templates.push({ at: `articoli[${i}].modello`, code: template });
      if (code !== undefined) loose.modelli.set(template, [...(loose.modelli.get(template) ?? []), code]);
    }
  });
  arrayIn(data, "ubicazioni").forEach((location, i) => {
    const code = stringIn(location, "magazzino");
    if (code !== undefined) loose.references.push({ at: `ubicazioni[${i}].magazzino`, code, section: "magazzini" });
  });
  arrayIn(data, "ordini").forEach((order, i) => {
    const at = `ordini[${i}]`;
    for (const [key, section] of [
      ["fornitore", "fornitori"],
      ["magazzino", "magazzini"],
    ] as const) {
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

/** Every item of the file that parses; the problems of those that do not go to `problems`. */
export function parseFile(data: unknown, problems: Problems): ParsedFile {
  parseAt(importFileInput, data, "", problems);
  return {
    magazzini: parseSection(data, "magazzini", warehouseInput, problems),
    ubicazioni: parseSection(data, "ubicazioni", locationInput, problems),
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
export function sortByPath(problems: Problems): Problems {
  const key = (p: FieldProblem) => p.campo.replace(/\d+/g, (n) => n.padStart(10, "0"));
  return problems
    .map((p) => ({ p, k: key(p) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map(({ p }) => p);
}
