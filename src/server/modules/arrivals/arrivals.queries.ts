import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import { codeCandidates } from "../catalogue/articles";
import type { ExpectedOrder, SearchInput } from "./arrivals.schemas";

export type OrderState = ExpectedOrder["stato"];

// ---------------------------------------------------------------- search (POST /arrivi/cerca)

/**
 * An order row still expecting goods: something neither arrived nor closed short (`chiusa`), of an
 * article still active (an inactive article is not received).
 */
const OPEN_ROW = Prisma.sql`r.arrivata + r.chiusa < r.ordinata AND EXISTS (SELECT 1 FROM articoli x WHERE x.id = r.articolo_id AND x.attivo)`;

/** Row filter of loadOrders: one order row (a label, or an article's first expected row). */
export const rowIs = (id: number) => Prisma.sql`r.id = ${id}`;

/** Row filter of the filtered search: open rows unless asked, of an article (by id or code) when given. */
export function searchRowFilter(input: Pick<SearchInput, "includi_evase" | "articolo" | "codice">): Prisma.Sql {
  const filters: Prisma.Sql[] = [input.includi_evase ? Prisma.sql`TRUE` : OPEN_ROW];
  if (input.articolo !== undefined) filters.push(Prisma.sql`r.articolo_id = ${input.articolo}`);
  if (input.codice !== undefined) {
    // The lookup rule of typed codes (codeCandidates): as written, else in upper case.
    filters.push(Prisma.sql`r.articolo_id = (SELECT id FROM articoli WHERE codice = ANY(${codeCandidates(input.codice)}::text[])
                                              ORDER BY codice = ${input.codice} DESC LIMIT 1)`);
  }
  return Prisma.join(filters, " AND ");
}

/** Order filter of the filtered search: supplier, order, warehouse, date range, each when given. */
export function searchOrderFilter(input: Pick<SearchInput, "fornitore" | "ordine" | "magazzino" | "da" | "a">): Prisma.Sql {
  const filters: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (input.fornitore !== undefined) filters.push(Prisma.sql`o.fornitore_id = ${input.fornitore}`);
  if (input.ordine !== undefined) filters.push(Prisma.sql`o.id = ${input.ordine}`);
  if (input.magazzino !== undefined) filters.push(Prisma.sql`o.magazzino_id = ${input.magazzino}`);
  if (input.da !== undefined) filters.push(Prisma.sql`o.data >= ${input.da}::date`);
  if (input.a !== undefined) filters.push(Prisma.sql`o.data <= ${input.a}::date`);
  return Prisma.join(filters, " AND ");
}

export interface OrderHeaderRow {
  id: number;
  numero: string;
  data: Date;
  stato: OrderState;
  magazzino_id: number;
  fornitore_id: number;
  fornitore_nome: string;
}

/** loadOrders: the orders, with their supplier. */
export const orderHeaders = (orderIds: number[]) =>
  query<OrderHeaderRow>(Prisma.sql`
    SELECT o.id, o.numero, o.data, o.stato, o.magazzino_id, f.id AS fornitore_id, f.nome AS fornitore_nome
      FROM ordini_acquisto o JOIN fornitori f ON f.id = o.fornitore_id
     WHERE o.id = ANY(${orderIds}::int[]) ORDER BY o.id`);

export interface ExpectedRowRecord {
  id: number;
  ordine_id: number;
  articolo_id: number;
  codice: string;
  descrizione: string;
  ordinata: Prisma.Decimal;
  arrivata: Prisma.Decimal;
  chiusa: Prisma.Decimal;
  prezzo: Prisma.Decimal;
  gestione_lotti: boolean;
}

/** loadOrders: the orders' rows that pass the filter (rowIs, searchRowFilter), in position order. */
export const orderRows = (orderIds: number[], rowFilter: Prisma.Sql) =>
  query<ExpectedRowRecord>(Prisma.sql`
    SELECT r.id, r.ordine_id, r.articolo_id, a.codice, a.descrizione, r.ordinata, r.arrivata, r.chiusa, r.prezzo, a.gestione_lotti
      FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id
     WHERE r.ordine_id = ANY(${orderIds}::int[]) AND ${rowFilter}
     ORDER BY r.ordine_id, r.posizione`);

