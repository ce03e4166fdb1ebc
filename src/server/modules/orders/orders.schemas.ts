import { z } from "zod";
import { decimalString, idNumber, shortText } from "../../lib/zod";

export const STATI_ORDINE = ["aperto", "parziale", "evaso"] as const;

export const listOrdersInput = z.strictObject({
  cerca: shortText(64).optional().meta({ description: "Numero d'ordine o nome del fornitore (contiene)" }),
  includi_evasi: z
    .boolean()
    .transform((b) => b)
    .optional(),
  limite: idNumber().pipe(z.number().max(200)).optional(),
});
export type ListOrdersInput = z.infer<typeof listOrdersInput>;

export const orderSummaryOutput = z.object({
  id: z.number().int(),
  numero: z.string(),
  data: z.string(),
  stato: z.enum(STATI_ORDINE),
  fornitore: z.object({ id: z.number().int(), nome: z.string() }),
  magazzino: z.object({ id: z.number().int(), codice: z.string() }),
  righe: z.number().int(),
});
export const listOrdersOutput = z.object({ ordini: z.array(orderSummaryOutput) });

export const getOrderInput = z.strictObject({ id: idNumber() });

/** An order as printed for the receiving bay: every row with its label and the article's EAN. */
export const printableOrderOutput = orderSummaryOutput.omit({ righe: true }).extend({
  righe: z.array(
    z.object({
      riga: z.number().int(),
      posizione: z.number().int(),
      etichetta: z.string(),
      articolo: z.object({
        id: z.number().int(),
        codice: z.string(),
        ean: z.string().nullable(),
        descrizione: z.string(),
        unita: z.string(),
      }),
      ordinata: decimalString(),
      arrivata: decimalString(),
      residua: decimalString(),
    }),
  ),
});
export type PrintableOrder = z.infer<typeof printableOrderOutput>;
