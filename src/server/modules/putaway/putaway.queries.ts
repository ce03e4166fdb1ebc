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
 * A storage location (never a quarantine nor a receiving one, API.md section 11) holding the article, the
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
