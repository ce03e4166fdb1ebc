import { z } from "zod";
import { RowError } from "./errors";
import { typeError } from "./zod";

/**
 * The rows of a call with rows (docs/api.md section 2): the envelope refuses the call, a fault inside one row
 * is that row's outcome. The procedure parses the envelope with `rowsOf` (an array of objects, fields
 * unchecked); the service parses each row strictly with `checkRows`, and a missing, mistyped or unknown
 * field refuses that row alone as `campo_non_valido`, naming the field. The OpenAPI document describes each
 * row with the strict schema (trpc/openapi-shape.ts), so a generated client still types every field.
 */

/**
 * The envelope's array of rows: objects, each checked later on its own. Typed for callers as the strict row
 * (a screen's or the CLI's call type-checks its rows), parsed as plain objects.
 */
export function rowsOf<S extends z.ZodType>(
  _row: S,
  what: string,
  description: string,
): z.ZodArray<z.ZodType<Record<string, unknown>, z.input<S>>> {
  const rows = z.array(z.looseObject({}).meta({ description }), { error: typeError(`deve essere un elenco [ … ] di ${what} (oggetti)`) });
  return rows as unknown as z.ZodArray<z.ZodType<Record<string, unknown>, z.input<S>>>;
}

/** The path of an issue inside its row, as a client names it: `quantita`, `differenza.motivo`, `righe[0].quantita`. */
function pathInRow(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

/**
 * A malformed row's (order's, notice's) refusal: every problem in the message, after `at` (where the row is in
 * the call, for a person), and the first one's field in `campo`, as a path inside the row.
 */
export function malformedRow(at: string, issues: readonly z.core.$ZodIssue[]): RowError {
  const problems = issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((k) => ({ campo: pathInRow([...issue.path, k]), text: "campo non previsto: toglierlo o correggerne il nome" }))
      : [{ campo: pathInRow(issue.path), text: issue.message }],
  );
  const listed = problems.map((p) => (p.campo === "" ? p.text : `campo '${p.campo}': ${p.text}`)).join("; ");
  return new RowError("campo_non_valido", `${at}: ${listed}.`, problems[0]?.campo || undefined);
}

export interface CheckedRows<T> {
  /** The well-formed rows, parsed, in the call's order, each with its position in the call. */
  rows: { indice: number; row: T }[];
  /** The malformed rows' refusals by position. */
  refused: Map<number, RowError>;
}

/** Each row parsed strictly on its own; `at` says where a row is in the call, for the messages. */
export function checkRows<S extends z.ZodType>(
  raw: readonly unknown[],
  schema: S,
  at: (indice: number) => string = (i) => `Riga ${i} (righe[${i}])`,
): CheckedRows<z.output<S>> {
  const out: CheckedRows<z.output<S>> = { rows: [], refused: new Map() };
  for (const [indice, value] of raw.entries()) {
    const parsed = schema.safeParse(value);
    if (parsed.success) out.rows.push({ indice, row: parsed.data });
    else out.refused.set(indice, malformedRow(at(indice), parsed.error.issues));
  }
  return out;
}

/** A per-row outcome's `errore`: with `campo_non_valido`, `campo` is the field of the row at fault. */
export const rowErrorOutput = z.object({
  codice: z.string(),
  messaggio: z.string(),
  campo: z
    .string()
    .optional()
    .meta({ description: "Con `campo_non_valido`: il campo della riga in errore (`quantita`, `differenza.motivo`)" }),
});
