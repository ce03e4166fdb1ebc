import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

/** The handheld's copy is bounded: a receiving bay holding more than this is read in its oldest part. */
const MAX_WORKLIST_ROWS = 2000;
const MAX_LOCATIONS = 5000;
const MAX_LABELS = 5000;

export const putawayWarehouses = () =>
  query<{ id: number; codice: string; nome: string }>(
    Prisma.sql`SELECT id, codice, nome FROM magazzini WHERE gestione_ubicazioni AND attivo ORDER BY nome, id`,
  );

export const warehouseManagesLocations = (magazzino: number) =>
  query<{ gestione_ubicazioni: boolean }>(Prisma.sql`SELECT gestione_ubicazioni FROM magazzini WHERE id = ${magazzino}`);

export interface WorklistRecord {
  id: number;
  articolo_id: number;
  codice: string;
  descrizione: string;
  ean: string | null;
  unita: string;
  confezione: Prisma.Decimal;
  lotto: string | null;
  scadenza: Date | null;
  ubicazione: string;
  quantita: Prisma.Decimal;
  caricata_il: Date;
  preferita: string | null;
  con_lotto: string | null;
  con_articolo: string | null;
}

/**
 * A storage location (never a quarantine nor a receiving one, docs/api.md section 11) holding the article, the
 * most of it first: `lot` narrows it to the same lot.
 */
const holding = (lot: boolean) => Prisma.sql`(
  SELECT p.codice FROM giacenze_ubicazioni s JOIN ubicazioni p ON p.id = s.ubicazione_id
   WHERE s.articolo_id = g.articolo_id AND s.magazzino_id = g.magazzino_id AND s.quantita > 0
     AND p.tipo = 'stoccaggio' AND p.attiva ${lot ? Prisma.sql`AND s.lotto_id = g.lotto_id` : Prisma.empty}
   ORDER BY s.quantita DESC, p.codice COLLATE "C" LIMIT 1)`;

/** What lies in the warehouse's receiving locations, oldest arrival first, with the three candidates of a proposal. */
export const worklist = (magazzino: number) =>
  query<WorklistRecord>(Prisma.sql`
    SELECT g.id, g.articolo_id, a.codice, a.descrizione, a.ean, a.unita, a.confezione, l.codice AS lotto, l.scadenza,
           u.codice AS ubicazione, g.quantita, g.caricata_il,
           (SELECT p.codice FROM ubicazioni_preferite up JOIN ubicazioni p ON p.id = up.ubicazione_id
             WHERE up.articolo_id = g.articolo_id AND up.magazzino_id = g.magazzino_id
               AND p.tipo = 'stoccaggio' AND p.attiva) AS preferita,
           CASE WHEN g.lotto_id IS NULL THEN NULL ELSE ${holding(true)} END AS con_lotto,
           ${holding(false)} AS con_articolo
      FROM giacenze_ubicazioni g
      JOIN ubicazioni u ON u.id = g.ubicazione_id AND u.tipo = 'ricevimento'
      JOIN articoli a ON a.id = g.articolo_id
      LEFT JOIN lotti l ON l.id = g.lotto_id
     WHERE g.magazzino_id = ${magazzino} AND g.quantita > 0
     ORDER BY g.caricata_il, g.id
     ${limit(MAX_WORKLIST_ROWS)}`);

export const locationsOf = (magazzino: number) =>
  query<{ codice: string; tipo: "ricevimento" | "stoccaggio" | "quarantena"; attiva: boolean }>(Prisma.sql`
    SELECT codice, tipo, attiva FROM ubicazioni WHERE magazzino_id = ${magazzino} ORDER BY codice COLLATE "C" ${limit(MAX_LOCATIONS)}`);

/** Order rows of this warehouse with goods arrived, of the given articles: their `R<riga>` labels name the goods. */
export const labelsOf = (magazzino: number, articoli: number[]) =>
  query<{ riga: number; articolo: number }>(Prisma.sql`
    SELECT r.id AS riga, r.articolo_id AS articolo
      FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
     WHERE o.magazzino_id = ${magazzino} AND r.arrivata > 0 AND r.articolo_id = ANY(${articoli}::int[])
     ORDER BY r.id DESC ${limit(MAX_LABELS)}`);

/** A location of the warehouse by the code its label reads (codes compare as the scanner may send them: any case). */
export const locationByCode = (magazzino: number, codice: string) =>
  query<{ codice: string; tipo: string; attiva: boolean }>(Prisma.sql`
    SELECT codice, tipo, attiva FROM ubicazioni WHERE magazzino_id = ${magazzino} AND upper(codice) = upper(${codice})
     ORDER BY codice = ${codice} DESC LIMIT 1`);

export const articleForCount = (id: number) =>
  query<{ id: number; codice: string; descrizione: string; unita: string; confezione: Prisma.Decimal; gestione_lotti: boolean }>(
    Prisma.sql`SELECT id, codice, descrizione, unita, confezione, gestione_lotti FROM articoli WHERE id = ${id}`,
  );

