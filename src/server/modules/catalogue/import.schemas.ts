import { z } from "zod";
import { TIPI_UBICAZIONE } from "../../../lib/domain-lists";
import { Decimal, MAX_PRICE, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { gtinCheckDigit, isValidGtin } from "../../../lib/gtin";
import { isoDate, MISSING, shortText, typeError } from "../../lib/zod";

/**
 * The master data file of `cli import` (docs/api.md section 6). Each item is parsed on its own (and each
 * variant and order row too), so that one malformed row does not hide the problems of the others:
 * the operator gets every problem of the file in one pass. The nested lists are therefore `unknown[]`
 * here and parsed with their own schema by the service.
 */

/** Object schemas: "missing" and "not an object" in Italian; unknown keys are worded by the service. */
const objectError = (iss: { code?: string; input?: unknown }) =>
  iss.code === "unrecognized_keys" ? undefined : iss.input === undefined ? MISSING : "deve essere un oggetto { … }";

const list = () => z.array(z.unknown(), { error: typeError("deve essere un elenco [ … ]") });

export const code = () => shortText(64);
export const text = (max: number) => shortText(max);

/** EAN-8, UPC-A, EAN-13 or GTIN-14 with a correct GS1 check digit. */
export const ean = () =>
  z
    .string({ error: typeError('deve essere una stringa di cifre, per esempio "8001234567890"') })
    .trim()
    .superRefine((s, ctx) => {
      if (!/^(\d{8}|\d{12}|\d{13}|\d{14})$/.test(s)) {
        ctx.addIssue({ code: "custom", message: `EAN '${s}' non valido: servono 8, 12, 13 o 14 cifre, senza spazi` });
      } else if (!isValidGtin(s)) {
        ctx.addIssue({
          code: "custom",
          message: `EAN '${s}' con cifra di controllo errata (attesa ${gtinCheckDigit(s.slice(0, -1))}): ricontrollare il codice sulla confezione`,
        });
      }
    });

/**
 * A price: a plain decimal string ("12.50", as in the REST contract) or a JSON number (spreadsheet
 * exports write numbers); ≥ 0, at most 4 decimals, never rounded. Output: exact decimal string.
 */
export const price = () =>
  z
    .union([z.string(), z.number()], { error: typeError('deve essere un prezzo: stringa decimale come "12.50" o numero') })
    .transform((v, ctx) => {
      const out = typeof v === "string" ? priceFromString(v.trim()) : priceFromNumber(v);
      if (out === null) {
        ctx.addIssue({
          code: "custom",
          message: `prezzo ${JSON.stringify(v)} non valido: deve essere zero o positivo, con il punto e al massimo 4 decimali (es. "12.50")`,
        });
        return z.NEVER;
      }
      return out;
    });

function priceFromNumber(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const d = new Decimal(String(n));
  return d.decimalPlaces() > 4 || d.gt(MAX_PRICE) ? null : d.toFixed();
}

/** A quantity is a JSON number, > 0, at most 3 decimals; output: exact decimal string. */
const quantity = () =>
  z.number({ error: typeError("deve essere un numero JSON, per esempio 12 o 2.5 (senza virgolette)") }).transform((n, ctx) => {
    const q = quantityFromNumber(n);
    if (q === null) {
      ctx.addIssue({ code: "custom", message: `quantità ${n} non valida: deve essere maggiore di zero, con al massimo 3 decimali` });
      return z.NEVER;
    }
    return q;
  });

/** Top level: every section optional; anything else is a mistake worth reporting. */
export const importFileInput = z.strictObject(
  {
    magazzini: list().optional(),
    articoli: list().optional(),
    fornitori: list().optional(),
    clienti: list().optional(),
    ordini: list().optional(),
    ubicazioni: list().optional(),
  },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? undefined
        : "il file deve contenere un oggetto JSON con le sezioni magazzini, ubicazioni, articoli, fornitori, clienti, ordini",
  },
);

/** `attivo`: absent keeps the stored value (a new item is active). */
const active = () => z.boolean({ error: typeError("deve essere true o false") }).optional();