export interface StandingArrivalRow {
  id: number;
  data: Date;
  quantita: Prisma.Decimal;
  riga: number;
}

/** loadOrders: the arrivals still standing on the rows (a cancelled arrival leaves). */
export const standingArrivals = (rowIds: number[]) =>
  query<StandingArrivalRow>(Prisma.sql`
    SELECT m.id, m.data, m.quantita, m.riferimento_id AS riga FROM movimenti m
     WHERE m.origine = 'arrivo' AND m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = ANY(${rowIds}::int[])
       AND NOT EXISTS (SELECT 1 FROM movimenti c WHERE c.annulla_id = m.id)
     ORDER BY m.id`);

/**
 * The first expected row of an article: oldest order first (order date, order id, row position). With a
 * warehouse, that warehouse's rows come first: another warehouse's row comes back only when it has none.
 */
export const firstExpectedRow = (articolo: number, magazzino?: number) =>
  query<{ ordine_id: number; id: number; magazzino_id: number }>(Prisma.sql`
    SELECT r.ordine_id, r.id, o.magazzino_id FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
     WHERE r.articolo_id = ${articolo} AND ${OPEN_ROW}
     ORDER BY ${magazzino === undefined ? Prisma.empty : Prisma.sql`o.magazzino_id = ${magazzino} DESC,`} o.data, o.id, r.posizione LIMIT 1`);

export interface TotalsRow {
  ordini: number;
  righe: number;
}

/** How many orders and rows still expect an article (in one warehouse, when given). */
export const articleOpenTotals = (articolo: number, magazzino?: number) =>
  query<TotalsRow>(Prisma.sql`
    SELECT count(DISTINCT r.ordine_id)::int AS ordini, count(*)::int AS righe FROM righe_ordine r
     WHERE r.articolo_id = ${articolo} AND ${OPEN_ROW}${
       magazzino === undefined
         ? Prisma.empty
         : Prisma.sql` AND EXISTS (SELECT 1 FROM ordini_acquisto o WHERE o.id = r.ordine_id AND o.magazzino_id = ${magazzino})`
     }`);

/** The rows still expecting an article outside a warehouse, per warehouse: the most rows first. */
export const openRowsElsewhere = (articolo: number, magazzino: number) =>
  query<{ codice: string; righe: number }>(Prisma.sql`
    SELECT w.codice, count(*)::int AS righe
      FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN magazzini w ON w.id = o.magazzino_id
     WHERE r.articolo_id = ${articolo} AND ${OPEN_ROW} AND o.magazzino_id <> ${magazzino}
     GROUP BY w.codice ORDER BY righe DESC, w.codice`);

/** The order row of a label R<riga>: complete when nothing remains (arrived or closed short). */
export const labelRow = (riga: number) =>
  query<{
    id: number;
    ordine_id: number;
    articolo_id: number;
    codice: string;
    attivo: boolean;
    evasa: boolean;
    chiusa: boolean;
    motivo_chiusura: string | null;
    numero: string;
    magazzino_id: number;
  }>(Prisma.sql`
    SELECT r.id, r.ordine_id, r.articolo_id, a.codice, a.attivo, r.arrivata + r.chiusa >= r.ordinata AS evasa, r.chiusa > 0 AS chiusa,
           r.motivo_chiusura, o.numero, o.magazzino_id
      FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id WHERE r.id = ${riga}`);

