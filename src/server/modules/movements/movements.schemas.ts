import { z } from "zod";
import { articoloRef, decimalString, idNumber, isoDate, queryInt, rawNumber, shortText, typeError } from "../../lib/zod";
import { ORIGINI } from "../../../lib/domain-lists";
import { listParams, newestParams, newestShape, pageShape, periodParams } from "../lists/lists.schemas";

export const MAX_MOVEMENT_ROWS = 500;
export const NATURE = ["carico", "scarico", "trasferimento"] as const;

const rowErrorSchema = z.object({ codice: z.string(), messaggio: z.string() });

export const writeMovementsRowInput = z
  .strictObject({
    ean: shortText(64).optional(),
    codice: shortText(64).optional(),
    quantita: rawNumber().meta({ description: "Quantità positiva, al massimo 3 decimali; il segno viene da `natura`" }),
    prezzo: z
      .string({ error: typeError('deve essere una stringa decimale, per esempio "12.50"') })
      .optional()
      .meta({ description: "Prezzo unitario come stringa decimale (al massimo 4 decimali)" }),
    lotto: shortText(64).optional(),
    scadenza: isoDate().optional().meta({ description: "Scadenza di un lotto nuovo (solo `carico`)" }),
    ubicazione: shortText(64).optional().meta({
      description:
        "Codice dell'ubicazione (magazzini che gestiscono le ubicazioni: obbligatoria; altrimenti non ammessa): dove la merce entra (carico, trasferimento) o da dove esce (scarico)",
    }),
    ubicazione_origine: shortText(64)
      .optional()
      .meta({ description: "Solo `trasferimento`: l'ubicazione da cui la merce esce, nel magazzino di origine" }),
  })
  .refine((r) => r.ean !== undefined || r.codice !== undefined, {
    message: "indicare l'articolo con 'codice' o 'ean'",
    path: ["codice"],
  });

/** The refusal of a transfer inside one warehouse that is not a move between two of its locations. */
export const SAME_WAREHOUSE =
  "deve essere diverso da 'magazzino' (nello stesso magazzino solo tra due ubicazioni diverse di un magazzino che gestisce le ubicazioni)";

export const writeMovementsInput = z
  .strictObject({
    natura: z.enum(NATURE, { error: "deve essere 'carico', 'scarico' o 'trasferimento'" }),
    magazzino: idNumber(),
    magazzino_origine: idNumber().optional(),
    causale: shortText(200).optional(),
    operazione: idNumber().optional(),
    righe: z.array(writeMovementsRowInput).min(1, "almeno una riga"),
  })
  .superRefine((b, ctx) => {
    if (b.natura === "trasferimento" && b.magazzino_origine === undefined)
      ctx.addIssue({ code: "custom", path: ["magazzino_origine"], message: "obbligatorio per un trasferimento" });
    if (b.natura !== "trasferimento" && b.magazzino_origine !== undefined)
      ctx.addIssue({ code: "custom", path: ["magazzino_origine"], message: "ammesso solo per un trasferimento" });
    // Inside one warehouse only between two different locations (API.md section 11): every row names both.
    // Whether the warehouse manages locations is the service's check, with the same refusal.
    if (
      b.natura === "trasferimento" &&
      b.magazzino_origine === b.magazzino &&
      !b.righe.every((r) => r.ubicazione !== undefined && r.ubicazione_origine !== undefined && r.ubicazione !== r.ubicazione_origine)
    )
      ctx.addIssue({ code: "custom", path: ["magazzino_origine"], message: SAME_WAREHOUSE });
    b.righe.forEach((r, i) => {
      if (r.scadenza !== undefined && b.natura !== "carico")
        ctx.addIssue({ code: "custom", path: ["righe", i, "scadenza"], message: "ammessa solo su un carico (crea il lotto)" });
      if (r.ubicazione_origine !== undefined && b.natura !== "trasferimento")
        ctx.addIssue({ code: "custom", path: ["righe", i, "ubicazione_origine"], message: "ammessa solo per un trasferimento" });
    });
  });
export type WriteMovementsInput = z.infer<typeof writeMovementsInput>;

export const writeMovementsRowOutcome = z.object({
  indice: z.number().int(),
  esito: z.enum(["scritta", "rifiutata"]),
  movimento: z.number().int().optional(),
  movimento_origine: z.number().int().optional(),
  operazione: z.number().int().optional(),
  errore: rowErrorSchema.optional(),
});

export const writeMovementsOutput = z.object({
  operazione: z.number().int().nullable(),
  scritte: z.number().int(),
  rifiutate: z.number().int(),
  righe: z.array(writeMovementsRowOutcome),
});
export type WriteMovementsOutput = z.infer<typeof writeMovementsOutput>;

export const movementOutput = z.object({
  id: z.number().int(),
  operazione: z.number().int(),
  data: z.string(),
  registrato_il: z.string(),
  origine: z.enum(ORIGINI),
  natura: z.enum(NATURE),
  causale: z.string().nullable(),
  magazzino: z.number().int(),
  articolo: articoloRef,
  quantita: decimalString(),
  prezzo: decimalString().nullable(),
  lotto: z.string().nullable(),
  ubicazione: z.string().nullable().meta({ description: "Codice dell'ubicazione; null nei magazzini senza ubicazioni" }),
  riferimento: z.object({ tipo: z.enum(["riga_ordine", "documento_vendita", "movimento"]), id: z.number().int() }).nullable(),
  annulla: z.number().int().nullable(),
  autore: z
    .object({ tipo: z.enum(["chiave", "utente"]), id: z.number().int(), nome: z.string() })
    .nullable()
    .meta({ description: "Chi l'ha scritto: una chiave API (il suo nome) o un utente (il suo username)" }),
});
export type MovementOutput = z.infer<typeof movementOutput>;

export const listMovementsInput = z.strictObject({
  ...listParams(100),
  ...periodParams,
  articolo: queryInt(1, 2_147_483_647).optional().meta({ description: "Id articolo" }),
  magazzino: queryInt(1, 2_147_483_647).optional().meta({ description: "Id magazzino" }),
  origine: z.enum(ORIGINI, { error: `deve essere uno tra ${ORIGINI.join(", ")}` }).optional(),
  operazione: queryInt(1, 2_147_483_647).optional().meta({ description: "Numero di operazione" }),
});
export type ListMovementsInput = z.infer<typeof listMovementsInput>;

export const listMovementsOutput = z.object({ movimenti: z.array(movementOutput), ...pageShape });

/**
 * The movements screen's read (tRPC only, not on REST): the list's filters, newest first, a page of the
 * rows below `prima` (absent: the newest page). The next page's `prima` is in the answer.
 */
export const newestMovementsInput = listMovementsInput.omit({ dopo: true }).extend(newestParams("i movimenti"));
export type NewestMovementsInput = z.infer<typeof newestMovementsInput>;
/** What a caller sends: the query's strings, as the screen holds them. */
export type NewestMovementsParams = z.input<typeof newestMovementsInput>;

export const newestMovementsOutput = z.object({
  movimenti: z.array(
    movementOutput.extend({
      annullato_da: z
        .number()
        .int()
        .nullable()
        .meta({ description: "Un arrivo annullato: il movimento di storno che lo annulla; null altrimenti" }),
    }),
  ),
  ...newestShape,
});
