import { Prisma } from "../../db/client";
import { ORDER_KEY_LOCK } from "../../db/advisory-locks";
import { query } from "../../db/sql";

// ---------------------------------------------------------------- POST /ordini-acquisto

/**
 * Serialises the writers of the same orders (by supplier and number) until commit: two replacements of
 * one order, or two creations of it, queue. Arrivals and closings never take it (they lock rows and
 * orders, in the ledger's lock order), so it cannot deadlock with them; keys are taken sorted, so two
 * calls naming the same orders in different orders queue too. Hash collisions only serialise more.
 */
export const lockOrderKeys = (fornitori: number[], numeri: string[]) =>
  query<{ n: number }>(Prisma.sql`
    SELECT count(*)::int AS n FROM (
      SELECT pg_advisory_xact_lock(${ORDER_KEY_LOCK}::int, k)
        FROM (SELECT DISTINCT hashtext(f::text || '/' || n) AS k FROM unnest(${fornitori}::int[], ${numeri}::text[]) AS u(f, n)) h
       ORDER BY k) s`);

export const suppliersByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM fornitori WHERE codice = ANY(${codici}::text[])`);

export const warehousesByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM magazzini WHERE codice = ANY(${codici}::text[])`);

export const articlesByCode = (codici: string[]) =>
  query<{ id: number; codice: string; attivo: boolean; ha_varianti: boolean }>(Prisma.sql`
    SELECT id, codice, attivo, ha_varianti FROM articoli WHERE codice = ANY(${codici}::text[])`);

export interface ExistingOrderRow {
  id: number;
  fornitore_id: number;
  numero: string;
  data: string;
  magazzino_id: number;
  stato: "aperto" | "parziale" | "evaso";
}

/** The orders of these (supplier id, number) keys. */
export const ordersByKey = (fornitori: number[], numeri: string[]) =>
  query<ExistingOrderRow>(Prisma.sql`
    SELECT o.id, o.fornitore_id, o.numero, to_char(o.data, 'YYYY-MM-DD') AS data, o.magazzino_id, o.stato
      FROM ordini_acquisto o
     WHERE (o.fornitore_id, o.numero) IN (SELECT * FROM unnest(${fornitori}::int[], ${numeri}::text[]))`);

export interface LockedOrderRow {
  id: number;
  ordine_id: number;
  numero_riga: number;
  articolo_id: number;
  codice: string;
  /** Numerics as PostgreSQL text. */
  ordinata: string;
  arrivata: string;
  chiusa: string;
  prezzo: string;
  motivo_chiusura: string | null;
  /** Some movement (an arrival, even cancelled) points at the row: the ledger's history needs it as it is. */
  movimentata: boolean;
  /** A shipping notice not yet received that announces the row (docs/api.md section 12: riga_in_avviso), or null. */
  in_avviso: string | null;
}

/**
 * Lock order 2: every row of these orders, by id (ORDER BY sorts before FOR UPDATE locks). `in_avviso` is not
 * read here: this statement's snapshot predates a wait on a notice that held the rows FOR SHARE, whose pallets
 * it would miss; announcedRows, the next statement, reads it after the wait.
 */
export const lockRowsOfOrders = (ordini: number[]) =>
  query<Omit<LockedOrderRow, "in_avviso">>(Prisma.sql`
    SELECT r.id, r.ordine_id, r.numero_riga, r.articolo_id, a.codice, r.ordinata::text AS ordinata, r.arrivata::text AS arrivata,
           r.chiusa::text AS chiusa, r.prezzo::text AS prezzo, r.motivo_chiusura,
           EXISTS (SELECT 1 FROM movimenti m WHERE m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = r.id) AS movimentata
      FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id
     WHERE r.ordine_id = ANY(${ordini}::int[])
     ORDER BY r.id
       FOR UPDATE OF r`);

/** The rows of these orders that a shipping notice not yet received announces, with the first such notice's number. */
export const announcedRows = (ordini: number[]) =>
  query<{ id: number; in_avviso: string }>(Prisma.sql`
    SELECT DISTINCT ON (rc.riga_ordine_id) rc.riga_ordine_id AS id, av.numero AS in_avviso
      FROM righe_ordine r JOIN righe_collo rc ON rc.riga_ordine_id = r.id
      JOIN colli k ON k.id = rc.collo_id JOIN avvisi_spedizione av ON av.id = k.avviso_id
     WHERE r.ordine_id = ANY(${ordini}::int[]) AND k.ricevimento_id IS NULL
     ORDER BY rc.riga_ordine_id, av.id`);

/** New orders; their rows follow (insertRows). The unique key (supplier, number) is held by lockOrderKeys. */
export const insertOrders = (o: { numero: string[]; fornitore: number[]; magazzino: number[]; data: string[] }) =>
  query<{ id: number; fornitore_id: number; numero: string }>(Prisma.sql`
    INSERT INTO ordini_acquisto (numero, fornitore_id, magazzino_id, data)
    SELECT * FROM unnest(${o.numero}::text[], ${o.fornitore}::int[], ${o.magazzino}::int[], ${o.data}::date[])
    RETURNING id, fornitore_id, numero`);

/** New rows: the position is the line number, so rows read in the integrator's line order. */
export const insertRows = (r: { ordine: number[]; numero_riga: number[]; articolo: number[]; ordinata: string[]; prezzo: string[] }) =>
  query<never>(Prisma.sql`
    INSERT INTO righe_ordine (ordine_id, posizione, numero_riga, articolo_id, ordinata, prezzo)
    SELECT o, n, n, a, q, p FROM unnest(${r.ordine}::int[], ${r.numero_riga}::int[], ${r.articolo}::int[], ${r.ordinata}::numeric[], ${r.prezzo}::numeric[])
           AS u(o, n, a, q, p)`);