export const articleOfOrderRow = (riga: number) =>
  query<{ articolo_id: number }>(Prisma.sql`SELECT articolo_id FROM righe_ordine WHERE id = ${riga}`);

/** What of a pallet still lies in a receiving location: one part per (article, lot, location) of its arrivals. */
export interface PalletPartRecord {
  sscc: string;
  ricevimento_id: number;
  /** giacenze_ubicazioni.id: the row of the handheld's copy (and of GET /da-stoccare) it is part of. */
  giacenza_id: number;
  codice: string;
  lotto: string | null;
  ubicazione: string;
  quantita: Prisma.Decimal;
}

/**
 * The pallets received into this warehouse, standing (not cancelled) and not yet put away by their SSCC,
 * with what of each is still in a receiving location: what the pallet's arrivals brought of an (article,
 * lot) there, less what no longer lies there (the location's stock of it, when smaller: goods of the
 * pallet put away by an article scan, or given out). Oldest receipt first. `ricevimento` narrows it to one.
 */
export const palletParts = (magazzino: number, ricevimento: number | null) =>
  query<PalletPartRecord>(Prisma.sql`
    SELECT k.sscc, rc.id AS ricevimento_id, g.id AS giacenza_id, a.codice, l.codice AS lotto, u.codice AS ubicazione,
           least(sum(m.quantita), g.quantita) AS quantita
      FROM ricevimenti_collo rc
      JOIN colli k ON k.ricevimento_id = rc.id
      JOIN movimenti m ON m.id = ANY(rc.movimenti)
      JOIN ubicazioni u ON u.id = m.ubicazione_id AND u.tipo = 'ricevimento'
      JOIN giacenze_ubicazioni g ON g.articolo_id = m.articolo_id AND g.ubicazione_id = m.ubicazione_id
                                AND g.lotto_id IS NOT DISTINCT FROM m.lotto_id
      JOIN articoli a ON a.id = m.articolo_id
      LEFT JOIN lotti l ON l.id = m.lotto_id
     WHERE rc.annullato_il IS NULL AND m.magazzino_id = ${magazzino}::int AND m.quantita > 0 AND g.quantita > 0
       -- The receipts that landed in this warehouse's receiving locations (index ricevimenti_collo_ubicazione_id_idx).
       AND rc.ubicazione_id IN (SELECT id FROM ubicazioni WHERE magazzino_id = ${magazzino}::int AND tipo = 'ricevimento')
       ${ricevimento === null ? Prisma.empty : Prisma.sql`AND rc.id = ${ricevimento}::int`}
       AND NOT EXISTS (SELECT 1 FROM stoccaggi_collo s WHERE s.ricevimento_id = rc.id)
       AND NOT EXISTS (SELECT 1 FROM movimenti c WHERE c.annulla_id = m.id)
     GROUP BY rc.ricevuto_il, rc.id, k.sscc, g.id, g.quantita, a.codice, l.codice, u.codice
     ORDER BY rc.ricevuto_il, rc.id, min(m.id)
     ${limit(MAX_WORKLIST_ROWS)}`);

/**
 * The pallet, its row locked FOR SHARE: a receipt or a cancellation of it (which take it FOR UPDATE, after
 * its notice) is waited for, and read as it committed. Two putaways share it; the record below orders them.
 */
export const lockPalletForPutaway = (sscc: string) =>
  query<{ ricevimento_id: number | null; magazzino_id: number }>(Prisma.sql`
    SELECT k.ricevimento_id, a.magazzino_id FROM colli k JOIN avvisi_spedizione a ON a.id = k.avviso_id
     WHERE k.sscc = ${sscc} FOR SHARE OF k`);

/** The record of a pallet put away; nothing returned: another putaway of this receipt committed first. */
export const recordPalletPutaway = (ricevimento: number, destinazione: string, magazzino: number) =>
  query<{ ricevimento_id: number }>(Prisma.sql`
    INSERT INTO stoccaggi_collo (ricevimento_id, ubicazione_id)
    VALUES (${ricevimento}::int, (SELECT id FROM ubicazioni WHERE magazzino_id = ${magazzino}::int AND codice = ${destinazione}))
    ON CONFLICT (ricevimento_id) DO NOTHING RETURNING ricevimento_id`);

export const palletPutawayDone = (ricevimento: number) =>
  query<{ stoccato_il: Date; ubicazione: string | null; operazione_id: number | null }>(Prisma.sql`
    SELECT s.stoccato_il, u.codice AS ubicazione, s.operazione_id FROM stoccaggi_collo s
      LEFT JOIN ubicazioni u ON u.id = s.ubicazione_id WHERE s.ricevimento_id = ${ricevimento}::int`);

export const setPalletPutawayOperation = (ricevimento: number, operazione: number) =>
  query<never>(Prisma.sql`UPDATE stoccaggi_collo SET operazione_id = ${operazione}::int WHERE ricevimento_id = ${ricevimento}::int`);
