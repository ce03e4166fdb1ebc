import { z } from "zod";
import { DomainError, RowError } from "./errors";

/**
 * The row-by-row part shared by every master-data upsert (docs/api.md section 9): the row limit, the code of
 * each row (`codice_non_valido`, `codice_ripetuto` for every occurrence of a code given twice), its
 * fields (`campo_non_valido`, naming the field), and the response with its counts. What a row means is
 * each entity's own business (catalogue/master-data-upsert.service.ts, clients/clients-upsert.service.ts,
 * locations/locations-upsert.service.ts), which is why it lives here, below all three.
 */

/** At most this many rows per upsert call (POST /articoli, /fornitori, /magazzini, /clienti, /ubicazioni). */
export const MAX_UPSERT_ROWS = 500;

/** The answer of every master-data upsert: counts, and each row's outcome. */
export const upsertOutput = z.object({
  creati: z.number().int(),
  aggiornati: z.number().int(),
  invariati: z.number().int(),
  rifiutati: z.number().int(),
  righe: z.array(
    z.object({
      indice: z.number().int(),
      codice: z.string().nullable().meta({ description: "Il codice della riga; null quando manca o non è una stringa" }),
      id: z.number().int().nullable().meta({ description: "Id registrato; null per un codice nuovo rifiutato" }),
      esito: z.enum(["creato", "aggiornato", "invariato", "rifiutato"]),
      errore: z.object({ codice: z.string(), messaggio: z.string() }).optional(),
    }),
  ),
});
export type UpsertOutput = z.infer<typeof upsertOutput>;

export type Esito = "creato" | "aggiornato" | "invariato";

/** What a writer did with each row: code → id and outcome. */
export type Written = Map<string, { id: number; esito: Esito }>;

type Outcome = UpsertOutput["righe"][number];

/** A row that passed the shared checks, with its position in the request. */
export interface CheckedRow<T> {
  indice: number;
  value: T;
}

export class UpsertRows<T extends { codice: string }> {
  readonly outcomes: (Outcome | undefined)[];
  private readonly input: Record<string, unknown>[];
  readonly accepted: CheckedRow<T>[] = [];
  /** Every well-formed code of the call, refused rows included (their id is in the answer too). */
  readonly codes: string[] = [];

  /**
   * `keyOf`: what identifies a row when its code alone does not (a location: its warehouse and its code); the
   * repeated-row check, the writer's result and `answer` go by it.
   */
  constructor(
    input: Record<string, unknown>[],
    schema: z.ZodType<T>,
    campo: string,
    readonly keyOf: (row: Record<string, unknown>, codice: string) => string = (_row, codice) => codice,
  ) {
    if (input.length > MAX_UPSERT_ROWS) {
      throw new DomainError(
        "troppe_righe",
        `Al massimo ${MAX_UPSERT_ROWS} righe per chiamata: ricevute ${input.length}. Dividere l'invio.`,
        { campo },
      );
    }
    this.input = input;
    this.outcomes = input.map(() => undefined);
    const codes = input.map((row) => (typeof row.codice === "string" ? row.codice.trim() : undefined));
    const times = new Map<string, number[]>();
    const keys = input.map((row, i) => (codes[i] ? keyOf(row, codes[i]) : undefined));
    keys.forEach((k, i) => k && times.set(k, [...(times.get(k) ?? []), i]));
    input.forEach((row, indice) => {
      const code = codes[indice];
      if (code === undefined || code === "" || code.length > 64) {
        const why =
          row.codice === undefined
            ? "manca"
            : typeof row.codice !== "string"
              ? "deve essere una stringa"
              : code === ""
                ? "è vuoto"
                : "supera i 64 caratteri";
        this.refuse(
          indice,
          typeof row.codice === "string" ? row.codice : null,
          null,
          new RowError("codice_non_valido", `Riga ${indice}: il codice ${why}; indicare un codice di 1..64 caratteri.`),
        );
        return;
      }
      this.codes.push(code);
      const same = times.get(keys[indice]!)!;
      if (same.length > 1) {
        this.refuse(
          indice,
          code,
          null,
          new RowError(
            "codice_ripetuto",
            `Riga ${indice}: il codice '${code}' compare più volte in questa chiamata (righe ${same.join(", ")}): indicarlo una sola volta.`,
          ),
        );
        return;
      }
      const parsed = schema.safeParse(row);
      if (!parsed.success) {
        const problems = parsed.error.issues.flatMap((issue) =>
          issue.code === "unrecognized_keys"
            ? issue.keys.map((k) => `campo '${k}' non previsto: toglierlo o correggerne il nome`)
            : [`campo '${issue.path.join(".")}': ${issue.message}`],
        );
        this.refuse(indice, code, null, new RowError("campo_non_valido", `Riga ${indice} ('${code}'): ${problems.join("; ")}.`));
        return;
      }
      this.accepted.push({ indice, value: parsed.data });
    });
  }

  refuse(indice: number, codice: string | null, id: number | null, e: RowError) {
    this.outcomes[indice] = { indice, codice, id, esito: "rifiutato", errore: e.toBody() };
  }

  /**
   * The response: the refusals recorded, and for every other row what the writer did (by key). `known` gives
   * the id of a refused row whose key is registered.
   */
  answer(written: Written, known: (codice: string) => number | undefined): UpsertOutput {
    const byIndex = new Map(this.accepted.map((r) => [r.indice, r]));
    const righe = this.outcomes.map((o, indice) => {
      if (o) return o.codice !== null && o.id === null ? { ...o, id: known(this.keyOf(this.input[indice]!, o.codice)) ?? null } : o;
      const row = byIndex.get(indice)!;
      const w = written.get(this.keyOf(this.input[indice]!, row.value.codice))!;
      return { indice, codice: row.value.codice, id: w.id, esito: w.esito };
    });
    const count = (esito: Outcome["esito"]) => righe.filter((r) => r.esito === esito).length;
    return {
      creati: count("creato"),
      aggiornati: count("aggiornato"),
      invariati: count("invariato"),
      rifiutati: count("rifiutato"),
      righe,
    };
  }
}
