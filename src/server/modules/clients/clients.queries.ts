import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import { containsPattern } from "../../lib/sql";
import { type Window, windowed } from "../feeds/feeds.queries";

export interface ClientRow {
  id: number;
  codice: string;
  ragione_sociale: string;
  partita_iva: string | null;
  codice_fiscale: string | null;
  email: string | null;
  telefono: string | null;
  indirizzo: string | null;
  cap: string | null;
  citta: string | null;
  provincia: string | null;
  nazione: string;
  attivo: boolean;
  versione: bigint;
  creato_il: Date;
}

/**
 * GET /clienti: one page by id after `dopo`, or of the change feed by version after `modificati_dopo`
 * (the window of feeds.queries.ts), with `da`/`a` on the business date of creation.
 */
export const clientsPage = (w: Window, take: number, f: { da?: string; a?: string }) => {
  const { where, tail } = windowed(w, take, [
    ...(f.da === undefined ? [] : [Prisma.sql`t.data >= ${f.da}::date`]),
    ...(f.a === undefined ? [] : [Prisma.sql`t.data <= ${f.a}::date`]),
  ]);
  return query<ClientRow>(Prisma.sql`
    SELECT t.id, t.codice, t.ragione_sociale, t.partita_iva, t.codice_fiscale, t.email, t.telefono, t.indirizzo, t.cap,
           t.citta, t.provincia, t.nazione, t.attivo, t.versione, t.creato_il
      FROM clienti t
     WHERE ${where}
     ${tail}`);
};

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