/** The article a scan names, by code or by the EAN candidates of a GTIN, with its variants' codes. */
export const scannedArticle = (lookup: { codice: string } | { ean: string[] }) =>
  query<{ id: number; codice: string; attivo: boolean; ha_varianti: boolean; varianti: string[] }>(Prisma.sql`
    SELECT a.id, a.codice, a.attivo, a.ha_varianti,
           ARRAY(SELECT v.codice FROM articoli v WHERE v.modello_id = a.id ORDER BY v.codice) AS varianti
      FROM articoli a
     WHERE ${"codice" in lookup ? Prisma.sql`a.codice = ANY(${codeCandidates(lookup.codice)}::text[])` : Prisma.sql`a.ean = ANY(${lookup.ean}::text[])`}
     ORDER BY ${"codice" in lookup ? Prisma.sql`a.codice = ${lookup.codice} DESC` : Prisma.sql`a.id`} LIMIT 1`);

/** The rows (and their orders) that pass both filters of the filtered search. */
const matchingRows = (orderFilter: Prisma.Sql, rowFilter: Prisma.Sql) => Prisma.sql`
    SELECT r.ordine_id FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
     WHERE ${orderFilter} AND ${rowFilter}`;

export const searchTotals = (orderFilter: Prisma.Sql, rowFilter: Prisma.Sql) =>
  query<TotalsRow>(Prisma.sql`
    SELECT count(DISTINCT ordine_id)::int AS ordini, count(*)::int AS righe FROM (${matchingRows(orderFilter, rowFilter)}) m`);

/** One page of matching orders after the cursor; one more than the page, to tell whether others follow. */
export const searchPage = (orderFilter: Prisma.Sql, rowFilter: Prisma.Sql, dopo: number, take: number) =>
  query<{ ordine_id: number }>(Prisma.sql`
    SELECT DISTINCT ordine_id FROM (${matchingRows(orderFilter, rowFilter)}) m WHERE ordine_id > ${dopo} ORDER BY ordine_id ${limit(take)}`);

// ---------------------------------------------------------------- order rows (register and cancel)

export interface LockedRow {
  id: number;
  ordine_id: number;
  numero: string;
  fornitore_id: number;
  fornitore_codice: string;
  /** The order's warehouse: goods arrive there (magazzino_diverso otherwise). */
  magazzino_id: number;
  magazzino_codice: string;
  articolo_id: number;
  codice: string;
  gestione_lotti: boolean;
  /** An inactive article is not received (docs/api.md section 9). */
  attivo: boolean;
  ordinata: Prisma.Decimal;
  arrivata: Prisma.Decimal;
  /** Closed short: no longer expected. */
  chiusa: Prisma.Decimal;
  prezzo: Prisma.Decimal;
  /** The order's state as locked: what a row of quantity 0 with only a difference answers (nothing moved). */
  stato: "aperto" | "parziale" | "evaso";
}

/** Lock order 1: the order rows, in one statement, by id (ORDER BY sorts before FOR UPDATE locks). */
export const lockOrderRows = (ids: number[]) =>
  query<LockedRow>(Prisma.sql`
    SELECT r.id, r.ordine_id, o.numero, o.fornitore_id, f.codice AS fornitore_codice, o.magazzino_id, w.codice AS magazzino_codice, r.articolo_id, a.codice, a.gestione_lotti, a.attivo,
           r.ordinata, r.arrivata, r.chiusa, r.prezzo, o.stato
      FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id
      JOIN fornitori f ON f.id = o.fornitore_id JOIN magazzini w ON w.id = o.magazzino_id
     WHERE r.id = ANY(${ids}::int[])
     ORDER BY r.id
       FOR UPDATE OF r`);

/**
 * Moves a row's arrived quantity and state; no row comes back when it would leave 0..(ordinata - chiusa):
 * what was closed short is never received. Row state: `evasa` when nothing remains (arrived or closed),
 * `aperta` when nothing arrived, else `parziale`.
 */
export const moveArrived = (riga: number, delta: string) =>
  query<{ arrivata: Prisma.Decimal; ordinata: Prisma.Decimal; chiusa: Prisma.Decimal }>(Prisma.sql`
    UPDATE righe_ordine
       SET arrivata = arrivata + ${delta}::numeric,
           stato = CASE WHEN arrivata + ${delta}::numeric + chiusa = ordinata THEN 'evasa'
                        WHEN arrivata + ${delta}::numeric = 0 THEN 'aperta' ELSE 'parziale' END
     WHERE id = ${riga} AND arrivata + ${delta}::numeric BETWEEN 0 AND ordinata - chiusa
    RETURNING arrivata, ordinata, chiusa`);

