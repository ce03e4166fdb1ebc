import { NOTICE_KEY_LOCK } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import { type Window, windowed } from "../lists/window";

/** Every statement of shipping notices, pallets and receiving differences (docs/api.md section 12). */

/** The notices' keys (supplier, number), sorted: two replacements of one notice queue. */
export const lockNoticeKeys = (fornitori: number[], numeri: string[]) =>
  query<{ n: number }>(Prisma.sql`
    SELECT count(*)::int AS n FROM (
      SELECT pg_advisory_xact_lock(${NOTICE_KEY_LOCK}::int, k)
        FROM (SELECT DISTINCT hashtext(f::text || '/' || n) AS k FROM unnest(${fornitori}::int[], ${numeri}::text[]) AS u(f, n)) h
       ORDER BY k) s`);

export const suppliersByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM fornitori WHERE codice = ANY(${codici}::text[])`);

export const warehousesByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM magazzini WHERE codice = ANY(${codici}::text[])`);

export interface NamedOrderRow {
  id: number;
  numero: string;
  numero_riga: number;
  fornitore_id: number;
  fornitore_codice: string;
  magazzino_id: number;
  magazzino_codice: string;
  stato: string;
  codice: string;
  gestione_lotti: boolean;
}

/**
 * The order rows a notice names by (order number, line number), of any supplier (another supplier's is
 * `fornitore_diverso`). `lock`: held FOR SHARE until the notice commits, so an order upsert that would remove a
 * row, change its article or its order's warehouse waits, then sees the notice (`riga_in_avviso`). The upsert
 * reads them twice in one write (rowsInOrder): the locking statement's snapshot predates a wait on an order
 * upsert that held the rows, whose new warehouse only the second statement, started after the wait, sees.
 */
export const orderRowsByNumber = (numeri: string[], righe: number[], lock: boolean) =>
  query<NamedOrderRow>(Prisma.sql`
    SELECT r.id, o.numero, r.numero_riga, o.fornitore_id, f.codice AS fornitore_codice, o.magazzino_id,
           m.codice AS magazzino_codice, o.stato, a.codice, a.gestione_lotti
      FROM righe_ordine r
      JOIN ordini_acquisto o ON o.id = r.ordine_id
      JOIN fornitori f ON f.id = o.fornitore_id
      JOIN magazzini m ON m.id = o.magazzino_id
      JOIN articoli a ON a.id = r.articolo_id
     WHERE (o.numero, r.numero_riga) IN (SELECT * FROM unnest(${numeri}::text[], ${righe}::int[]))
     ORDER BY r.id${
       lock
         ? Prisma.sql`
       FOR SHARE OF r`
         : Prisma.empty
     }`);

export interface StoredNotice {
  id: number;
  fornitore_id: number;
  numero: string;
  /** The notice's content in the shape the upsert compares (contentOf in notices-upsert.service.ts). */
  contenuto: string;
  /** Pallets that have ever been received (a receipt, cancelled or not, is history a replacement would lose). */
  ricevuti: number;
}

/** The notices of these keys, locked (lock order: notices first), with what the upsert compares. */
export const lockNotices = (fornitori: number[], numeri: string[]) =>
  query<StoredNotice>(Prisma.sql`
    SELECT a.id, a.fornitore_id, a.numero,
           json_build_object('magazzino', a.magazzino_id, 'data_prevista', to_char(a.data_prevista, 'YYYY-MM-DD'),
             'colli', (SELECT coalesce(json_agg(json_build_object('sscc', k.sscc, 'righe',
                        (SELECT json_agg(json_build_object('riga', r.riga_ordine_id, 'quantita', trim_scale(r.quantita)::text,
                                  'lotto', r.lotto, 'scadenza', to_char(r.scadenza, 'YYYY-MM-DD')) ORDER BY r.posizione)
                           FROM righe_collo r WHERE r.collo_id = k.id)) ORDER BY k.posizione), '[]'::json)
                         FROM colli k WHERE k.avviso_id = a.id))::text AS contenuto,
           (SELECT count(*)::int FROM ricevimenti_collo rc JOIN colli k ON k.id = rc.collo_id WHERE k.avviso_id = a.id) AS ricevuti
      FROM avvisi_spedizione a
     WHERE (a.fornitore_id, a.numero) IN (SELECT * FROM unnest(${fornitori}::int[], ${numeri}::text[]))
     ORDER BY a.id
       FOR UPDATE OF a`);

/** The SSCCs already used by a notice (its id, to tell one's own from another's). */
export const palletsBySscc = (sscc: string[]) =>
  query<{ sscc: string; avviso_id: number; numero: string; fornitore_codice: string }>(Prisma.sql`
    SELECT k.sscc, k.avviso_id, a.numero, f.codice AS fornitore_codice
      FROM colli k JOIN avvisi_spedizione a ON a.id = k.avviso_id JOIN fornitori f ON f.id = a.fornitore_id
     WHERE k.sscc = ANY(${sscc}::text[])`);

