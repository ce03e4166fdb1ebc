import { z } from "zod";
import { rowErrorOutput, rowsOf } from "../../lib/rows";
import { decimalString, idNumber, rawNumber, shortText, typeError } from "../../lib/zod";

/** POST /resi-fornitore (docs/api.md section 12). */

export const MAX_RETURN_ROWS = 500;

/** One returned row, as the service checks it (lib/rows.ts); the OpenAPI document describes rows with it. */
export const returnRowInput = z
  .strictObject({
    ean: shortText(64).optional(),
    codice: shortText(64).optional(),
    quantita: rawNumber(),
    lotto: shortText(64).optional(),
    ubicazione: shortText(64).optional().meta({ description: "Magazzini con ubicazioni: da dove esce la merce (codice)" }),
    motivo: shortText(200),
    riga: idNumber().optional().meta({ description: "La riga d'ordine (del fornitore) che la merce resa aveva consegnato" }),
    riapri: z
      .boolean({ error: typeError("deve essere true o false") })
      .transform((b) => b)
      .optional()
      .meta({ description: "true: la quantità resa torna attesa sulla riga (`arrivata` scende)" }),
  })
  .refine((r) => r.ean !== undefined || r.codice !== undefined, {
    message: "indicare l'articolo con 'codice' o 'ean'",
    path: ["codice"],
  })
  .refine((r) => !r.riapri || r.riga !== undefined, { message: "'riapri' richiede 'riga'", path: ["riapri"] });

export const returnInput = z.strictObject({
  fornitore: shortText(64).meta({ description: "Codice del fornitore a cui si rende" }),
  magazzino: idNumber(),
  ddt: shortText(64).optional().meta({ description: "Il documento di trasporto del reso" }),
  righe: rowsOf(
    returnRowInput,
    "righe",
    "Una riga resa. Una riga malformata (un campo mancante, di tipo sbagliato o sconosciuto) è rifiutata da sola con " +
      "`campo_non_valido` e il campo in `errore.campo`; le altre righe si scrivono.",
  ).min(1, "almeno una riga"),
});
export type ReturnInput = z.infer<typeof returnInput>;

export const returnOutput = z.object({
  operazione: z.number().int().nullable(),
  scritte: z.number().int(),
  rifiutate: z.number().int(),
  righe: z.array(
    z.object({
      indice: z.number().int(),
      esito: z.enum(["scritta", "rifiutata"]),
      movimento: z.number().int().optional(),
      operazione: z.number().int().optional(),
      riga: z
        .object({ riga: z.number().int(), arrivata: decimalString(), residua: decimalString() })
        .optional()
        .meta({ description: "Con `riapri`: la riga d'ordine dopo il reso" }),
      errore: rowErrorOutput.optional(),
    }),
  ),
});
export type ReturnOutput = z.infer<typeof returnOutput>;
