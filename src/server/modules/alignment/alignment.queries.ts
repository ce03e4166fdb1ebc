import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** What a location holds above zero, per (article, lot), by article code and lot code: a complete count's other units. */
export const heldInLocation = (ubicazione: number) =>
  query<{ articolo_id: number; codice: string; gestione_lotti: boolean; lotto_id: number | null; lotto: string | null }>(Prisma.sql`
    SELECT g.articolo_id, a.codice, a.gestione_lotti, g.lotto_id, l.codice AS lotto
      FROM giacenze_ubicazioni g JOIN articoli a ON a.id = g.articolo_id LEFT JOIN lotti l ON l.id = g.lotto_id
     WHERE g.ubicazione_id = ${ubicazione} AND g.quantita > 0
     ORDER BY a.codice COLLATE "C", l.codice COLLATE "C"`);
