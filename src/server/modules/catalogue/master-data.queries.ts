import { Prisma } from "../../db/client";
import { IMPORT_LOCK, MASTER_DATA_LOCKS, type MasterDataTable } from "../../db/advisory-locks";
import { query } from "../../db/sql";

/** Serialises imports (and the demo seeding, which imports): the checks and the writes see one state. */
export const lockImports = () => query<never>(Prisma.sql`SELECT pg_advisory_xact_lock(${IMPORT_LOCK}::bigint)`);

/**
 * Serialises the writers of one master-data table (REST upserts and the import): each loads, checks and
 * writes a batch while no other writer of that table can create the same code or take the same EAN.
 * The import takes them all, in MASTER_DATA_LOCKS' order, after lockImports; a REST upsert takes its own.
 */
export const lockMasterData = (table: MasterDataTable) =>
  query<never>(Prisma.sql`SELECT pg_advisory_xact_lock(${MASTER_DATA_LOCKS[table]}::bigint)`);

/** A warehouse or a supplier as stored. */
export interface KnownNamed {
  id: number;
  codice: string;
  nome: string;
  attivo: boolean;
}

// Table names are constants of this module, never input.
const named = (table: "magazzini" | "fornitori") => Prisma.raw(table);

export const namedByCode = (table: "magazzini" | "fornitori", codes: string[]) =>
  query<KnownNamed>(Prisma.sql`SELECT id, codice, nome, attivo FROM ${named(table)} WHERE codice = ANY(${codes}::text[])`);

