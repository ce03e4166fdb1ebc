import { z } from "zod";
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
