import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { cursors, feedPage } from "../feeds/feeds.service";
import { assertPeriod } from "../lists/lists";
import * as q from "./clients.queries";
import type { ClientOutput, ListClientsInput } from "./clients.schemas";

/**
 * GET /clienti: by id as section 4, or with `modificati_dopo` the change feed by `versione` (docs/api.md section 9),
 * through the feeds' machinery and the clients' gate; `da`/`a` read the creation date in the service time zone.
 */
/** A client as the contract shows it (GET /clienti, and cliente.modificato: there `creato_il` in ms). */
export function toClientOutput(
  c: Omit<q.ClientRow, "versione" | "creato_il"> & { versione: bigint | number; creato_il: Date | number },
  timeZone: string,
): ClientOutput {
  return {
    id: c.id,
    codice: c.codice,
    ragione_sociale: c.ragione_sociale,
    partita_iva: c.partita_iva,
    codice_fiscale: c.codice_fiscale,
    email: c.email,
    telefono: c.telefono,
    indirizzo: c.indirizzo,
    cap: c.cap,
    citta: c.citta,
    provincia: c.provincia,
    nazione: c.nazione,
    attivo: c.attivo,
    versione: Number(c.versione),
    creato_il: formatInstant(timeZone, c.creato_il),
  };
}

export async function listClients(db: Db, input: ListClientsInput, timeZone: string) {
  assertPeriod(input.da, input.a);
  const p = await feedPage(db, input, "clienti", (w, take) => q.clientsPage(w, take, input));
  return {
    clienti: p.rows.map((c) => toClientOutput(c, timeZone)),
    ...cursors(p),
  };
}

/** Clients a picker offers: by code, name or VAT number, up to 20; without text, the first 20 by name. */
export async function searchClients(db: Db, cerca: string) {
  return rows(db, q.searchClients(cerca));
}
