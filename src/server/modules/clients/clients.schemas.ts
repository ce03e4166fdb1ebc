import { z } from "zod";
import { typeError } from "../../lib/zod";
import { listParams, pageShape, periodParams } from "../lists/lists";

export const listClientsInput = z.strictObject({ ...listParams(100), ...periodParams });
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
  creato_il: z.string(),
});

export const listClientsOutput = z.object({ clienti: z.array(clientOutput), ...pageShape });

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
