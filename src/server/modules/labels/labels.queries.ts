import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

export interface LabelArticleRow {
  id: number;
  codice: string;
  descrizione: string;
  ean: string | null;
}

export const articleById = (id: number) =>
  query<LabelArticleRow>(Prisma.sql`SELECT id, codice, descrizione, ean FROM articoli WHERE id = ${id}`);

export const warehouseById = (id: number) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM magazzini WHERE id = ${id}`);

export interface LabelLocationRow {
  codice: string;
  descrizione: string | null;
}

/** One location, or the range `da`..`a` of a warehouse by code (byte order, as codes sort everywhere else). */
export const locationsBetween = (magazzino: number, da: string, a: string, take: number) =>
  query<LabelLocationRow>(Prisma.sql`
    SELECT codice, descrizione FROM ubicazioni
     WHERE magazzino_id = ${magazzino} AND codice COLLATE "C" BETWEEN ${da} AND ${a}
     ORDER BY codice COLLATE "C"
     ${limit(take)}`);

export interface PalletRow {
  sscc: string;
  avviso: string;
  fornitore_codice: string;
  fornitore_nome: string;
}

/** A pallet of a shipping notice (docs/api.md section 12), by its SSCC. */
export const palletBySscc = (sscc: string) =>
  query<PalletRow>(Prisma.sql`
    SELECT c.sscc, a.numero AS avviso, f.codice AS fornitore_codice, f.nome AS fornitore_nome
      FROM colli c JOIN avvisi_spedizione a ON a.id = c.avviso_id JOIN fornitori f ON f.id = a.fornitore_id
     WHERE c.sscc = ${sscc}`);

export interface PalletContentRow {
  articolo_id: number;
  codice: string;
  descrizione: string;
  ean: string | null;
  quantita: Prisma.Decimal;
  lotto: string | null;
  scadenza: Date | null;
}

export const palletContent = (sscc: string) =>
  query<PalletContentRow>(Prisma.sql`
    SELECT a.id AS articolo_id, a.codice, a.descrizione, a.ean, rc.quantita, rc.lotto, rc.scadenza
      FROM righe_collo rc
      JOIN colli c ON c.id = rc.collo_id
      JOIN righe_ordine ro ON ro.id = rc.riga_ordine_id
      JOIN articoli a ON a.id = ro.articolo_id
     WHERE c.sscc = ${sscc}
     ORDER BY rc.posizione`);