/** Lock order 4: the orders, by id. */
export const lockOrders = (ids: number[]) =>
  query<{ id: number }>(Prisma.sql`SELECT id FROM ordini_acquisto WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`);

/**
 * Each order's state from its rows: `evaso` when nothing remains open (every row arrived or closed
 * short), `aperto` when nothing arrived, else `parziale`. Always an UPDATE: it moves the order's version.
 */
export const recomputeOrders = (ids: number[]) =>
  query<{ id: number; stato: OrderState }>(Prisma.sql`
    UPDATE ordini_acquisto o SET stato = s.stato
      FROM (SELECT ordine_id,
                   CASE WHEN bool_and(arrivata + chiusa = ordinata) THEN 'evaso'
                        WHEN bool_and(arrivata = 0) THEN 'aperto' ELSE 'parziale' END AS stato
              FROM righe_ordine WHERE ordine_id = ANY(${ids}::int[]) GROUP BY ordine_id) s
     WHERE o.id = s.ordine_id
    RETURNING o.id, o.stato`);

// ---------------------------------------------------------------- register (POST /arrivi)

/** The arrival price becomes the article's last purchase price; one price per article, same order as the ids. */
export const setLastArrivalPrice = (articles: number[], prices: string[]) =>
  query<never>(Prisma.sql`
      UPDATE articoli a SET ultimo_prezzo_arrivo = p.prezzo
        FROM unnest(${articles}::int[], ${prices}::numeric[]) AS p(id, prezzo)
       WHERE a.id = p.id`);

// ---------------------------------------------------------------- cancel (POST /arrivi/{id}/annulla)

export interface ArrivalMovementRow {
  id: number;
  origine: string;
  riferimento_tipo: string | null;
  riferimento_id: number | null;
  articolo_id: number;
  magazzino_id: number;
  quantita: Prisma.Decimal;
  prezzo: Prisma.Decimal | null;
  lotto_id: number | null;
  /** The lot's code. */
  lotto: string | null;
  /** Where the arrival put the goods (null: a warehouse without locations when it arrived). */
  ubicazione_id: number | null;
  ubicazione: string | null;
  /** The article's code. */
  codice: string;
  utente_id: number | null;
  data: Date;
}

/** A movement, with its article's and lot's codes: the arrival to cancel, if it is one. */
export const arrivalMovement = (id: number) =>
  query<ArrivalMovementRow>(Prisma.sql`
    SELECT m.id, m.origine, m.riferimento_tipo, m.riferimento_id, m.articolo_id, m.magazzino_id, m.quantita, m.prezzo,
           m.lotto_id, l.codice AS lotto, m.ubicazione_id, u.codice AS ubicazione, a.codice, m.utente_id, m.data
      FROM movimenti m JOIN articoli a ON a.id = m.articolo_id LEFT JOIN lotti l ON l.id = m.lotto_id
      LEFT JOIN ubicazioni u ON u.id = m.ubicazione_id
     WHERE m.id = ${id}`);

/** Where an article (and lot) lies in a warehouse's locations now, the most first: what merce_spostata names. */
export const whereGoodsAre = (articolo: number, magazzino: number, lotto: number | null) =>
  query<{ codice: string; quantita: Prisma.Decimal }>(Prisma.sql`
    SELECT u.codice, g.quantita FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
     WHERE g.articolo_id = ${articolo} AND g.magazzino_id = ${magazzino} AND g.lotto_id IS NOT DISTINCT FROM ${lotto}::int
       AND g.quantita > 0
     ORDER BY g.quantita DESC, u.codice LIMIT 20`);

/** The movement that cancelled a movement, if any. */
export const cancellationOf = (id: number) => query<{ id: number }>(Prisma.sql`SELECT id FROM movimenti WHERE annulla_id = ${id}`);

// ---------------------------------------------------------------- the receiving screen's reads (tRPC only)

