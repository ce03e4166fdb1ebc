import { Prisma } from "../../db/client";
import type { TipoUbicazione } from "../../../lib/domain-lists";
import { query } from "../../db/sql";
import { containsPattern } from "../../lib/sql";
import { type Window, windowed } from "../lists/window";

/**
 * The statements of the master-data lists and their change feed (docs/api.md section 9). Every list is one
 * statement (an order and its rows included, so a page is one snapshot), built from its optional filters
 * and from its window: ids after `dopo` in id order, or versions after `modificati_dopo` in version order.
 */

/** `columns` containing `text`, or any of the `also` conditions (the screens' look-up by EAN). */
const contains = (text: string | undefined, columns: Prisma.Sql[], also: Prisma.Sql[] = []) =>
  text === undefined
    ? []
    : [Prisma.sql`(${Prisma.join([...columns.map((c) => Prisma.sql`${c} ILIKE ${containsPattern(text)}`), ...also], " OR ")})`];
const active = (attivo: boolean | undefined) => (attivo === undefined ? [] : [Prisma.sql`t.attivo = ${attivo}::boolean`]);

export interface ArticleRow {
  id: number;
  codice: string;
  descrizione: string;
  ean: string | null;
  gestione_lotti: boolean;
  costo: Prisma.Decimal | null;
  unita: string;
  modello: string | null;
  attivo: boolean;
  versione: bigint;
  /** Canonical text (trim_scale). */
  confezione: string;
  ubicazioni_preferite: { magazzino: number; ubicazione: string }[];
}

/** An article's pack size and preferred locations, as its event (migration 20261128000000_ubicazioni) renders them. */
const ARTICLE_LOCATION_COLUMNS = Prisma.sql`trim_scale(t.confezione)::text AS confezione,
           (SELECT coalesce(json_agg(json_build_object('magazzino', p.magazzino_id, 'ubicazione', u.codice) ORDER BY p.magazzino_id), '[]'::json)
              FROM ubicazioni_preferite p JOIN ubicazioni u ON u.id = p.ubicazione_id
             WHERE p.articolo_id = t.id) AS ubicazioni_preferite`;

/**
 * `eans`, for the screens only: the text also matches an article whose EAN contains it or is one of these
 * (the GTIN a scanned EAN or GS1 code carries, in the forms the catalogue may store it). REST's `cerca`
 * passes none: docs/api.md section 9 has it search code and description.
 */
export const articlesPage = (w: Window, take: number, f: { cerca?: string; attivo?: boolean }, eans?: string[]) => {
  const byEan =
    eans === undefined || f.cerca === undefined
      ? []
      : [Prisma.sql`t.ean ILIKE ${containsPattern(f.cerca)}`, Prisma.sql`t.ean = ANY(${eans}::text[])`];
  const { where, tail } = windowed(w, take, [
    ...contains(f.cerca, [Prisma.sql`t.codice`, Prisma.sql`t.descrizione`], byEan),
    ...active(f.attivo),
  ]);
  return query<ArticleRow>(Prisma.sql`
    SELECT t.id, t.codice, t.descrizione, t.ean, t.gestione_lotti, t.costo_standard AS costo, t.unita, m.codice AS modello,
           t.attivo, t.versione, ${ARTICLE_LOCATION_COLUMNS}
      FROM articoli t LEFT JOIN articoli m ON m.id = t.modello_id
     WHERE ${where}
     ${tail}`);
};

export interface NamedRow {
  id: number;
  codice: string;
  nome: string;
  attivo: boolean;
  versione: bigint;
}

export const suppliersPage = (w: Window, take: number, f: { cerca?: string; attivo?: boolean }) => {
  const { where, tail } = windowed(w, take, [...contains(f.cerca, [Prisma.sql`t.codice`, Prisma.sql`t.nome`]), ...active(f.attivo)]);
  return query<NamedRow>(Prisma.sql`
    SELECT t.id, t.codice, t.nome, t.attivo, t.versione FROM fornitori t WHERE ${where} ${tail}`);
};

export interface WarehouseRow extends NamedRow {
  gestione_ubicazioni: boolean;
  /** The receiving location's code. */
  ubicazione_ricevimento: string | null;
}