/** A warehouse, with its locations settings (docs/api.md section 11): the receiving location is one of the file's `ubicazioni` or a stored one. */
export const warehouseInput = z.strictObject(
  {
    codice: code(),
    nome: text(200),
    attivo: active(),
    gestione_ubicazioni: z.boolean({ error: typeError("deve essere true o false") }).optional(),
    ubicazione_ricevimento: code().nullable().optional(),
  },
  { error: objectError },
);
export type WarehouseInput = z.infer<typeof warehouseInput>;

/** A location of a warehouse (docs/api.md section 11), by (warehouse code, code) as POST /ubicazioni. */
export const locationInput = z.strictObject(
  {
    magazzino: code(),
    codice: code(),
    tipo: z.enum(TIPI_UBICAZIONE, { error: typeError(`deve essere uno tra ${TIPI_UBICAZIONE.join(", ")}`) }),
    descrizione: text(200).nullable().optional(),
    attiva: z.boolean({ error: typeError("deve essere true o false") }).optional(),
  },
  { error: objectError },
);
export type LocationInput = z.infer<typeof locationInput>;

export const supplierInput = z.strictObject({ codice: code(), nome: text(200), attivo: active() }, { error: objectError });
export type SupplierInput = z.infer<typeof supplierInput>;

/**
 * Optional descriptive fields: absent leaves the stored value as it is on a re-import; `null` clears it.
 * Variants have no lot, unit or cost of their own: they inherit the template's.
 */
export const articleInput = z.strictObject(
  {
    codice: code(),
    descrizione: text(200),
    ean: ean().nullable().optional(),
    gestione_lotti: z.boolean({ error: typeError("deve essere true o false") }).optional(),
    costo: price().nullable().optional(),
    unita: text(10).optional(),
    attivo: active(),
    /** Code of the template (in the file or registered) whose variant this is: the flat form of `varianti`. */
    modello: code().optional(),
    varianti: list().optional(),
  },
  { error: objectError },
);
export type ArticleInput = z.infer<typeof articleInput>;

export const variantInput = z.strictObject(
  { codice: code(), ean: ean().nullable().optional(), descrizione: text(200).optional(), attivo: active() },
  { error: objectError },
);
export type VariantInput = z.infer<typeof variantInput>;

export const clientInput = z.strictObject(
  {
    codice: code(),
    ragione_sociale: text(200),
    partita_iva: text(32).nullable().optional(),
    codice_fiscale: text(32).nullable().optional(),
    email: z
      .email({ error: typeError("indirizzo email non valido, per esempio nome@azienda.it") })
      .max(200)
      .nullable()
      .optional(),
    telefono: text(40).nullable().optional(),
    indirizzo: text(200).nullable().optional(),
    cap: text(16).nullable().optional(),
    citta: text(100).nullable().optional(),
    provincia: text(64).nullable().optional(),
    nazione: z
      .string({ error: typeError("deve essere una stringa") })
      .regex(/^[A-Z]{2}$/, "deve essere il codice ISO di due lettere maiuscole, per esempio IT")
      .optional(),
    attivo: active(),
  },
  { error: objectError },
);
export type ClientInput = z.infer<typeof clientInput>;

export const orderInput = z.strictObject(
  {
    numero: code(),
    fornitore: code(),
    data: isoDate(),
    magazzino: code(),
    righe: list().min(1, "un ordine deve avere almeno una riga"),
  },
  { error: objectError },
);
export type OrderInput = z.infer<typeof orderInput>;

export const orderRowInput = z.strictObject({ articolo: code(), quantita: quantity(), prezzo: price() }, { error: objectError });
export type OrderRowInput = z.infer<typeof orderRowInput>;

/** Where each import lands: code (or order number) → id, for every item of the file, variants included. */
export interface ImportIds {
  magazzini: Record<string, number>;
  articoli: Record<string, number>;
  fornitori: Record<string, number>;
  ordini: Record<string, number>;
  clienti: Record<string, number>;
}
