import { z } from "zod";
import { quantityFromNumber } from "../../lib/decimal";
import { MAX_UPSERT_ROWS } from "../../lib/upsert-rows";
import { typeError } from "../../lib/zod";
import { code, ean, price, text } from "./import.schemas";

/**
 * POST /articoli, /fornitori, /magazzini (and /clienti, in the clients module): upserts by `codice`
 * (docs/api.md section 9). The request's rows are objects whose fields are checked row by row by the service,
 * so that a bad field refuses its row (`campo_non_valido`), not the whole call: the request schema
 * documents the fields and passes them on as they came.
 */

const ROW_NOTE = "Un campo assente mantiene il valore registrato; `null` cancella un campo facoltativo.";

/** A documented field, parsed by the service row by row. */
const field = (type: string, description: string, nullable = false) =>
  z
    .unknown()
    .optional()
    .meta({ ...(nullable ? { type: [type, "null"] } : { type }), description } as Record<string, unknown>);

const codiceField = () => field("string", "Codice dell'integratore (1..64 caratteri): chiave dell'upsert");
const attivoField = () =>
  field(
    "boolean",
    "Falso: non si ordina, non si riceve e non si vende; resta nelle disponibilità e nello storico. Predefinito per un codice nuovo: true",
  );

/** The rows of one upsert: loose objects (unknown keys are row refusals, worded by the service). */
const rowsOf = <S extends z.ZodType>(row: S, what: string) =>
  z.array(row, { error: typeError(`deve essere un elenco [ … ] di ${what}`) }).min(1, "almeno una riga");

export const articleUpsertRow = z
  .looseObject({
    codice: codiceField(),
    descrizione: field("string", "Descrizione (1..200 caratteri), obbligatoria per un articolo nuovo"),
    ean: field("string", "EAN-8, UPC-A, EAN-13 o GTIN-14 con cifra di controllo corretta; unico tra gli articoli", true),
    gestione_lotti: field(
      "boolean",
      "Gestione a lotti; non si può più cambiare quando l'articolo ha movimenti. Predefinito: false, o quello del modello",
    ),
    costo: field("string", 'Costo standard, decimale come stringa ("12.50") o numero, al massimo 4 decimali', true),
    unita: field("string", "Unità di misura (1..10 caratteri); predefinita PZ, o quella del modello"),
    attivo: attivoField(),
    modello: field(
      "string",
      "Codice del modello di cui l'articolo è una variante (già registrato o in questa chiamata); null: nessun modello",
      true,
    ),
    confezione: field(
      "number",
      "Confezione: quante unità conta una lettura al ricevimento e negli inventari; > 0, al massimo 3 decimali. Predefinita: 1",
    ),
    ubicazioni_preferite: z
      .unknown()
      .optional()
      .meta({
        type: ["array", "null"],
        items: {
          type: "object",
          properties: { magazzino: { type: "string" }, ubicazione: { type: "string" } },
          required: ["magazzino", "ubicazione"],
        },
        description:
          "Dove proporre lo stoccaggio (docs/api.md section 11): codici di magazzino e di un'ubicazione di stoccaggio attiva, al più una per magazzino. " +
          "Sostituisce l'intero elenco; null o [] lo svuota",
      } as Record<string, unknown>),
  })
  .meta({ description: ROW_NOTE });

export const namedUpsertRow = z
  .looseObject({
    codice: codiceField(),
    nome: field("string", "Nome (1..200 caratteri), obbligatorio per un codice nuovo"),
    attivo: attivoField(),
  })
  .meta({ description: ROW_NOTE });

export const upsertArticlesInput = z.strictObject({ articoli: rowsOf(articleUpsertRow, "articoli") });
export const warehouseUpsertRow = z
  .looseObject({
    ...namedUpsertRow.shape,
    gestione_ubicazioni: field(
      "boolean",
      "Il magazzino tiene la giacenza per ubicazione (docs/api.md section 11). Attivarla mette la giacenza che c'è nell'ubicazione di ricevimento; " +
        "disattivarla è rifiutato finché la merce sta in più di un'ubicazione (`ubicazioni_in_uso`). Predefinito: false",
    ),
    ubicazione_ricevimento: field(
      "string",
      "Codice dell'ubicazione (attiva, di tipo ricevimento, di questo magazzino) dove arriva la merce quando un arrivo non ne indica una",
      true,
    ),
  })
  .meta({ description: ROW_NOTE });

export const upsertWarehousesInput = z.strictObject({ magazzini: rowsOf(warehouseUpsertRow, "magazzini") });
export const upsertSuppliersInput = z.strictObject({ fornitori: rowsOf(namedUpsertRow, "fornitori") });

// ---- the rows as the service checks them, one by one ----

/** A pack size: a JSON number (as request quantities) or a decimal string, > 0, at most 3 decimals. */
const packSize = () =>
  z
    .union([z.number(), z.string()], { error: typeError("deve essere un numero maggiore di zero, per esempio 6 o 2.5") })
    .transform((v, ctx) => {
      const out =
        typeof v === "number" ? quantityFromNumber(v) : /^\d{1,12}(\.\d{1,3})?$/.test(v.trim()) ? quantityFromNumber(Number(v)) : null;
      if (out === null) {
        ctx.addIssue({ code: "custom", message: `${JSON.stringify(v)} non valida: maggiore di zero, al massimo 3 decimali` });
        return z.NEVER;
      }
      return out;
    });

const bool = () => z.boolean({ error: typeError("deve essere true o false") });

export const articleRowCheck = z.strictObject({
  codice: code(),
  descrizione: text(200).optional(),
  ean: ean().nullable().optional(),
  gestione_lotti: bool().optional(),
  costo: price().nullable().optional(),
  unita: text(10).optional(),
  attivo: bool().optional(),
  modello: code().nullable().optional(),
  confezione: packSize().optional(),
  ubicazioni_preferite: z
    .array(z.strictObject({ magazzino: code(), ubicazione: code() }), {
      error: typeError("deve essere un elenco [ { magazzino, ubicazione } ]"),
    })
    .max(MAX_UPSERT_ROWS, `al massimo ${MAX_UPSERT_ROWS} elementi`)
    .nullable()
    .optional(),
});
export type ArticleRowCheck = z.infer<typeof articleRowCheck>;

export const namedRowCheck = z.strictObject({ codice: code(), nome: text(200).optional(), attivo: bool().optional() });

/** A warehouse: a named row with its locations settings (docs/api.md section 11). */
export const warehouseRowCheck = namedRowCheck.extend({
  gestione_ubicazioni: bool().optional(),
  ubicazione_ricevimento: code().nullable().optional(),
});
export type WarehouseRowCheck = z.infer<typeof warehouseRowCheck>;
