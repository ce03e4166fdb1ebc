import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import type { AuthorColumns } from "../auth/actor";

/** The statements of a pallet's receipt, cancel and scan (docs/api.md section 12); the notices' own are in notices.queries.ts. */

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
