import { z } from "zod";
import {
  articoloRef,
  dateString,
  decimalString,
  idNumber,
  instantString,
  isoDate,
  priceString,
  queryInt,
  rawNumber,
  shortText,
} from "../../lib/zod";
import { ORIGINI } from "../../../lib/domain-lists";
import { rowErrorOutput, rowsOf } from "../../lib/rows";
import { listParams, newestParams, newestShape, pageShape, periodParams } from "../lists/lists.schemas";

export const MAX_MOVEMENT_ROWS = 500;
export const NATURE = ["carico", "scarico", "trasferimento"] as const;
/** What a movement's `riferimento` points at: an order row, a sales document, a movement, a reservation (section 14). */
export const RIFERIMENTO_TIPI = ["riga_ordine", "documento_vendita", "movimento", "prenotazione"] as const;

/**
 * One row as the service checks it, strictly (lib/rows.ts): a fault here is that row's `campo_non_valido`.
 * The OpenAPI document describes the rows a client sends with it.
 */
export const writeMovementsRowInput = z
  .strictObject({
    ean: shortText(64).optional(),
    codice: shortText(64).optional(),
    quantita: rawNumber().meta({ description: "Quantità positiva, al massimo 3 decimali; il segno viene da `natura`" }),
    prezzo: priceString().optional(),
    lotto: shortText(64).optional(),
    scadenza: isoDate().optional().meta({ description: "Scadenza di un lotto nuovo (solo `carico`)" }),
    ubicazione: shortText(64).optional().meta({
      description:
        "Codice dell'ubicazione (magazzini che gestiscono le ubicazioni: obbligatoria; altrimenti non ammessa): dove la merce entra (carico, trasferimento) o da dove esce (scarico)",
    }),
    ubicazione_origine: shortText(64)
      .optional()
      .meta({ description: "Solo `trasferimento`: l'ubicazione da cui la merce esce, nel magazzino di origine" }),
    prenotazione: idNumber().optional().meta({
      description:
        "Solo `scarico`: la prenotazione (id) di cui la merce che esce consuma la quantità prenotata; oltre quanto tiene la riga della prenotazione, lo scarico è controllato come uno che non nomina prenotazioni",
    }),
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
    righe: rowsOf(
      writeMovementsRowInput,
      "righe",
      "Una riga. Una riga malformata (un campo mancante, di tipo sbagliato o sconosciuto, una data impossibile) è rifiutata da sola " +
        "con `campo_non_valido` e il campo in `errore.campo`; le altre righe si scrivono.",
    ).min(1, "almeno una riga"),
  })
  .superRefine((b, ctx) => {
    if (b.natura === "trasferimento" && b.magazzino_origine === undefined)
      ctx.addIssue({ code: "custom", path: ["magazzino_origine"], message: "obbligatorio per un trasferimento" });
    if (b.natura !== "trasferimento" && b.magazzino_origine !== undefined)
      ctx.addIssue({ code: "custom", path: ["magazzino_origine"], message: "ammesso solo per un trasferimento" });
    // Inside one warehouse only between two different locations (docs/api.md section 11): every row names both.
    // Whether the warehouse manages locations is the service's check, with the same refusal.
    if (
      b.natura === "trasferimento" &&
      b.magazzino_origine === b.magazzino &&
      !b.righe.every((r) => r.ubicazione !== undefined && r.ubicazione_origine !== undefined && r.ubicazione !== r.ubicazione_origine)
    )
      ctx.addIssue({ code: "custom", path: ["magazzino_origine"], message: SAME_WAREHOUSE });
  });
export type WriteMovementsInput = z.infer<typeof writeMovementsInput>;

/** A row's fields that depend on the call's `natura`: checked with the row, refused as that row. */
const rowFor = (natura: (typeof NATURE)[number]) =>
  writeMovementsRowInput.superRefine((r, ctx) => {
    if (r.scadenza !== undefined && natura !== "carico")
      ctx.addIssue({ code: "custom", path: ["scadenza"], message: "ammessa solo su un carico (crea il lotto)" });
    if (r.ubicazione_origine !== undefined && natura !== "trasferimento")
      ctx.addIssue({ code: "custom", path: ["ubicazione_origine"], message: "ammessa solo per un trasferimento" });
    if (r.prenotazione !== undefined && natura !== "scarico")
      ctx.addIssue({ code: "custom", path: ["prenotazione"], message: "ammessa solo su uno scarico (consuma la prenotazione)" });
  });
// Built once, not per call: zod compiles an object schema the first time it parses with it.
const ROW_BY_NATURE = { carico: rowFor("carico"), scarico: rowFor("scarico"), trasferimento: rowFor("trasferimento") };
export const movementRowFor = (natura: (typeof NATURE)[number]) => ROW_BY_NATURE[natura];

export const writeMovementsRowOutcome = z.object({
  indice: z.number().int(),
  esito: z.enum(["scritta", "rifiutata"]),
  movimento: z.number().int().optional(),
  movimento_origine: z.number().int().optional(),
  operazione: z.number().int().optional(),
  errore: rowErrorOutput.optional(),
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
  data: dateString(),
  registrato_il: instantString(),
  origine: z.enum(ORIGINI),
  natura: z.enum(NATURE),
  causale: z.string().nullable(),
  magazzino: z.number().int(),
  articolo: articoloRef,
  quantita: decimalString(),
  prezzo: decimalString().nullable(),
  lotto: z.string().nullable(),
  ubicazione: z.string().nullable().meta({ description: "Codice dell'ubicazione; null nei magazzini senza ubicazioni" }),
  riferimento: z
    .object({ tipo: z.enum(RIFERIMENTO_TIPI), id: z.number().int() })
    .nullable()
    .meta({
      description: "Ciò a cui il movimento si riferisce: una riga d'ordine, un documento di vendita, un movimento, una prenotazione",
    }),
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
