import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import type { AuthorColumns } from "../auth/actor";

/** The statements of receiving differences (docs/api.md section 12), written by a pallet's receipt and by POST /arrivi. */

export interface NewDifference {
  data: string;
  fornitore: number;
  avviso: number | null;
  collo: number | null;
  ricevimento: number | null;
  sscc: string | null;
  riga: number;
  articolo: number;
  attesa: string | null;
  ricevuta: string;
  quantita: string;
  motivo: string;
  nota: string | null;
}

export const insertDifferences = (d: NewDifference[], author: AuthorColumns) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO differenze_ricevimento (data, fornitore_id, avviso_id, collo_id, ricevimento_id, sscc, riga_ordine_id, articolo_id,
                                        attesa, ricevuta, quantita, motivo, nota, chiave_api_id, utente_id)
    SELECT data, f, av, k, rc, s, r, a, att, ric, q, mo, n, ${author.chiave_api_id}::int, ${author.utente_id}::int
      FROM unnest(${d.map((x) => x.data)}::date[], ${d.map((x) => x.fornitore)}::int[], ${d.map((x) => x.avviso)}::int[],
                  ${d.map((x) => x.collo)}::int[], ${d.map((x) => x.ricevimento)}::int[], ${d.map((x) => x.sscc)}::text[],
                  ${d.map((x) => x.riga)}::int[], ${d.map((x) => x.articolo)}::int[], ${d.map((x) => x.attesa)}::numeric[],
                  ${d.map((x) => x.ricevuta)}::numeric[], ${d.map((x) => x.quantita)}::numeric[], ${d.map((x) => x.motivo)}::text[],
                  ${d.map((x) => x.nota)}::text[])
           WITH ORDINALITY AS u(data, f, av, k, rc, s, r, a, att, ric, q, mo, n, o)
     ORDER BY o
    RETURNING id`);

export interface DifferenceRow {
  id: number;
  data: string;
  fornitore_id: number;
  fornitore_codice: string;
  avviso_id: number | null;
  avviso_numero: string | null;
  sscc: string | null;
  riga: number;
  articolo_id: number;
  articolo_codice: string;
  attesa: string | null;
  ricevuta: string;
  quantita: string;
  motivo: string;
  nota: string | null;
  annullata: boolean;
  chiave_api_id: number | null;
  utente_id: number | null;
  autore_nome: string | null;
  foto: number;
}

const differenceSelect = Prisma.sql`
    SELECT d.id, to_char(d.data, 'YYYY-MM-DD') AS data, d.fornitore_id, f.codice AS fornitore_codice, d.avviso_id,
           av.numero AS avviso_numero, d.sscc, d.riga_ordine_id AS riga, d.articolo_id, a.codice AS articolo_codice,
           trim_scale(d.attesa)::text AS attesa, trim_scale(d.ricevuta)::text AS ricevuta, trim_scale(d.quantita)::text AS quantita,
           d.motivo, d.nota, d.annullata, d.chiave_api_id, d.utente_id, COALESCE(ka.nome, u.username) AS autore_nome,
           (SELECT count(*)::int FROM foto_differenze fd WHERE fd.differenza_id = d.id) AS foto
      FROM differenze_ricevimento d
      JOIN fornitori f ON f.id = d.fornitore_id
      JOIN articoli a ON a.id = d.articolo_id
      LEFT JOIN avvisi_spedizione av ON av.id = d.avviso_id
      LEFT JOIN chiavi_api ka ON ka.id = d.chiave_api_id
      LEFT JOIN utenti u ON u.id = d.utente_id`;

export const differencesByIds = (ids: number[]) =>
  query<DifferenceRow>(Prisma.sql`${differenceSelect} WHERE d.id = ANY(${ids}::int[]) ORDER BY d.id`);

export const differencesPage = (dopo: number, take: number, f: { fornitore?: number; motivo?: string; da?: string; a?: string }) => {
  const conditions = [
    Prisma.sql`d.id > ${dopo}::int`,
    ...(f.fornitore === undefined ? [] : [Prisma.sql`d.fornitore_id = ${f.fornitore}::int`]),
    ...(f.motivo === undefined ? [] : [Prisma.sql`d.motivo = ${f.motivo}`]),
    ...(f.da === undefined ? [] : [Prisma.sql`d.data >= ${f.da}::date`]),
    ...(f.a === undefined ? [] : [Prisma.sql`d.data <= ${f.a}::date`]),
  ];
  return query<DifferenceRow>(Prisma.sql`${differenceSelect} WHERE ${Prisma.join(conditions, " AND ")} ORDER BY d.id ${limit(take)}`);
};