export const warehousesPage = (w: Window, take: number, f: { cerca?: string; attivo?: boolean }) => {
  const { where, tail } = windowed(w, take, [...contains(f.cerca, [Prisma.sql`t.codice`, Prisma.sql`t.nome`]), ...active(f.attivo)]);
  return query<WarehouseRow>(Prisma.sql`
    SELECT t.id, t.codice, t.nome, t.attivo, t.versione, t.gestione_ubicazioni, u.codice AS ubicazione_ricevimento
      FROM magazzini t LEFT JOIN ubicazioni u ON u.id = t.ubicazione_ricevimento_id
     WHERE ${where} ${tail}`);
};

export interface LocationRow {
  id: number;
  magazzino: number;
  codice: string;
  descrizione: string | null;
  tipo: TipoUbicazione;
  attiva: boolean;
  versione: bigint;
}

/** GET /ubicazioni: a warehouse's locations (or every warehouse's), by id or by version. */
export const locationsPage = (w: Window, take: number, f: { cerca?: string; magazzino?: number; tipo?: string; attiva?: boolean }) => {
  const { where, tail } = windowed(w, take, [
    ...contains(f.cerca, [Prisma.sql`t.codice`, Prisma.sql`t.descrizione`]),
    ...(f.magazzino === undefined ? [] : [Prisma.sql`t.magazzino_id = ${f.magazzino}::int`]),
    ...(f.tipo === undefined ? [] : [Prisma.sql`t.tipo = ${f.tipo}`]),
    ...(f.attiva === undefined ? [] : [Prisma.sql`t.attiva = ${f.attiva}::boolean`]),
  ]);
  return query<LocationRow>(Prisma.sql`
    SELECT t.id, t.magazzino_id AS magazzino, t.codice, t.descrizione, t.tipo, t.attiva, t.versione
      FROM ubicazioni t WHERE ${where} ${tail}`);
};

export const warehouseExists = (id: number) => query<{ id: number }>(Prisma.sql`SELECT id FROM magazzini WHERE id = ${id}::int`);

export interface PurchaseOrderRow {
  id: number;
  numero: string;
  fornitore_id: number;
  fornitore_codice: string;
  fornitore_nome: string;
  data: string;
  magazzino: number;
  stato: "aperto" | "parziale" | "evaso";
  versione: bigint;
  /** Numerics as PostgreSQL text (`10.000`): the service makes them canonical. */
  righe: {
    numero_riga: number;
    riga: number;
    articolo_id: number;
    articolo_codice: string;
    ordinata: string;
    arrivata: string;
    chiusa: string;
    motivo_chiusura: string | null;
    prezzo: string;
  }[];
}

export const purchaseOrdersPage = (
  w: Window,
  take: number,
  f: { cerca?: string; fornitore?: number; stato?: string; da?: string; a?: string },
) => {
  const conditions = [
    ...contains(f.cerca, [Prisma.sql`t.numero`, Prisma.sql`fo.codice`, Prisma.sql`fo.nome`]),
    ...(f.fornitore === undefined ? [] : [Prisma.sql`t.fornitore_id = ${f.fornitore}::int`]),
    ...(f.stato === undefined ? [] : [Prisma.sql`t.stato = ${f.stato}`]),
    ...(f.da === undefined ? [] : [Prisma.sql`t.data >= ${f.da}::date`]),
    ...(f.a === undefined ? [] : [Prisma.sql`t.data <= ${f.a}::date`]),
  ];
  const { where, tail } = windowed(w, take, conditions);
  return query<PurchaseOrderRow>(Prisma.sql`
    SELECT t.id, t.numero, fo.id AS fornitore_id, fo.codice AS fornitore_codice, fo.nome AS fornitore_nome,
           to_char(t.data, 'YYYY-MM-DD') AS data, t.magazzino_id AS magazzino, t.stato, t.versione,
           (SELECT coalesce(json_agg(json_build_object(
                     'numero_riga', r.numero_riga, 'riga', r.id, 'articolo_id', a.id, 'articolo_codice', a.codice,
                     'ordinata', r.ordinata::text, 'arrivata', r.arrivata::text, 'chiusa', r.chiusa::text,
                     'motivo_chiusura', r.motivo_chiusura, 'prezzo', r.prezzo::text)
                     ORDER BY r.posizione), '[]'::json)
              FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id
             WHERE r.ordine_id = t.id) AS righe
      FROM ordini_acquisto t JOIN fornitori fo ON fo.id = t.fornitore_id
     WHERE ${where}
     ${tail}`);
};
