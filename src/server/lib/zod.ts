import { z } from "zod";
import { isIsoDate } from "./dates";

// Validation messages in Italian: they reach operators and integrators as they are.
z.config(z.locales.it());

/** Message of a required field that is absent; the error mapper words it for the field. */
export const MISSING = "campo obbligatorio mancante";

/** A type error message that tells "absent" from "of the wrong type". */
export const typeError = (msg: string) => (iss: { input?: unknown }) => (iss.input === undefined ? MISSING : msg);

/**
 * Schema pieces shared by every procedure. trpc-to-openapi sets `coerce` on plain number/boolean
 * schemas (turning "12.5" or null into numbers): numbers are written as pipes, which it leaves alone,
 * and query parameters are parsed from strings explicitly.
 */

/**
 * A JSON number that must be an integer id (> 0). The document shows the pipe's input side, a bare
 * number: the meta states what is accepted, so client generators make it an integer.
 */
export const idNumber = () =>
  z
    .number({ error: "deve essere un numero intero" })
    .transform((n) => n)
    .pipe(z.number().int("deve essere un numero intero").positive("deve essere maggiore di zero").max(2_147_483_647))
    .meta({ type: "integer", minimum: 1, maximum: 2_147_483_647 } as Record<string, unknown>);

/** A JSON number kept as given: its validity (sign, decimals) is a row-level check. */
export const rawNumber = () => z.number({ error: typeError("deve essere un numero") }).transform((n) => n);

/**
 * `prezzo` in a request: a decimal string, kept as given. The pattern states the contract for the document;
 * a string that breaks it is the row's `prezzo_non_valido`, never rounded.
 */
export const priceString = () =>
  z
    .string({ error: typeError('deve essere una stringa decimale, per esempio "12.50"') })
    .meta({ pattern: "^\\d{1,14}(\\.\\d{1,4})?$", description: "Prezzo unitario come stringa decimale (al massimo 4 decimali)" });

export const shortText = (max: number) =>
  z
    .string({ error: typeError("deve essere una stringa") })
    .trim()
    .min(1, "non può essere vuoto")
    .max(max, `al massimo ${max} caratteri`);

export const isoDate = () =>
  z
    .string({ error: typeError("deve essere una data AAAA-MM-GG") })
    .refine(isIsoDate, "deve essere una data valida AAAA-MM-GG")
    .meta({ format: "date" });

// ---- query parameters (always strings) ----

export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, "deve essere un numero intero")
    .transform(Number)
    .pipe(z.number().int().min(min, `deve essere almeno ${min}`).max(max, `deve essere al massimo ${max}`));

export const queryDate = () => z.string().refine(isIsoDate, "deve essere una data AAAA-MM-GG").meta({ format: "date" });

export const queryBool = () => z.enum(["true", "false"], { error: "deve essere true o false" }).transform((v) => v === "true");

/** Path parameter id (trpc-to-openapi does not URL-decode path params: digits only). */
export const pathId = () =>
  z
    .string()
    .regex(/^\d{1,10}$/, "deve essere un identificativo numerico")
    .transform(Number)
    .pipe(z.number().int().positive().max(2_147_483_647));

// ---- response pieces ----

/** A decimal as the contract writes it (docs/api.md section 1): `.` separator, no exponent, `-` for negatives. */
export const DECIMAL_PATTERN = "^-?\\d+(\\.\\d+)?$";
export const decimalString = () =>
  z.string().meta({ description: "Decimale in forma canonica", example: "12.5", pattern: DECIMAL_PATTERN });
/** A business date, `YYYY-MM-DD`. */
export const dateString = () => z.string().meta({ format: "date" });
/** An instant, ISO 8601 with offset. */
export const instantString = () => z.string().meta({ format: "date-time" });
export const articoloRef = z.object({ id: z.number().int(), codice: z.string() });

/**
 * Makes tRPC's validation of this schema synchronous. tRPC validates inputs and outputs with
 * `parseAsync`, and zod 4 runs its compiled fast path for objects only in synchronous parses, so a page
 * of movements validates several times faster synchronously. Our schemas have no
 * asynchronous refinements; should one appear, the synchronous parse throws zod's async error and
 * the asynchronous parse takes over. The schema itself is unchanged (the OpenAPI document reads it).
 */
export function syncParse<T extends z.ZodType>(schema: T): T {
  const parseAsync = schema.parseAsync.bind(schema);
  const parse = schema.parse.bind(schema);
  (schema as z.ZodType).parseAsync = async (data, params) => {
    try {
      return parse(data, params);
    } catch (e) {
      if (e instanceof z.core.$ZodAsyncError) return parseAsync(data, params);
      throw e;
    }
  };
  return schema;
}