/**
 * Changed rows (already locked): article, quantity, price; `riapri` clears a closing (a new quantity is
 * the integrator's new statement of what is expected). The state follows as in arrivals.
 */
export const updateRows = (r: { id: number[]; articolo: number[]; ordinata: string[]; prezzo: string[]; riapri: boolean[] }) =>
  query<never>(Prisma.sql`
    UPDATE righe_ordine t
       SET articolo_id = u.a, ordinata = u.q, prezzo = u.p,
           chiusa = CASE WHEN u.riapri THEN 0 ELSE t.chiusa END,
           motivo_chiusura = CASE WHEN u.riapri THEN NULL ELSE t.motivo_chiusura END,
           stato = CASE WHEN t.arrivata + CASE WHEN u.riapri THEN 0 ELSE t.chiusa END = u.q THEN 'evasa'
                        WHEN t.arrivata = 0 THEN 'aperta' ELSE 'parziale' END
      FROM unnest(${r.id}::int[], ${r.articolo}::int[], ${r.ordinata}::numeric[], ${r.prezzo}::numeric[], ${r.riapri}::boolean[]) AS u(id, a, q, p, riapri)
     WHERE t.id = u.id`);

/** Rows the integrator removed (never one a movement points at: the service checks). */
export const deleteRows = (ids: number[]) => query<never>(Prisma.sql`DELETE FROM righe_ordine WHERE id = ANY(${ids}::int[])`);

/** Lock order 4: the orders, by id. */
export const lockOrders = (ids: number[]) =>
  query<{ id: number }>(Prisma.sql`SELECT id FROM ordini_acquisto WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`);

/**
 * The header of changed orders and their state from their rows (as recomputeOrders in arrivals:
 * `evaso` when nothing remains open). The UPDATE takes each order a new version.
 */
export const updateOrders = (o: { id: number[]; data: string[]; magazzino: number[] }) =>
  query<{ id: number; stato: string }>(Prisma.sql`
    UPDATE ordini_acquisto t
       SET data = u.data, magazzino_id = u.magazzino,
           stato = (SELECT CASE WHEN bool_and(r.arrivata + r.chiusa = r.ordinata) THEN 'evaso'
                                WHEN bool_and(r.arrivata = 0) THEN 'aperto' ELSE 'parziale' END
                      FROM righe_ordine r WHERE r.ordine_id = t.id)
      FROM unnest(${o.id}::int[], ${o.data}::date[], ${o.magazzino}::int[]) AS u(id, data, magazzino)
     WHERE t.id = u.id
    RETURNING t.id, t.stato`);

/** The rows of these orders as the response lists them: line number and row id. */
export const rowIdsOfOrders = (ordini: number[]) =>
  query<{ ordine_id: number; numero_riga: number; id: number }>(Prisma.sql`
    SELECT ordine_id, numero_riga, id FROM righe_ordine WHERE ordine_id = ANY(${ordini}::int[]) ORDER BY ordine_id, numero_riga`);

// ---------------------------------------------------------------- POST /ordini-acquisto/{id}/chiudi

export const orderById = (id: number) =>
  query<{ id: number; numero: string; stato: "aperto" | "parziale" | "evaso" }>(
    Prisma.sql`SELECT id, numero, stato FROM ordini_acquisto WHERE id = ${id}`,
  );

/** Closes rows short (already locked): what remains open becomes `chiusa`, with the reason (a missing one keeps the old). */
export const closeRows = (ids: number[], motivo: string | null) =>
  query<never>(Prisma.sql`
    UPDATE righe_ordine SET chiusa = ordinata - arrivata, motivo_chiusura = COALESCE(${motivo}::text, motivo_chiusura), stato = 'evasa'
     WHERE id = ANY(${ids}::int[]) AND arrivata + chiusa < ordinata`);

// ---------------------------------------------------------------- the orders screen

export interface RowArrivalRow {
  id: number;
  riga: number;
  /** YYYY-MM-DD; the quantity as canonical text. */
  data: string;
  quantita: string;
  lotto: string | null;
  chiave_api_id: number | null;
  utente_id: number | null;
  autore_nome: string | null;
  /** The reversing movement of a cancelled arrival. */
  annullato_da: number | null;
}

/**
 * Every arrival on the rows, the cancelled ones too (with their reversal), oldest first: the screen shows
 * what happened to a row and who did it, so a manager can cancel a wrong arrival there.
 */
export const rowArrivals = (rowIds: number[]) =>
  query<RowArrivalRow>(Prisma.sql`
    SELECT m.id, m.riferimento_id AS riga, to_char(m.data, 'YYYY-MM-DD') AS data, trim_scale(m.quantita)::text AS quantita,
           l.codice AS lotto, m.chiave_api_id, m.utente_id, COALESCE(k.nome, u.username) AS autore_nome, c.id AS annullato_da
      FROM movimenti m
      LEFT JOIN lotti l ON l.id = m.lotto_id
      LEFT JOIN chiavi_api k ON k.id = m.chiave_api_id
      LEFT JOIN utenti u ON u.id = m.utente_id
      LEFT JOIN movimenti c ON c.annulla_id = m.id
     WHERE m.origine = 'arrivo' AND m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = ANY(${rowIds}::int[])
     ORDER BY m.id`);
