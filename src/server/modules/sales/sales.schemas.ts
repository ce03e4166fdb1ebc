import { z } from "zod";
import { Decimal } from "../../lib/decimal";
import { articoloRef, dateString, decimalString, idNumber, isoDate, queryInt, rawNumber, shortText, typeError } from "../../lib/zod";
import { listParams, newestParams, newestShape, pageShape, periodParams } from "../lists/lists.schemas";

export const MAX_SALES_ROWS = 500;
export const TIPI_DOCUMENTO = ["ddt", "fattura", "scontrino"] as const;

/**
 * A percentage (discount, VAT rate) as a decimal string: the columns are NUMERIC(5,2), so more than
 * 2 decimals is refused rather than rounded, like every other decimal of the contract.
 */
const percentString = (example: string) =>
  z
    .string({ error: typeError(`deve essere una stringa decimale da 0 a 100, per esempio "${example}"`) })
    .regex(/^\d{1,3}(\.\d{1,2})?$/, `deve essere una percentuale da 0 a 100 con il punto e al massimo 2 decimali, per esempio "${example}"`)
    .refine((s) => new Decimal(s).lte(100), "non può superare 100");

export const createSaleRowInput = z
  .strictObject({
    ean: shortText(64).optional(),
    codice: shortText(64).optional(),
    quantita: rawNumber().meta({ description: "Quantità venduta, maggiore di zero, al massimo 3 decimali" }),
    prezzo: z
      .string({ error: typeError('deve essere una stringa decimale, per esempio "12.50"') })
      .meta({ description: "Prezzo unitario come stringa decimale (al massimo 4 decimali)" }),
    sconto: percentString("10").optional().meta({ description: 'Sconto in percentuale (predefinito "0")' }),
    aliquota_iva: percentString("22").meta({ description: "Aliquota IVA in percentuale" }),
    lotto: shortText(64).optional(),
    ubicazione: shortText(64)
      .optional()
      .meta({ description: "Codice dell'ubicazione da cui esce la merce (obbligatoria nei magazzini che gestiscono le ubicazioni)" }),
  })
  .refine((r) => r.ean !== undefined || r.codice !== undefined, {
    message: "indicare l'articolo con 'codice' o 'ean'",
    path: ["codice"],
  });

export const createSaleInput = z.strictObject({
  tipo: z.enum(TIPI_DOCUMENTO, { error: "deve essere 'ddt', 'fattura' o 'scontrino'" }),
  cliente: idNumber(),
  magazzino: idNumber(),
  data: isoDate().optional().meta({ description: "Data del documento (predefinita: oggi nel fuso del servizio)" }),
  causale: shortText(200).optional().meta({ description: "Causale dei movimenti di vendita (predefinita: tipo e numero del documento)" }),
  righe: z.array(createSaleRowInput).min(1, "almeno una riga"),
});
export type CreateSaleInput = z.infer<typeof createSaleInput>;

export const saleRowOutput = z.object({
  articolo: articoloRef,
  descrizione: z.string(),
  quantita: decimalString(),
  prezzo: decimalString(),
  sconto: decimalString(),
  aliquota_iva: decimalString(),
  importo: decimalString(),
  lotto: z.string().nullable(),
  movimento: z.number().int().nullable(),
});

export const saleDocumentOutput = z.object({
  id: z.number().int(),
  numero: z.string(),
  tipo: z.enum(TIPI_DOCUMENTO),
  data: dateString(),
  cliente: z.object({ id: z.number().int(), ragione_sociale: z.string() }),
  magazzino: z.number().int(),
  righe: z.array(saleRowOutput),
  imponibile: decimalString(),
  imposta: decimalString(),
  totale: decimalString(),
});
export type SaleDocumentOutput = z.infer<typeof saleDocumentOutput>;

export const listSalesInput = z.strictObject({
  ...listParams(100),
  ...periodParams,
  cliente: queryInt(1, 2_147_483_647).optional().meta({ description: "Id cliente" }),
});
export type ListSalesInput = z.infer<typeof listSalesInput>;

export const listSalesOutput = z.object({ documenti: z.array(saleDocumentOutput), ...pageShape });

/**
 * The sales screen's read (tRPC only, not on REST): the list's filters, newest first, a page of the
 * documents below `prima` (absent: the newest page). The next page's `prima` is in the answer.
 */
export const newestSalesInput = listSalesInput.omit({ dopo: true }).extend(newestParams("i documenti"));
export type NewestSalesInput = z.infer<typeof newestSalesInput>;
/** What a caller sends: the query's strings, as the screen holds them. */
export type NewestSalesParams = z.input<typeof newestSalesInput>;

export const newestSalesOutput = z.object({
  documenti: z.array(saleDocumentOutput),
  ...newestShape,
});
