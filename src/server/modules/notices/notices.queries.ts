import { NOTICE_KEY_LOCK } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import { type Window, windowed } from "../lists/window";
import type { AuthorColumns } from "../auth/actor";

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

// ---------------------------------------------------------------- pallets

export interface LockedPallet {
  id: number;
  sscc: string;
  ricevimento_id: number | null;
  avviso_id: number;
  avviso_numero: string;
  fornitore_id: number;
  magazzino_id: number;
}

/**
 * A pallet and its notice, locked: the notice's row is where receipts, cancellations and replacements of
 * its pallets queue (lock order: notices first), so a pallet stands received once however many ask.
 */
export const lockPallet = (sscc: string) =>
  query<LockedPallet>(Prisma.sql`
    SELECT k.id, k.sscc, k.ricevimento_id, a.id AS avviso_id, a.numero AS avviso_numero, a.fornitore_id, a.magazzino_id
      FROM colli k JOIN avvisi_spedizione a ON a.id = k.avviso_id
     WHERE k.sscc = ${sscc}
       FOR UPDATE OF a, k`);

export interface PalletRow {
  indice: number;
  riga: number;
  ordine_id: number;
  ordine_numero: string;
  articolo_id: number;
  articolo_codice: string;
  quantita: string;
  lotto: string | null;
  scadenza: string | null;
  residua: string;
}

export const palletRows = (collo: number) =>
  query<PalletRow>(Prisma.sql`
    SELECT r.posizione AS indice, r.riga_ordine_id AS riga, o.id AS ordine_id, o.numero AS ordine_numero,
           a.id AS articolo_id, a.codice AS articolo_codice, trim_scale(r.quantita)::text AS quantita, r.lotto,
           to_char(r.scadenza, 'YYYY-MM-DD') AS scadenza,
           trim_scale(ro.ordinata - ro.arrivata - ro.chiusa)::text AS residua
      FROM righe_collo r
      JOIN righe_ordine ro ON ro.id = r.riga_ordine_id
      JOIN ordini_acquisto o ON o.id = ro.ordine_id
      JOIN articoli a ON a.id = ro.articolo_id
     WHERE r.collo_id = ${collo}::int
     ORDER BY r.posizione`);

/** A pallet as a scan shows it (not locked). */
/** The pallet a scan reads, with its standing receipt: who received it (a key's name or a user's), the DDT, when. */
export interface ScannedPallet {
  id: number;
  sscc: string;
  ricevimento_id: number | null;
  avviso_id: number;
  avviso_numero: string;
  magazzino_id: number;
  ricevuto_da: string | null;
  ricevuto_ddt: string | null;
  ricevuto_ms: number | null;
}

export const palletBySscc = (sscc: string) =>
  query<ScannedPallet>(Prisma.sql`
    SELECT k.id, k.sscc, k.ricevimento_id, a.id AS avviso_id, a.numero AS avviso_numero, a.magazzino_id,
           COALESCE(ka.nome, u.username) AS ricevuto_da, r.ddt AS ricevuto_ddt,
           (extract(epoch FROM r.ricevuto_il) * 1000)::float8 AS ricevuto_ms
      FROM colli k JOIN avvisi_spedizione a ON a.id = k.avviso_id
      LEFT JOIN ricevimenti_collo r ON r.id = k.ricevimento_id
      LEFT JOIN chiavi_api ka ON ka.id = r.chiave_api_id
      LEFT JOIN utenti u ON u.id = r.utente_id
     WHERE k.sscc = ${sscc}`);

export const insertReceipt = (r: { collo: number; operazione: number | null; ddt: string; movimenti: number[]; author: AuthorColumns }) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO ricevimenti_collo (collo_id, operazione_id, ddt, movimenti, chiave_api_id, utente_id, ubicazione_id)
    VALUES (${r.collo}::int, ${r.operazione}::int, ${r.ddt}, ${r.movimenti}::int[], ${r.author.chiave_api_id}::int,
            ${r.author.utente_id}::int,
            -- Where the arrivals landed (the receiving location unless the request named one): putaway by SSCC reads it.
            (SELECT m.ubicazione_id FROM movimenti m WHERE m.id = ${r.movimenti[0] ?? null}::int))
    RETURNING id`);

/** The pallet's standing receipt; guarded, so a second one can never stand beside it. */
export const markReceived = (collo: number, ricevimento: number) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE colli SET ricevimento_id = ${ricevimento}::int WHERE id = ${collo}::int AND ricevimento_id IS NULL RETURNING id`);

export const receiptOf = (id: number) =>
  query<{ id: number; movimenti: number[] }>(Prisma.sql`SELECT id, movimenti FROM ricevimenti_collo WHERE id = ${id}::int`);

/** A cancelled receipt: the pallet is expected again, its differences no longer count. */
export const cancelReceipt = (collo: number, ricevimento: number) =>
  query<{ annullate: number }>(Prisma.sql`
    WITH r AS (UPDATE ricevimenti_collo SET annullato_il = now() WHERE id = ${ricevimento}::int),
         k AS (UPDATE colli SET ricevimento_id = NULL WHERE id = ${collo}::int),
         d AS (UPDATE differenze_ricevimento SET annullata = true WHERE ricevimento_id = ${ricevimento}::int AND NOT annullata RETURNING id)
    SELECT count(*)::int AS annullate FROM d`);

/** The notice's state moved with its pallet: a new version (the trigger), and its event at commit. */
export const touchNotice = (avviso: number) =>
  query<never>(Prisma.sql`UPDATE avvisi_spedizione SET numero = numero WHERE id = ${avviso}::int`);

// ---------------------------------------------------------------- differences

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
