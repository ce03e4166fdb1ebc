import { z } from "zod";
import { idNumber, isoDate, pathId, queryDate, queryInt, shortText } from "../../lib/zod";
import { SIZES } from "./label-model";

/**
 * The labels of docs/api.md section 13: the GET parameters of each kind, and the same label named in the
 * body of a print job (`etichetta`). A GET answers the PDF or ZPL itself (the REST core writes the bytes
 * the procedure leaves in its response: `binary` in the meta).
 */

export const MAX_COPIES = 100;
/** Labels of one request (a range of locations, an order's rows), before copies. */
export const MAX_LABELS = 500;

const formato = z.enum(["pdf", "zpl"], { error: "deve essere pdf o zpl" }).optional().meta({ description: "pdf (predefinito) o zpl" });
const dimensione = z
  .enum(SIZES, { error: `deve essere ${SIZES.join(", ")}` })
  .optional()
  .meta({ description: "Dimensione in mm; predefinita 100x50" });
const copie = queryInt(1, MAX_COPIES)
  .optional()
  .meta({ description: `Copie di ogni etichetta, 1..${MAX_COPIES}` });
const output = z.object({}).meta({ description: "Il PDF (application/pdf) o lo ZPL (text/plain) delle etichette" });
export const labelFileOutput = output;

const lotText = z.string().trim().min(1, "non può essere vuoto").max(64, "al massimo 64 caratteri");
const quantityText = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,3})?$/, "deve essere una quantità positiva con al massimo 3 decimali")
  .meta({ description: "Quantità: stampata in (30) solo se intera" });

export const lotLabelInput = z.strictObject({
  articolo: queryInt(1, 2_147_483_647).meta({ description: "Id dell'articolo" }),
  lotto: lotText,
  scadenza: queryDate().optional(),
  quantita: quantityText.optional(),
  formato,
  dimensione,
  copie,
});

export const locationLabelInput = z.strictObject({
  magazzino: queryInt(1, 2_147_483_647).meta({ description: "Id del magazzino" }),
  ubicazione: shortText(64).optional().meta({ description: "Codice di una ubicazione" }),
  da: shortText(64).optional().meta({ description: "Primo codice dell'intervallo (con 'a')" }),
  a: shortText(64).optional().meta({ description: "Ultimo codice dell'intervallo (con 'da')" }),
  formato,
  dimensione,
  copie,
});

// Any text: a code that is no SSCC is the service's `sscc_non_valido`, as on every route that takes one.
const ssccText = z.string().meta({ description: "SSCC del collo (18 cifre, l'ultima di controllo GS1)" });

export const palletLabelInput = z.strictObject({ sscc: ssccText, formato, dimensione, copie });

export const rowLabelsInput = z.strictObject({
  id: pathId(),
  formato,
  dimensione: z
    .enum([...SIZES, "a4"], { error: `deve essere ${[...SIZES, "a4"].join(", ")}` })
    .optional()
    .meta({ description: "100x50 (predefinita), 100x150, 50x25, o a4: un foglio di dieci etichette" }),
  copie,
});

/** A label named in a print job's body: the parameters of its GET, with JSON types. */
export const labelSpec = z.discriminatedUnion(
  "tipo",
  [
    z.strictObject({
      tipo: z.literal("lotto"),
      articolo: idNumber(),
      lotto: lotText,
      scadenza: isoDate().nullish(),
      quantita: z
        .number({ error: "deve essere un numero" })
        .transform((n) => n)
        .pipe(
          z
            .number()
            .positive("deve essere maggiore di zero")
            .max(999_999_999_999)
            .refine((n) => /^\d+(\.\d{1,3})?$/.test(String(n)), "al massimo 3 decimali"),
        )
        // As the GET reads it: text, so (30) takes it only when whole.
        .transform((n) => String(n))
        .nullish(),
    }),
    z.strictObject({
      tipo: z.literal("ubicazione"),
      magazzino: idNumber(),
      ubicazione: shortText(64).optional(),
      da: shortText(64).optional(),
      a: shortText(64).optional(),
    }),
    z.strictObject({ tipo: z.literal("collo"), sscc: ssccText }),
    z.strictObject({
      tipo: z.literal("riga"),
      ordine: idNumber().meta({ description: "Id dell'ordine d'acquisto" }),
      riga: idNumber().optional().meta({ description: "Solo questa riga (id), invece di tutte" }),
    }),
  ],
  { error: "tipo deve essere lotto, collo, ubicazione o riga" },
);
export type LabelSpec = z.infer<typeof labelSpec>;
