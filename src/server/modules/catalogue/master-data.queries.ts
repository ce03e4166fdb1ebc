import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** Serialises imports (and the demo seeding, which imports): the checks and the writes see one state. */
const IMPORT_LOCK = 7_246_301_010;

export const lockImports = () => query<never>(Prisma.sql`SELECT pg_advisory_xact_lock(${IMPORT_LOCK}::bigint)`);

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
  movimentato: boolean;
  ordinato: boolean;
}

/**
 * The articles with these codes or EANs, and the variants of every template among the codes: variants
 * inherit from their template and a message about the template names them.
 */
export const articlesByCodeOrEan = (codes: string[], eans: string[]) =>
  query<KnownArticle>(Prisma.sql`
    SELECT a.id, a.codice, a.ean, a.descrizione, a.unita, a.gestione_lotti, a.costo_standard::text AS costo_standard,
           a.modello_id, m.codice AS modello, a.ha_varianti,
           EXISTS (SELECT 1 FROM movimenti WHERE articolo_id = a.id) AS movimentato,
           EXISTS (SELECT 1 FROM righe_ordine WHERE articolo_id = a.id) AS ordinato
      FROM articoli a LEFT JOIN articoli m ON m.id = a.modello_id
     WHERE a.codice = ANY(${codes}::text[]) OR a.ean = ANY(${eans}::text[])
        OR a.modello_id IN (SELECT id FROM articoli WHERE codice = ANY(${codes}::text[]) AND ha_varianti)`);

/** Links variants to their templates, pairwise: `ids[i]` becomes a variant of `templates[i]`. */
export const linkVariants = (ids: number[], templates: number[]) =>
  query<never>(Prisma.sql`
    UPDATE articoli a SET modello_id = l.modello
      FROM unnest(${ids}::int[], ${templates}::int[]) AS l(id, modello)
     WHERE a.id = l.id`);
