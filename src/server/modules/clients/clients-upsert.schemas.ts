import { z } from "zod";
import { typeError } from "../../lib/zod";
import { clientInput } from "../catalogue/import.schemas";

/** POST /clienti (docs/api.md section 9): the client fields of GET /clienti plus `attivo`, checked row by row by the service. */

const field = (type: string, description: string, nullable = true) =>
  z
    .unknown()
    .optional()
    .meta({ ...(nullable ? { type: [type, "null"] } : { type }), description } as Record<string, unknown>);

export const clientUpsertRow = z
  .looseObject({
    codice: field("string", "Codice dell'integratore (1..64 caratteri): chiave dell'upsert", false),
    ragione_sociale: field("string", "Ragione sociale (1..200 caratteri), obbligatoria per un cliente nuovo", false),
    partita_iva: field("string", "Partita IVA (al massimo 32 caratteri)"),
    codice_fiscale: field("string", "Codice fiscale (al massimo 32 caratteri)"),
    email: field("string", "Indirizzo email"),
    telefono: field("string", "Telefono (al massimo 40 caratteri)"),
    indirizzo: field("string", "Indirizzo (al massimo 200 caratteri)"),
    cap: field("string", "CAP (al massimo 16 caratteri)"),
    citta: field("string", "Città (al massimo 100 caratteri)"),
    provincia: field("string", "Provincia (al massimo 64 caratteri)"),
    nazione: field("string", "Codice ISO di due lettere maiuscole; predefinito IT", false),
    attivo: field("boolean", "Falso: non si vende al cliente; resta nello storico. Predefinito per un codice nuovo: true", false),
  })
  .meta({ description: "Un campo assente mantiene il valore registrato; `null` cancella un campo facoltativo." });

export const upsertClientsInput = z.strictObject({
  clienti: z.array(clientUpsertRow, { error: typeError("deve essere un elenco [ … ] di clienti") }).min(1, "almeno una riga"),
});

/** A row as the service checks it: the import's client fields, `ragione_sociale` optional for a known code. */
export const clientRowCheck = clientInput.partial({ ragione_sociale: true });
