import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** Open lots (residual above zero), earliest expiry first, no expiry last, then by code. */
export const openLots = (articolo: number, magazzino: number) =>
  query<{ codice: string; scadenza: Date | null; residua: Prisma.Decimal }>(Prisma.sql`
    SELECT codice, scadenza, residua FROM lotti
     WHERE articolo_id = ${articolo} AND magazzino_id = ${magazzino} AND residua > 0
     ORDER BY scadenza ASC NULLS LAST, codice ASC`);
