import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import type { CreateSaleInput, ListSalesInput } from "./sales.schemas";

export const clientById = (id: number) => query<{ id: number }>(Prisma.sql`SELECT id FROM clienti WHERE id = ${id}`);

/** The next number of a document type in a year; the counter row stays locked until commit. */
export const takeNumber = (tipo: CreateSaleInput["tipo"], anno: number) =>
  query<{ ultimo: number }>(Prisma.sql`
    INSERT INTO numeratori (tipo, anno, ultimo) VALUES (${tipo}, ${anno}, 1)
    ON CONFLICT (tipo, anno) DO UPDATE SET ultimo = numeratori.ultimo + 1
    RETURNING ultimo`);

export const insertDocument = (d: {
  tipo: CreateSaleInput["tipo"];
  anno: number;
  progressivo: number;
  numero: string;
  data: string;
  cliente: number;
  magazzino: number;
  operazione: number;
  imponibile: string;
  imposta: string;
  totale: string;
  utente: number | null;
}) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO documenti_vendita (tipo, anno, progressivo, numero, data, cliente_id, magazzino_id, operazione_id,
                                   imponibile, imposta, totale, utente_id)
    VALUES (${d.tipo}, ${d.anno}, ${d.progressivo}, ${d.numero}, ${d.data}::date, ${d.cliente}, ${d.magazzino}, ${d.operazione},
            ${d.imponibile}::numeric, ${d.imposta}::numeric, ${d.totale}::numeric,
            ${d.utente}::int)
    RETURNING id`);

/** A document's rows, one array per column, in row order. */
export interface DocumentLineColumns {
  posizione: number[];
  articolo: number[];
  descrizione: string[];
  quantita: string[];
  prezzo: string[];
  sconto: string[];
  aliquota: string[];
  importo: string[];
  lotto: (number | null)[];
  movimento: number[];
}

export const insertDocumentLines = (documento: number, r: DocumentLineColumns) =>
  query<never>(Prisma.sql`
    INSERT INTO righe_documento_vendita (documento_id, posizione, articolo_id, descrizione, quantita, prezzo, sconto,
                                         aliquota_iva, importo, lotto_id, movimento_id)
    SELECT ${documento}, posizione, articolo, descrizione, quantita, prezzo, sconto, aliquota, importo, lotto, movimento
      FROM unnest(${r.posizione}::int[], ${r.articolo}::int[],
                  ${r.descrizione}::text[], ${r.quantita}::numeric[],
                  ${r.prezzo}::numeric[], ${r.sconto}::numeric[],
                  ${r.aliquota}::numeric[], ${r.importo}::numeric[],
                  ${r.lotto}::int[], ${r.movimento}::int[])
           AS t(posizione, articolo, descrizione, quantita, prezzo, sconto, aliquota, importo, lotto, movimento)`);

export interface DocumentRow {
  id: number;
  numero: string;
  tipo: CreateSaleInput["tipo"];
  data: Date;
  cliente_id: number;
  ragione_sociale: string;
  magazzino_id: number;
  imponibile: Prisma.Decimal;
  imposta: Prisma.Decimal;
  totale: Prisma.Decimal;
}

const documents = (where: Prisma.Sql, take: number, order: "asc" | "desc") =>
  query<DocumentRow>(Prisma.sql`
    SELECT d.id, d.numero, d.tipo, d.data, d.cliente_id, c.ragione_sociale, d.magazzino_id, d.imponibile, d.imposta, d.totale
      FROM documenti_vendita d JOIN clienti c ON c.id = d.cliente_id
     WHERE ${where}
     ORDER BY d.id ${order === "asc" ? Prisma.empty : Prisma.raw("DESC")}
     ${limit(take)}`);

export const documentById = (id: number) => documents(Prisma.sql`d.id = ${id}`, 1, "asc");
export const documentsByIds = (ids: number[]) => documents(Prisma.sql`d.id = ANY(${ids}::int[])`, ids.length, "asc");

type DocumentFilters = Pick<ListSalesInput, "da" | "a" | "cliente">;

/** A window of documents after `dopo`, in id order: `take` rows at most (the page size plus one). */
export const documentsPage = (dopo: number, f: DocumentFilters, take: number) =>
  documents(Prisma.join([Prisma.sql`d.id > ${dopo}`, ...filterConditions(f)], " AND "), take, "asc");

/**
 * The screen's order: the documents below `prima`, newest first, `take` rows at most (the page size
 * plus one). Plans: the primary key read backwards from `prima` (with `cliente`, its (cliente_id, id)
 * index), so a page costs the documents it passes over: cheap for the recent past, the screen's usual
 * question.
 */
export const documentsBefore = (prima: number, f: DocumentFilters, take: number) =>
  documents(Prisma.join([Prisma.sql`d.id < ${prima}`, ...filterConditions(f)], " AND "), take, "desc");

/** The list's filters as conditions on `d` (documenti_vendita). */
function filterConditions(f: DocumentFilters): Prisma.Sql[] {
  const filters: Prisma.Sql[] = [];
  if (f.da) filters.push(Prisma.sql`d.data >= ${f.da}::date`);
  if (f.a) filters.push(Prisma.sql`d.data <= ${f.a}::date`);
  if (f.cliente !== undefined) filters.push(Prisma.sql`d.cliente_id = ${f.cliente}`);
  return filters;
}

export interface DocumentLine {
  documento_id: number;
  articolo_id: number;
  codice: string;
  descrizione: string;
  quantita: Prisma.Decimal;
  prezzo: Prisma.Decimal;
  sconto: Prisma.Decimal;
  aliquota_iva: Prisma.Decimal;
  importo: Prisma.Decimal;
  lotto: string | null;
  movimento_id: number | null;
}

/** The rows of every given document, in document and row order. */
export const documentLines = (documenti: number[]) =>
  query<DocumentLine>(Prisma.sql`
    SELECT r.documento_id, r.articolo_id, a.codice, r.descrizione, r.quantita, r.prezzo, r.sconto, r.aliquota_iva,
           r.importo, l.codice AS lotto, r.movimento_id
      FROM righe_documento_vendita r
      JOIN articoli a ON a.id = r.articolo_id
      LEFT JOIN lotti l ON l.id = r.lotto_id
     WHERE r.documento_id = ANY(${documenti}::int[])
     ORDER BY r.documento_id, r.posizione`);
