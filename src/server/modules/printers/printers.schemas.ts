import { z } from "zod";
import { dateString, decimalString, idNumber, instantString, pathId, shortText } from "../../lib/zod";
import { SIZES } from "../labels/label-model";
import { labelSpec, MAX_COPIES } from "../labels/labels.schemas";

/** Network label printers and their print jobs (docs/api.md section 13). */

export const DEFAULT_PORT = 9100;

/** `host:porta` (port 9100 when omitted); an IPv6 address in brackets. */
export const printerAddress = z
  .string({ error: "deve essere una stringa host:porta" })
  .trim()
  .transform((text, ctx) => {
    const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]{1,253}))(?::(\d{1,5}))?$/.exec(text);
    const port = m?.[3] === undefined ? DEFAULT_PORT : Number(m[3]);
    if (!m || port < 1 || port > 65535) {
      ctx.addIssue({ code: "custom", message: "deve essere host:porta (per esempio 192.168.1.50:9100)" });
      return z.NEVER;
    }
    return { host: m[1] ?? m[2]!, porta: port };
  });

/** host:porta as printerAddress reads it back (an IPv6 address in brackets). */
export const formatAddress = (a: { host: string; porta: number }) =>
  a.host.includes(":") ? `[${a.host}]:${a.porta}` : `${a.host}:${a.porta}`;

export const addPrinterInput = z.strictObject({
  nome: shortText(80),
  indirizzo: printerAddress,
  dimensione: z.enum(SIZES, { error: `deve essere ${SIZES.join(", ")}` }).optional(),
});
export type AddPrinterInput = z.input<typeof addPrinterInput>;

/** An administrator's change of a printer: only the fields given change. */
export const updatePrinterInput = z.strictObject({
  id: idNumber(),
  nome: shortText(80).optional(),
  indirizzo: printerAddress.optional(),
  dimensione: z.enum(SIZES, { error: `deve essere ${SIZES.join(", ")}` }).optional(),
});
export type UpdatePrinterInput = z.input<typeof updatePrinterInput>;

export const setPrinterActiveInput = z.strictObject({ id: idNumber(), attiva: z.boolean({ error: "deve essere true o false" }) });

const printer = z.object({
  id: z.number().int(),
  nome: z.string(),
  indirizzo: z.string().meta({ description: "host:porta (TCP, ZPL grezzo)" }),
  dimensione: z.enum(SIZES),
  attiva: z.boolean(),
  creata_il: instantString(),
});
export type Printer = z.infer<typeof printer>;

export const listPrintersInput = z.strictObject({});
export const listPrintersOutput = z.object({ stampanti: z.array(printer) });
export const addPrinterOutput = printer;

export const printInput = z.strictObject({
  id: pathId(),
  etichetta: labelSpec,
  copie: idNumber()
    .pipe(z.number().max(MAX_COPIES, `al massimo ${MAX_COPIES} copie`))
    .optional()
    .meta({ description: `Copie di ogni etichetta, 1..${MAX_COPIES}` }),
});

export const PRINT_STATES = ["in_coda", "in_invio", "stampata", "fallita"] as const;

/** The label a job prints, as it was asked (labelSpec parsed: a lot label's `quantita` as text). */
const printedLabel = z
  .discriminatedUnion("tipo", [
    z.object({
      tipo: z.literal("lotto"),
      articolo: z.number().int(),
      lotto: z.string(),
      scadenza: dateString().nullish(),
      quantita: decimalString().nullish(),
    }),
    z.object({
      tipo: z.literal("ubicazione"),
      magazzino: z.number().int(),
      ubicazione: z.string().optional(),
      da: z.string().optional(),
      a: z.string().optional(),
    }),
    z.object({ tipo: z.literal("collo"), sscc: z.string() }),
    z.object({ tipo: z.literal("riga"), ordine: z.number().int(), riga: z.number().int().optional() }),
  ])
  .meta({ description: "L'etichetta come fu chiesta" });

export const printJob = z.object({
  id: z.number().int(),
  stampante: z.object({ id: z.number().int(), nome: z.string() }),
  stato: z.enum(PRINT_STATES),
  etichetta: printedLabel,
  copie: z.number().int(),
  avviso: z.string().nullable().meta({ description: "lotto_non_gs1: il lotto è stampato in Code 128 fuori dal simbolo GS1" }),
  motivo: z.string().nullable().meta({ description: "Perché è fallita (connessione rifiutata, timeout, esito incerto)" }),
  creata_il: instantString(),
  inviata_il: instantString().nullable(),
  conclusa_il: instantString().nullable(),
});
export type PrintJob = z.infer<typeof printJob>;

export const getJobInput = z.strictObject({ id: pathId() });
export const reprintInput = z.strictObject({ id: idNumber() });
export const recentJobsInput = z.strictObject({ limite: z.number().int().min(1).max(100).optional() });
export const recentJobsOutput = z.object({ stampe: z.array(printJob) });
