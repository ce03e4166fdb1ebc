import { z } from "zod";
import { instantString } from "../../lib/zod";
import { EVENT_TYPES, type EventType } from "../../../lib/domain-lists";
import { listParams, pageShape } from "../lists/lists.schemas";

/** Event types named in a list (`tipo=a,b` on GET /eventi, `--eventi a,b` on the command line): each known, none twice. */
export const eventTypeList = (what: string) =>
  z
    .string({ error: "deve essere un elenco di tipi di evento separati da virgole" })
    .max(1000, "al massimo 1000 caratteri")
    .transform((s, ctx) => {
      const types = s.split(",").map((t) => t.trim());
      const known: ReadonlySet<string> = new Set(EVENT_TYPES);
      const unknown = types.filter((t) => !known.has(t));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `tipo di evento sconosciuto: '${unknown.join("', '")}'; ${what} ammessi sono ${EVENT_TYPES.join(", ")}`,
        });
        return z.NEVER;
      }
      if (new Set(types).size !== types.length) {
        ctx.addIssue({ code: "custom", message: "un tipo di evento è ripetuto" });
        return z.NEVER;
      }
      return types as EventType[];
    });

export const listEventsInput = z.strictObject({
  ...listParams(100),
  tipo: eventTypeList("i tipi")
    .optional()
    .meta({ description: `Solo questi tipi, separati da virgole: ${EVENT_TYPES.join(", ")}` }),
});
export type ListEventsInput = z.infer<typeof listEventsInput>;

export const eventOutput = z.object({
  id: z.string().meta({ description: "Identificativo pubblico (evt_…): è anche l'header webhook-id delle consegne" }),
  sequenza: z.number().int().meta({ description: "Crescente in tutto il servizio: l'ordine degli eventi e il cursore" }),
  tipo: z.enum(EVENT_TYPES),
  creato_il: instantString(),
  dati: z.record(z.string(), z.unknown()).meta({
    description:
      "Per i tipi del magazzino (movimenti.registrati, arrivo.registrato, arrivo.annullato, giacenze.allineate, " +
      "documento_vendita.emesso): `operazione` e i suoi `movimenti` come in GET /movimenti (un arrivo anche `ddt` e " +
      "`fornitore`, un documento di vendita anche `documento` come in GET /documenti-vendita). Per i tipi *.modificato: " +
      "la riga come la mostra la sua lista (GET /ordini-acquisto, /articoli, /clienti, /fornitori, /magazzini) quando la modifica è stata confermata.",
  }),
});
export type EventOutput = z.infer<typeof eventOutput>;

export const listEventsOutput = z.object({ eventi: z.array(eventOutput), ...pageShape });
