import { Prisma } from "../../db/client";
import type { TipoUbicazione } from "../../../lib/domain-lists";
import { limit, query } from "../../db/sql";
import { containsPattern } from "../../lib/sql";
import type { ListLocationStockInput } from "./locations-stock.schemas";

/**
 * Each statement answers for an unknown warehouse (or article) with one outer row whose flag is false and
 * no page, as availability.queries.ts does: the refusal needs no round trip of its own, and comes before a
 * wrong cursor (docs/api.md section 4: the filter's code wins).
 */

/** A row of GET /giacenze-ubicazioni; decimals and dates leave the database in the contract's form. */
export interface LocationStockRow {
  magazzino_trovato: boolean;
  id: number | null;
  ubicazione: string;
  articolo_id: number;
  articolo_codice: string;
  lotto: string | null;
  scadenza: string | null;
  quantita: string;
}

/**
 * A window of the warehouse's location stock above zero after `dopo`, in id order, `take` rows at most (the
 * page size plus one). Plan: the (magazzino_id, id) index from `dopo`, the rows at zero skipped by the
 * filter, then one primary-key probe per row for its location, article and lot: the cost follows the page.
 */
export const locationStockPage = (
  magazzino: number,
  dopo: number,
  f: Pick<ListLocationStockInput, "ubicazione" | "articolo" | "lotto">,
  take: number,
) => {
  const filters: Prisma.Sql[] = [];
  if (f.ubicazione !== undefined) {
    filters.push(
      Prisma.sql`AND g.ubicazione_id = (SELECT id FROM ubicazioni WHERE magazzino_id = ${magazzino}::int AND codice = ${f.ubicazione})`,
    );
  }
  if (f.articolo !== undefined) filters.push(Prisma.sql`AND g.articolo_id = ${f.articolo}::int`);
  if (f.lotto !== undefined) {
    filters.push(Prisma.sql`AND g.lotto_id IN (SELECT id FROM lotti WHERE magazzino_id = ${magazzino}::int AND codice = ${f.lotto})`);
  }
  return query<LocationStockRow>(Prisma.sql`
    SELECT w.magazzino_trovato, p.id, u.codice AS ubicazione, p.articolo_id, a.codice AS articolo_codice, l.codice AS lotto,
           to_char(l.scadenza, 'YYYY-MM-DD') AS scadenza, trim_scale(p.quantita)::text AS quantita
      FROM (SELECT EXISTS (SELECT 1 FROM magazzini WHERE id = ${magazzino}::int) AS magazzino_trovato) w
      LEFT JOIN LATERAL (
        SELECT g.id, g.articolo_id, g.ubicazione_id, g.lotto_id, g.quantita
          FROM giacenze_ubicazioni g
         WHERE w.magazzino_trovato AND g.magazzino_id = ${magazzino}::int AND g.id > ${dopo}::int AND g.quantita > 0
               ${filters.length > 0 ? Prisma.join(filters, " ") : Prisma.empty}
         ORDER BY g.id
         ${limit(take)}
      ) p ON true
      LEFT JOIN ubicazioni u ON u.id = p.ubicazione_id
      LEFT JOIN articoli a ON a.id = p.articolo_id
      LEFT JOIN lotti l ON l.id = p.lotto_id
     ORDER BY p.id`);
};

/** One (location, lot) where an article lies, with the location's and the warehouse's totals of it. */
export interface ArticleLocationRow {
  articolo_id: number | null;
  codice: string;
  descrizione: string;
  magazzino_id: number | null;
  magazzino_codice: string;
  ubicazione: string | null;
  ubicazione_descrizione: string | null;
  tipo: TipoUbicazione;
  attiva: boolean;
  lotto: string | null;
  scadenza: string | null;
  quantita: string;
  in_ubicazione: string;
  totale: string;
}

/**
 * Where one article lies: one row per (warehouse, location, lot) above zero, by location code, then the
 * nearest expiry; a warehouse where it lies nowhere has one row with `ubicazione` null. `magazzino` null:
 * every warehouse that manages locations (the screens' "Dov'è?"). An unknown article: `articolo_id` null.
 */
export const articleLocations = (articolo: number, magazzino: number | null) =>
  query<ArticleLocationRow>(Prisma.sql`
    SELECT a.id AS articolo_id, a.codice, a.descrizione, w.id AS magazzino_id, w.codice AS magazzino_codice,
           u.codice AS ubicazione, u.descrizione AS ubicazione_descrizione, u.tipo, u.attiva,
           l.codice AS lotto, to_char(l.scadenza, 'YYYY-MM-DD') AS scadenza, trim_scale(g.quantita)::text AS quantita,
           trim_scale(sum(g.quantita) OVER (PARTITION BY w.id, g.ubicazione_id))::text AS in_ubicazione,
           trim_scale(coalesce(sum(g.quantita) OVER (PARTITION BY w.id), 0))::text AS totale
      FROM (SELECT ${articolo}::int AS id) k
      LEFT JOIN articoli a ON a.id = k.id
      LEFT JOIN magazzini w ON ${magazzino === null ? Prisma.sql`w.gestione_ubicazioni` : Prisma.sql`w.id = ${magazzino}::int`}
      LEFT JOIN (giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id LEFT JOIN lotti l ON l.id = g.lotto_id)
             ON g.articolo_id = a.id AND g.magazzino_id = w.id AND g.quantita > 0
     ORDER BY w.id, u.codice, l.scadenza ASC NULLS LAST, l.codice`);

