import { z } from "zod";
import { typeError } from "../../lib/zod";
import { feedPageShape, modificatiDopoParam, versione } from "../feeds/feeds.schemas";
import { listParams, periodParams } from "../lists/lists.schemas";

/** GET /clienti: section 4's id list, and with `modificati_dopo` the change feed of section 9. */
export const listClientsInput = z.strictObject({ ...listParams(100), modificati_dopo: modificatiDopoParam(), ...periodParams });
export type ListClientsInput = z.infer<typeof listClientsInput>;

export const clientOutput = z.object({
  id: z.number().int(),
  codice: z.string(),
  ragione_sociale: z.string(),
  partita_iva: z.string().nullable(),
  codice_fiscale: z.string().nullable(),
  email: z.string().nullable(),
  telefono: z.string().nullable(),
  indirizzo: z.string().nullable(),
  cap: z.string().nullable(),
  citta: z.string().nullable(),
  provincia: z.string().nullable(),
  nazione: z.string(),
  attivo: z.boolean(),
  versione,
  creato_il: z.string(),
});

export type ClientOutput = z.infer<typeof clientOutput>;

export const listClientsOutput = z.object({ clienti: z.array(clientOutput), ...feedPageShape });

/** The screens' client picker (tRPC only: REST clients sync the whole list with GET /clienti). */
export const searchClientsInput = z.strictObject({
  cerca: z
    .string({ error: typeError("deve essere una stringa") })
    .trim()
    .max(64, "al massimo 64 caratteri"),
});
export const searchClientsOutput = z.object({
  clienti: z.array(z.object({ id: z.number().int(), codice: z.string(), ragione_sociale: z.string(), partita_iva: z.string().nullable() })),
});
