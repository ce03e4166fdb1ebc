import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import { containsPattern } from "../../lib/sql";
import { type Window, windowed } from "../lists/window";

/** A client as an upsert compares it with what it is asked to write. */
export interface KnownClient {
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
}

export const CLIENT_TEXT_FIELDS = [
  "ragione_sociale",
  "partita_iva",
  "codice_fiscale",
  "email",
  "telefono",
  "indirizzo",
  "cap",
  "citta",
  "provincia",
  "nazione",
] as const;

/** Every column an upsert sets, one array per column, row i of each together. */
export type ClientColumns = { [K in (typeof CLIENT_TEXT_FIELDS)[number]]: (string | null)[] } & { attivo: boolean[] };

export const clientsByCode = (codes: string[]) =>
  query<KnownClient>(Prisma.sql`
    SELECT id, codice, ragione_sociale, partita_iva, codice_fiscale, email, telefono, indirizzo, cap, citta, provincia, nazione, attivo
      FROM clienti WHERE codice = ANY(${codes}::text[])`);

/** New clients, in one statement (the sync gate on clienti is taken once), dated the business day. */
export const insertClients = (codes: string[], c: ClientColumns, data: string) =>
  query<{ id: number; codice: string }>(Prisma.sql`
    INSERT INTO clienti (codice, ragione_sociale, partita_iva, codice_fiscale, email, telefono, indirizzo, cap, citta, provincia,
                         nazione, attivo, data)
    SELECT u.*, ${data}::date
      FROM unnest(${codes}::text[], ${c.ragione_sociale}::text[], ${c.partita_iva}::text[], ${c.codice_fiscale}::text[],
                  ${c.email}::text[], ${c.telefono}::text[], ${c.indirizzo}::text[], ${c.cap}::text[], ${c.citta}::text[],
                  ${c.provincia}::text[], ${c.nazione}::text[], ${c.attivo}::boolean[]) AS u
    RETURNING id, codice`);

/** Changed clients, in one statement: only the rows that differ, each with every column. */
export const updateClients = (ids: number[], c: ClientColumns) =>
  query<never>(Prisma.sql`
    UPDATE clienti t
       SET ragione_sociale = u.ragione_sociale, partita_iva = u.partita_iva, codice_fiscale = u.codice_fiscale, email = u.email,
           telefono = u.telefono, indirizzo = u.indirizzo, cap = u.cap, citta = u.citta, provincia = u.provincia, nazione = u.nazione,
           attivo = u.attivo
      FROM unnest(${ids}::int[], ${c.ragione_sociale}::text[], ${c.partita_iva}::text[], ${c.codice_fiscale}::text[],
                  ${c.email}::text[], ${c.telefono}::text[], ${c.indirizzo}::text[], ${c.cap}::text[], ${c.citta}::text[],
                  ${c.provincia}::text[], ${c.nazione}::text[], ${c.attivo}::boolean[])
           AS u(id, ragione_sociale, partita_iva, codice_fiscale, email, telefono, indirizzo, cap, citta, provincia, nazione, attivo)
     WHERE t.id = u.id`);

/** A client as GET /clienti reads it: its fields, its version and creation instant. */
export interface ClientRow extends KnownClient {
  versione: bigint;
  creato_il: Date;
}

/**
 * GET /clienti: one page by id after `dopo`, or of the change feed by version after `modificati_dopo`
 * (the window of feeds.queries.ts), with `da`/`a` on the business date of creation, `cerca` on code and
 * ragione sociale, `attivo`.
 */
export const clientsPage = (w: Window, take: number, f: { da?: string; a?: string; cerca?: string; attivo?: boolean }) => {
  const { where, tail } = windowed(w, take, [
    ...(f.cerca === undefined
      ? []
      : [Prisma.sql`(t.codice ILIKE ${containsPattern(f.cerca)} OR t.ragione_sociale ILIKE ${containsPattern(f.cerca)})`]),
    ...(f.attivo === undefined ? [] : [Prisma.sql`t.attivo = ${f.attivo}::boolean`]),
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