export interface TodayArrivalRow {
  id: number;
  operazione_id: number;
  riga: number;
  articolo_id: number;
  codice: string;
  descrizione: string;
  unita: string;
  quantita: Prisma.Decimal;
  lotto: string | null;
  scadenza: Date | null;
  ddt: string;
  ordine_id: number;
  numero: string;
  fornitore_id: number;
  fornitore_nome: string;
  magazzino_id: number;
  utente_id: number | null;
  username: string | null;
  registrato_ms: number;
  data: Date;
  annullato: boolean;
}

/**
 * The arrivals of a business date, newest first, `take` at most: the DDT and supplier from the arrival's
 * operation and order, the author from the movement (an operation groups a DDT's arrivals by any author).
 * The DDT is compared as the operation stores it (exact, as deliveryNoteOperation groups a DDT).
 */
export const arrivalsOfDay = (
  day: string,
  filters: { ddt?: string; author?: { chiave_api_id: number | null; utente_id: number | null }; magazzino?: number },
  take: number,
) => {
  const where: Prisma.Sql[] = [Prisma.sql`m.data = ${day}::date AND m.origine = 'arrivo' AND m.riferimento_tipo = 'riga_ordine'`];
  if (filters.ddt !== undefined) where.push(Prisma.sql`op.ddt = ${filters.ddt}`);
  if (filters.magazzino !== undefined) where.push(Prisma.sql`m.magazzino_id = ${filters.magazzino}`);
  if (filters.author !== undefined)
    where.push(
      filters.author.utente_id === null
        ? Prisma.sql`m.chiave_api_id = ${filters.author.chiave_api_id}::int`
        : Prisma.sql`m.utente_id = ${filters.author.utente_id}::int`,
    );
  return query<TodayArrivalRow>(Prisma.sql`
    SELECT m.id, m.operazione_id, r.id AS riga, m.articolo_id, a.codice, a.descrizione, a.unita, m.quantita, l.codice AS lotto, l.scadenza,
           op.ddt, o.id AS ordine_id, o.numero, f.id AS fornitore_id, f.nome AS fornitore_nome, m.magazzino_id,
           m.utente_id, u.username, floor(extract(epoch FROM m.registrato_il) * 1000)::float8 AS registrato_ms, m.data,
           EXISTS (SELECT 1 FROM movimenti c WHERE c.annulla_id = m.id) AS annullato
      FROM movimenti m
      JOIN operazioni op ON op.id = m.operazione_id
      JOIN articoli a ON a.id = m.articolo_id
      JOIN righe_ordine r ON r.id = m.riferimento_id
      JOIN ordini_acquisto o ON o.id = r.ordine_id
      JOIN fornitori f ON f.id = o.fornitore_id
      LEFT JOIN lotti l ON l.id = m.lotto_id
      LEFT JOIN utenti u ON u.id = m.utente_id
     WHERE ${Prisma.join(where, " AND ")}
     ORDER BY m.id DESC ${limit(take)}`);
};

export interface OfflineRowRecord extends ExpectedRowRecord, Omit<OrderHeaderRow, "id"> {
  ean: string | null;
}

/**
 * A warehouse's open expected rows with their orders, in the order a scan proposes them (order date,
 * order id, row position), `take` at most. The article's own EAN: a variant's is its own.
 */
export const openRowsOfWarehouse = (magazzino: number, take: number) =>
  query<OfflineRowRecord>(Prisma.sql`
    SELECT r.id, r.ordine_id, r.articolo_id, a.codice, a.ean, a.descrizione, r.ordinata, r.arrivata, r.chiusa, r.prezzo, a.gestione_lotti,
           o.numero, o.data, o.stato, o.magazzino_id, f.id AS fornitore_id, f.nome AS fornitore_nome
      FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id
      JOIN fornitori f ON f.id = o.fornitore_id
     WHERE o.magazzino_id = ${magazzino} AND ${OPEN_ROW}
     ORDER BY o.data, o.id, r.posizione ${limit(take)}`);
