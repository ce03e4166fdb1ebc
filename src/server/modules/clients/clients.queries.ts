import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import { containsPattern } from "../../lib/sql";

/** Clients by code, name or VAT number, up to 20 (an exact code first); without text, the first 20 by name. */
export const searchClients = (cerca: string) => {
  const pattern = containsPattern(cerca);
  return query<{ id: number; codice: string; ragione_sociale: string; partita_iva: string | null }>(Prisma.sql`
    SELECT id, codice, ragione_sociale, partita_iva
      FROM clienti
     WHERE ${cerca} = '' OR codice ILIKE ${pattern} OR ragione_sociale ILIKE ${pattern} OR partita_iva = ${cerca}
     ORDER BY upper(codice) = upper(${cerca}) DESC, ragione_sociale, id
     LIMIT 20`);
};