/** The warehouses that manage locations (the locations screen's choice). */
export const locationWarehouses = () =>
  query<{ id: number; codice: string; nome: string }>(
    Prisma.sql`SELECT id, codice, nome FROM magazzini WHERE gestione_ubicazioni ORDER BY id`,
  );

/** A location on the locations screen, with how many rows (article, lot) and articles it holds above zero. */
export interface ScreenLocationRow {
  id: number;
  codice: string;
  descrizione: string | null;
  tipo: TipoUbicazione;
  attiva: boolean;
  righe: number;
  articoli: number;
}

/** The locations screen's page: a warehouse's locations after `dopo` in id order, `take` at most. */
export const screenLocations = (
  magazzino: number,
  dopo: number,
  f: { cerca?: string | undefined; tipo?: string | undefined; attiva?: boolean | undefined },
  take: number,
) => {
  const filters: Prisma.Sql[] = [];
  if (f.cerca !== undefined) {
    const pattern = containsPattern(f.cerca);
    filters.push(Prisma.sql`AND (u.codice ILIKE ${pattern} OR u.descrizione ILIKE ${pattern})`);
  }
  if (f.tipo !== undefined) filters.push(Prisma.sql`AND u.tipo = ${f.tipo}`);
  if (f.attiva !== undefined) filters.push(Prisma.sql`AND u.attiva = ${f.attiva}`);
  return query<ScreenLocationRow>(Prisma.sql`
    SELECT u.id, u.codice, u.descrizione, u.tipo, u.attiva, coalesce(h.righe, 0)::int AS righe, coalesce(h.articoli, 0)::int AS articoli
      FROM ubicazioni u
      LEFT JOIN LATERAL (
        SELECT count(*) AS righe, count(DISTINCT g.articolo_id) AS articoli
          FROM giacenze_ubicazioni g WHERE g.ubicazione_id = u.id AND g.quantita > 0
      ) h ON true
     WHERE u.magazzino_id = ${magazzino}::int AND u.id > ${dopo}::int ${filters.length > 0 ? Prisma.join(filters, " ") : Prisma.empty}
     ORDER BY u.id
     ${limit(take)}`);
};

/** A row waiting for putaway: stock above zero in a receiving location. */
export interface AwaitingPutawayRow {
  magazzino_trovato: boolean;
  id: number | null;
  articolo_id: number;
  codice: string;
  descrizione: string;
  lotto: string | null;
  scadenza: string | null;
  ubicazione: string;
  quantita: string;
  /** The movement that brought goods into the row while it was empty: the page's key. */
  arrivo_id: number | null;
  /** Milliseconds since the epoch: formatted in the service zone. */
  arrivato_ms: number;
  /**
   * The oldest pallet (docs/api.md section 12) standing (received, not cancelled, not yet put away by its SSCC)
   * whose arrivals brought this article and lot into this location; null when none did.
   */
  sscc: string | null;
}

/**
 * What lies in the warehouse's receiving locations, by arrival (`arrivo_id`, the movement that filled the
 * row) after `dopo`, `take` rows at most, each with its pallet.
 */
export const awaitingPutaway = (magazzino: number, dopo: number, take: number) =>
  query<AwaitingPutawayRow>(Prisma.sql`
    SELECT w.magazzino_trovato, p.id, p.articolo_id, a.codice, a.descrizione, l.codice AS lotto,
           to_char(l.scadenza, 'YYYY-MM-DD') AS scadenza, p.ubicazione, trim_scale(p.quantita)::text AS quantita, p.arrivo_id,
           floor(extract(epoch FROM p.caricata_il) * 1000)::float8 AS arrivato_ms,
           (SELECT k.sscc FROM ricevimenti_collo rc
              JOIN colli k ON k.ricevimento_id = rc.id
              JOIN movimenti m ON m.id = ANY(rc.movimenti)
             WHERE rc.ubicazione_id = p.ubicazione_id AND rc.annullato_il IS NULL
               AND m.articolo_id = p.articolo_id AND m.lotto_id IS NOT DISTINCT FROM p.lotto_id
               AND m.ubicazione_id = p.ubicazione_id AND m.quantita > 0
               AND NOT EXISTS (SELECT 1 FROM stoccaggi_collo s WHERE s.ricevimento_id = rc.id)
               AND NOT EXISTS (SELECT 1 FROM movimenti c WHERE c.annulla_id = m.id)
             ORDER BY rc.ricevuto_il, rc.id LIMIT 1) AS sscc
      FROM (SELECT EXISTS (SELECT 1 FROM magazzini WHERE id = ${magazzino}::int) AS magazzino_trovato) w
      LEFT JOIN LATERAL (
        SELECT g.id, g.articolo_id, g.lotto_id, g.ubicazione_id, g.quantita, g.caricata_il, g.arrivo_id, u.codice AS ubicazione
          FROM ubicazioni u
          JOIN giacenze_ubicazioni g ON g.ubicazione_id = u.id
         WHERE w.magazzino_trovato AND u.magazzino_id = ${magazzino}::int AND u.tipo = 'ricevimento' AND g.quantita > 0
           AND g.arrivo_id > ${dopo}::int
         ORDER BY g.arrivo_id
         ${limit(take)}
      ) p ON true
      LEFT JOIN articoli a ON a.id = p.articolo_id
      LEFT JOIN lotti l ON l.id = p.lotto_id
     ORDER BY p.arrivo_id`);
