import { z } from "zod";
import { instantString, queryBool, typeError } from "../../lib/zod";
import { feedPageShape, modificatiDopoParam, versione } from "../feeds/feeds.schemas";
import { listParams, periodParams } from "../lists/lists.schemas";

/** GET /clienti: section 4's id list, and with `modificati_dopo` the change feed of section 9; `cerca` and `attivo` as the other lists. */
export const listClientsInput = z.strictObject({
  ...listParams(100),
  modificati_dopo: modificatiDopoParam(),
  ...periodParams,
  cerca: z.string().trim().min(1, "non può essere vuoto").max(100, "al massimo 100 caratteri").optional().meta({
    description: "Solo i clienti il cui codice o la cui ragione sociale contiene questo testo, senza distinguere maiuscole e minuscole",
  }),
  attivo: queryBool().optional().meta({ description: "true: solo gli attivi; false: solo i disattivati" }),
});
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
  creato_il: instantString(),
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