export const insertNotice = (n: { numero: string; fornitore: number; magazzino: number; data_prevista: string | null }) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO avvisi_spedizione (numero, fornitore_id, magazzino_id, data_prevista)
    VALUES (${n.numero}, ${n.fornitore}::int, ${n.magazzino}::int, ${n.data_prevista}::date) RETURNING id`);

/** A replaced notice's header; every update takes a new version (the trigger), so it goes last. */
export const updateNotice = (id: number, magazzino: number, data_prevista: string | null) =>
  query<never>(Prisma.sql`
    UPDATE avvisi_spedizione SET magazzino_id = ${magazzino}::int, data_prevista = ${data_prevista}::date WHERE id = ${id}::int`);

/** A notice's pallets and rows, before a replacement writes the new ones. */
export const deletePallets = (avviso: number) =>
  query<never>(Prisma.sql`
    WITH righe AS (DELETE FROM righe_collo r USING colli k WHERE r.collo_id = k.id AND k.avviso_id = ${avviso}::int)
    DELETE FROM colli WHERE avviso_id = ${avviso}::int`);

export const insertPallets = (avviso: number, sscc: string[]) =>
  query<{ id: number; sscc: string }>(Prisma.sql`
    INSERT INTO colli (avviso_id, posizione, sscc)
    SELECT ${avviso}::int, p, s FROM unnest(${sscc}::text[]) WITH ORDINALITY AS u(s, p)
    RETURNING id, sscc`);

export const insertPalletRows = (r: {
  collo: number[];
  posizione: number[];
  riga: number[];
  quantita: string[];
  lotto: (string | null)[];
  scadenza: (string | null)[];
}) =>
  query<never>(Prisma.sql`
    INSERT INTO righe_collo (collo_id, posizione, riga_ordine_id, quantita, lotto, scadenza)
    SELECT * FROM unnest(${r.collo}::int[], ${r.posizione}::int[], ${r.riga}::int[], ${r.quantita}::numeric[],
                         ${r.lotto}::text[], ${r.scadenza}::date[])`);

// ---------------------------------------------------------------- GET /avvisi-spedizione

export interface NoticeRow {
  id: number;
  versione: bigint;
  avviso: unknown;
}

export const noticesPage = (w: Window, take: number, f: { fornitore?: number; stato?: string }) => {
  const state = Prisma.sql`(SELECT CASE WHEN count(k.ricevimento_id) = 0 THEN 'atteso' WHEN count(k.ricevimento_id) = count(*)
                             THEN 'ricevuto' ELSE 'in_ricevimento' END FROM colli k WHERE k.avviso_id = t.id)`;
  const conditions = [
    ...(f.fornitore === undefined ? [] : [Prisma.sql`t.fornitore_id = ${f.fornitore}::int`]),
    ...(f.stato === undefined ? [] : [Prisma.sql`${state} = ${f.stato}`]),
  ];
  const { where, tail } = windowed(w, take, conditions);
  return query<NoticeRow>(Prisma.sql`
    SELECT t.id, t.versione, banchina_avviso_json(t.id) AS avviso FROM avvisi_spedizione t WHERE ${where} ${tail}`);
};

// ---------------------------------------------------------------- fill rate (the manager's screen, GET /differenze-ricevimento/tasso-riempimento)

export interface FillRateRow {
  fornitore_id: number;
  fornitore_codice: string;
  annunciata: string;
  ricevuta: string;
  /** Declared or eccedente, not voided, by reason: {motivo: quantity}. */
  differenze: Record<string, string>;
}

/**
 * Each supplier's announced and received quantity over the notices of a period (by expected date, else the
 * day the notice was created): received is what the standing receipts of those pallets brought in.
 */
export const fillRates = (da: string, a: string, fornitore: number | null) =>
  query<FillRateRow>(Prisma.sql`
    WITH avvisi AS (
      SELECT id, fornitore_id FROM avvisi_spedizione
       WHERE coalesce(data_prevista, creato_il::date) BETWEEN ${da}::date AND ${a}::date
         AND (${fornitore}::int IS NULL OR fornitore_id = ${fornitore}::int)
    )
    SELECT f.id AS fornitore_id, f.codice AS fornitore_codice,
           trim_scale(coalesce((SELECT sum(r.quantita) FROM righe_collo r JOIN colli k ON k.id = r.collo_id
                                 JOIN avvisi av ON av.id = k.avviso_id WHERE av.fornitore_id = f.id), 0))::text AS annunciata,
           trim_scale(coalesce((SELECT sum(m.quantita) FROM colli k JOIN avvisi av ON av.id = k.avviso_id
                                 JOIN ricevimenti_collo rc ON rc.id = k.ricevimento_id
                                 JOIN movimenti m ON m.id = ANY(rc.movimenti) WHERE av.fornitore_id = f.id), 0))::text AS ricevuta,
           (SELECT coalesce(jsonb_object_agg(x.motivo, x.q), '{}'::jsonb) FROM (
              SELECT d.motivo, trim_scale(sum(d.quantita))::text AS q FROM differenze_ricevimento d
                JOIN avvisi av ON av.id = d.avviso_id WHERE av.fornitore_id = f.id AND NOT d.annullata GROUP BY d.motivo) x) AS differenze
      FROM fornitori f
     WHERE f.id IN (SELECT fornitore_id FROM avvisi)
     ORDER BY f.codice`);