/** New warehouses or suppliers, in one statement. */
export const insertNamed = (table: "magazzini" | "fornitori", codes: string[], names: string[], active: boolean[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`
    INSERT INTO ${named(table)} (codice, nome, attivo)
    SELECT * FROM unnest(${codes}::text[], ${names}::text[], ${active}::boolean[])
    RETURNING id, codice`);

/** Changed warehouses or suppliers, in one statement: only rows whose values differ are passed. */
export const updateNamed = (table: "magazzini" | "fornitori", ids: number[], names: string[], active: boolean[]) =>
  query<never>(Prisma.sql`
    UPDATE ${named(table)} t SET nome = u.nome, attivo = u.attivo
      FROM unnest(${ids}::int[], ${names}::text[], ${active}::boolean[]) AS u(id, nome, attivo)
     WHERE t.id = u.id`);

/** An article as a master data write compares it with what it is asked to write. */
export interface KnownArticle {
  id: number;
  codice: string;
  ean: string | null;
  descrizione: string;
  unita: string;
  gestione_lotti: boolean;
  /** Canonical decimal string (the service canonicalises what the statement returns). */
  costo_standard: string | null;
  modello_id: number | null;
  /** The template's code. */
  modello: string | null;
  ha_varianti: boolean;
  attivo: boolean;
  /** Canonical decimal text. */
  confezione: string;
  movimentato: boolean;
  ordinato: boolean;
}

/**
 * The articles with these codes or EANs, the variants of every template among the codes (variants
 * inherit from their template and a message about the template names them), and the template of every
 * variant among the codes: a row that updates a variant without repeating `modello` keeps its template,
 * and the writer compares and links it by that template's row. Each list is joined through its unique
 * index (a filter `= ANY(array)` over the table would compare every article with every code).
 */
export const articlesByCodeOrEan = (codes: string[], eans: string[]) =>
  query<KnownArticle>(Prisma.sql`
    WITH codici AS (SELECT DISTINCT unnest(${codes}::text[]) AS codice),
         wanted AS (
           SELECT a.id FROM codici c JOIN articoli a ON a.codice = c.codice
           UNION
           SELECT a.id FROM (SELECT DISTINCT unnest(${eans}::text[]) AS ean) e JOIN articoli a ON a.ean = e.ean
           UNION
           SELECT v.id FROM codici c JOIN articoli t ON t.codice = c.codice AND t.ha_varianti JOIN articoli v ON v.modello_id = t.id
           UNION
           SELECT v.modello_id FROM codici c JOIN articoli v ON v.codice = c.codice WHERE v.modello_id IS NOT NULL
         )
    SELECT a.id, a.codice, a.ean, a.descrizione, a.unita, a.gestione_lotti, a.costo_standard::text AS costo_standard,
           a.modello_id, m.codice AS modello, a.ha_varianti, a.attivo, trim_scale(a.confezione)::text AS confezione,
           EXISTS (SELECT 1 FROM movimenti WHERE articolo_id = a.id) AS movimentato,
           EXISTS (SELECT 1 FROM righe_ordine WHERE articolo_id = a.id) AS ordinato
      FROM wanted w JOIN articoli a ON a.id = w.id LEFT JOIN articoli m ON m.id = a.modello_id`);

/** The columns of articoli a master-data write sets, one array per column, row i of each together. */
export interface ArticleColumns {
  codice: string[];
  descrizione: string[];
  ean: (string | null)[];
  unita: string[];
  gestione_lotti: boolean[];
  costo_standard: (string | null)[];
  modello_id: (number | null)[];
  ha_varianti: boolean[];
  attivo: boolean[];
  confezione: string[];
}

/** New articles, in one statement (the sync gate on articoli is taken once). */
export const insertArticles = (c: ArticleColumns) =>
  query<{ id: number; codice: string }>(Prisma.sql`
    INSERT INTO articoli (codice, descrizione, ean, unita, gestione_lotti, costo_standard, modello_id, ha_varianti, attivo, confezione)
    SELECT * FROM unnest(${c.codice}::text[], ${c.descrizione}::text[], ${c.ean}::text[], ${c.unita}::text[],
                         ${c.gestione_lotti}::boolean[], ${c.costo_standard}::numeric[], ${c.modello_id}::int[],
                         ${c.ha_varianti}::boolean[], ${c.attivo}::boolean[], ${c.confezione}::numeric[])
    RETURNING id, codice`);

/**
 * Row locks on the articles about to change, by id: an arrival updates an article's last price too, and
 * both take them in id order.
 */
export const lockArticles = (ids: number[]) =>
  query<{ id: number }>(Prisma.sql`SELECT id FROM articoli WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`);

/**
 * Changed articles, in one statement: only rows whose values differ are passed, each with every column.
 * `bump`: the row takes a new version though none of its columns changes (its preferred locations, which live in
 * ubicazioni_preferite, did): the version trigger keeps a version the statement sets itself (migration
 * 20261128030000_versione_esplicita).
 */
export const updateArticles = (ids: number[], c: Omit<ArticleColumns, "codice">, bump: boolean[]) =>
  query<never>(Prisma.sql`
    UPDATE articoli a
       SET descrizione = u.descrizione, ean = u.ean, unita = u.unita, gestione_lotti = u.gestione_lotti,
           costo_standard = u.costo_standard, modello_id = u.modello_id, ha_varianti = u.ha_varianti, attivo = u.attivo,
           confezione = u.confezione, versione = CASE WHEN u.bump THEN nextval('banchina_versioni') ELSE a.versione END
      FROM unnest(${ids}::int[], ${c.descrizione}::text[], ${c.ean}::text[], ${c.unita}::text[], ${c.gestione_lotti}::boolean[],
                  ${c.costo_standard}::numeric[], ${c.modello_id}::int[], ${c.ha_varianti}::boolean[], ${c.attivo}::boolean[],
                  ${c.confezione}::numeric[], ${bump}::boolean[])
           AS u(id, descrizione, ean, unita, gestione_lotti, costo_standard, modello_id, ha_varianti, attivo, confezione, bump)
     WHERE a.id = u.id`);

/** Templates named by a new variant become templates (a template is never stocked: the write checked that). */
export const markTemplates = (ids: number[]) =>
  query<never>(Prisma.sql`UPDATE articoli SET ha_varianti = true WHERE id = ANY(${ids}::int[]) AND NOT ha_varianti`);
