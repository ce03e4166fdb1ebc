import { z } from "zod";
import { rowErrorOutput, rowsOf } from "../../lib/rows";
import { articoloRef, decimalString, idNumber, rawNumber, shortText, typeError } from "../../lib/zod";

export const MAX_ALIGNMENT_ROWS = 10_000;

const LOCATION_CODE = shortText(64);

/** One counted row, as the service checks it (lib/rows.ts); the OpenAPI document describes rows with it. */
export const alignRowInput = z.strictObject({
  codice: shortText(64).meta({ description: "Codice articolo (di una variante, per gli articoli con varianti)" }),
  contato: rawNumber().meta({ description: "Quantità contata, ≥ 0, al massimo 3 decimali" }),
  lotto: shortText(64).optional().meta({ description: "Obbligatorio per gli articoli gestiti a lotti: si conta per (articolo, lotto)" }),
  ubicazione: LOCATION_CODE.optional().meta({
    description: "Magazzini con ubicazioni: dove si è contato (codice); si conta per (articolo, lotto, ubicazione)",
  }),
});
export type AlignRowInput = z.output<typeof alignRowInput>;

export const alignInput = z
  .strictObject({
    magazzino: idNumber(),
    causale: shortText(200).optional(),
    ubicazione: LOCATION_CODE.optional().meta({
      description: "Magazzini con ubicazioni: l'ubicazione di ogni riga che non ne indica una (codice)",
    }),
    completa: z
      .boolean({ error: typeError("deve essere true o false") })
      .transform((b) => b)
      .optional()
      .meta({
        description:
          "true: conta l'ubicazione indicata (obbligatoria) per intero: ogni articolo e lotto che contiene e che le righe non nominano è contato zero",
      }),
    simula: z
      .boolean({ error: typeError("deve essere true o false") })
      .transform((b) => b)
      .optional()
      .meta({ description: "true: calcola e risponde senza scrivere nulla (anteprima)" }),
    righe: rowsOf(
      alignRowInput,
      "righe",
      "Una riga contata. Una riga malformata (un campo mancante, di tipo sbagliato o sconosciuto) è rifiutata da sola con " +
        "`campo_non_valido` e il campo in `errore.campo`; le altre righe si allineano. Almeno una riga; vuoto solo con " +
        "`completa` e `ubicazione`: l'ubicazione trovata vuota, ogni articolo e lotto che contiene contato zero",
    ),
  })
  .superRefine((b, ctx) => {
    // An empty bin is a count too: with `completa` no rows means every unit it holds is zero.
    if (b.righe.length === 0 && b.completa !== true)
      ctx.addIssue({
        code: "custom",
        path: ["righe"],
        message: "almeno una riga (per un'ubicazione trovata vuota: 'completa': true con 'ubicazione', senza righe)",
      });
    if (b.completa === true && b.ubicazione === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["ubicazione"],
        message: "obbligatoria con 'completa': indicare l'ubicazione contata per intero",
      });
  });
export type AlignInput = z.infer<typeof alignInput>;

export const alignRow = z.object({
  indice: z.number().int(),
  articolo: articoloRef.nullable(),
  codice: z.string().optional().meta({ description: "Il codice ricevuto, quando non corrisponde a un articolo" }),
  lotto: z.string().nullable(),
  ubicazione: z.string().nullable().meta({ description: "L'ubicazione contata (codice); null nei magazzini senza ubicazioni" }),
  implicita: z.literal(true).optional().meta({
    description:
      "Con `completa`: un articolo (e lotto) che l'ubicazione contiene e che le righe non nominano, contato zero; `indice` prosegue dopo le righe della richiesta",
  }),
  attuale: decimalString().nullable(),
  contato: decimalString().nullable(),
  delta: decimalString().nullable(),
  esito: z.enum(["scritta", "invariata", "rifiutata", "contata"]).meta({
    description:
      "`contata` solo nell'anteprima di un operatore (schermate): riga valida, quantità attuale e differenza non mostrate (conteggio alla cieca)",
  }),
  movimento: z.number().int().optional(),
  errore: rowErrorOutput.optional(),
});
export type AlignRow = z.infer<typeof alignRow>;

export const alignOutput = z.object({
  operazione: z.number().int().nullable(),
  scritte: z.number().int(),
  invariate: z.number().int(),
  rifiutate: z.number().int(),
  righe: z.array(alignRow),
});
export type AlignOutput = z.infer<typeof alignOutput>;
