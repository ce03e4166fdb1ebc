import { z } from "zod";
import { idNumber, instantString, pathId, shortText, typeError } from "../../lib/zod";
import { EVENT_TYPES, type EventType } from "../../../lib/domain-lists";

const eventTypes = () =>
  z
    .array(z.enum(EVENT_TYPES, { error: `tipo di evento sconosciuto: ammessi ${EVENT_TYPES.join(", ")}` }), {
      error: typeError("deve essere un elenco di tipi di evento"),
    })
    .min(1, "almeno un tipo di evento")
    .max(EVENT_TYPES.length * 2, "troppi tipi di evento");

/** docs/api.md section 8: at most 100 events per request. */
export const MAX_EVENTS_PER_REQUEST = 100;
const eventsPerRequest = () =>
  z
    .number({ error: typeError("deve essere un numero intero") })
    .transform((n) => n)
    .pipe(
      z
        .number()
        .int("deve essere un numero intero")
        .min(1, `deve essere tra 1 e ${MAX_EVENTS_PER_REQUEST}`)
        .max(MAX_EVENTS_PER_REQUEST, `deve essere tra 1 e ${MAX_EVENTS_PER_REQUEST}`),
    )
    .meta({
      type: "integer",
      minimum: 1,
      maximum: MAX_EVENTS_PER_REQUEST,
      description: 'Eventi per richiesta (1: il corpo è l\'evento; più di 1: il corpo è { "eventi": [...] })',
    } as Record<string, unknown>);
export const DELIVERY_MODES = ["ordinata", "parallela"] as const;
const deliveryMode = () =>
  z
    .enum(DELIVERY_MODES, { error: "deve essere 'ordinata' o 'parallela'" })
    .meta({ description: "ordinata: una richiesta alla volta, in ordine di sequenza; parallela: più richieste insieme, senza ordine" });

export const createEndpointInput = z.strictObject({
  url: shortText(2000).meta({ description: "http:// o https://" }),
  eventi: eventTypes(),
  eventi_per_richiesta: eventsPerRequest().optional(),
  consegna: deliveryMode().optional(),
  descrizione: shortText(200).optional(),
});
export type CreateEndpointInput = z.infer<typeof createEndpointInput>;

/** What a change may touch (PATCH /webhook/{id}, the screen's settings, `webhook update`): absent fields stay. */
const settingsFields = {
  eventi: eventTypes().optional(),
  eventi_per_richiesta: eventsPerRequest().optional(),
  consegna: deliveryMode().optional(),
  // A pipe (transform): trpc-to-openapi would coerce a plain boolean ("no" → true).
  attivo: z
    .boolean({ error: typeError("deve essere true o false") })
    .transform((b) => b)
    .optional()
    .meta({ description: "false: consegne sospese; true: riprese" }),
};
export type EndpointSettings = { eventi?: EventType[]; eventi_per_richiesta?: number; consegna?: DeliveryMode; attivo?: boolean };
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

const failure = z.object({ il: instantString(), stato_http: z.number().int().nullable(), esito: z.string() });
const endpointFields = {
  id: z.number().int(),
  url: z.string(),
  descrizione: z.string().nullable(),
  eventi: z.array(z.string()),
  eventi_per_richiesta: z.number().int(),
  consegna: z.enum(DELIVERY_MODES),
  attivo: z.boolean(),
  creato_il: instantString(),
  disattivato_il: instantString().nullable().meta({ description: "Da quando è disattivato (null se attivo)" }),
  in_attesa: z
    .number()
    .int()
    .meta({
      description:
        "Eventi dei suoi tipi non ancora consegnati né falliti: le consegne in attesa e gli eventi registrati non ancora raccolti " +
        "(un webhook disattivato non ne raccoglie: restano tutti qui)",
    }),
  fallite: z.number().int().meta({ description: "Consegne fallite (finestra di ripetizione esaurita)" }),
  ritardo_s: z
    .number()
    .nullable()
    .meta({ description: "Età in secondi del più vecchio evento non ancora consegnato (null: nessuno in attesa)" }),
  eventi_al_secondo: z.number().meta({ description: "Eventi consegnati al secondo nell'ultimo minuto" }),
  ultimo_successo: instantString().nullable(),
  salto: z.object({ da: z.number().int(), a: z.number().int() }).nullable().meta({
    description:
      "Sequenze saltate alla riattivazione dopo più di 7 giorni di disattivazione (incluse): POST /webhook/{id}/riprova con `da` le consegna",
  }),
};

/** The administrator's view: every endpoint, who created it, and the receiver's answer to the last failure. */
export const endpointOutput = z.object({
  ...endpointFields,
  ultimo_errore: failure.extend({ risposta: z.string().nullable() }).nullable(),
  creato_da: z.object({ tipo: z.enum(["utente", "chiave", "riga_di_comando"]), nome: z.string() }).nullable(),
});
export type EndpointOutput = z.infer<typeof endpointOutput>;

export const createEndpointOutput = z.object({ endpoint: endpointOutput, segreto: z.string() });
export const listEndpointsOutput = z.object({ endpoint: z.array(endpointOutput) });

export const setActiveInput = z.strictObject({ id: idNumber(), attivo: z.boolean() });
export const updateSettingsInput = z.strictObject({ id: idNumber(), ...settingsFields });
export const replayInput = z.strictObject({
  id: idNumber(),
  da: idNumber().meta({ description: "Dalla sequenza N (inclusa)" }),
});

// ---- REST (/webhook): a key's own endpoints. No answer carries a receiver's answer body (docs/api.md section 10). ----

export const restEndpoint = z.object({ ...endpointFields, ultimo_errore: failure.nullable() });
export type RestEndpoint = z.infer<typeof restEndpoint>;
export const restAttempt = z.object({
  id: z.number().int(),
  sequenza: z.number().int(),
  iniziato_il: instantString(),
  durata_ms: z.number().int(),
  stato_http: z.number().int().nullable(),
  esito: z.string().meta({ description: "consegnato, rifiutato, timeout, errore_rete, rete_privata" }),
});
export const restEndpointDetail = restEndpoint.extend({
  ultimi_tentativi: z.array(restAttempt).meta({ description: "Gli ultimi 20 tentativi, il più recente per primo: stato e durata" }),
});
export const restCreateOutput = z.object({
  webhook: restEndpointDetail,
  segreto: z.string().meta({ description: "whsec_…: mostrato solo ora" }),
});
export const restListInput = z.strictObject({});
export const restListOutput = z.object({ webhook: z.array(restEndpoint) });
export const restIdInput = z.strictObject({ id: pathId() });
export const restUpdateInput = z.strictObject({ id: pathId(), ...settingsFields });
export const restDeleteOutput = z.object({
  id: z.number().int(),
  eliminato: z.literal(true),
  consegne_scartate: z.number().int().meta({
    description: "Gli eventi che aspettavano (in_attesa): non saranno consegnati. Quelli già consegnati o falliti restano nel registro",
  }),
});
export const restReplayInput = z.strictObject({
  id: pathId(),
  da: idNumber().meta({
    description: "Dalla sequenza N (inclusa); oltre l'ultima sequenza emessa dal servizio è 422 `cursore_non_valido`",
  }),
});
export const replayOutput = z.object({ riaccodate: z.number().int() });

export const replayDeliveryInput = z.strictObject({ id: idNumber(), consegna: idNumber() });

export const listDeliveriesInput = z.strictObject({
  id: idNumber(),
  stato: z.enum(["in_attesa", "consegnata", "fallita"]).optional(),
  prima: idNumber().optional(),
});
export const deliveryOutput = z.object({
  id: z.number().int(),
  sequenza: z.number().int(),
  evento: z.string(),
  tipo: z.string(),
  stato: z.enum(["in_attesa", "consegnata", "fallita"]),
  tentativi: z.number().int(),
  prossimo_tentativo: instantString().nullable(),
  concluso_il: instantString().nullable(),
});
export const listDeliveriesOutput = z.object({ consegne: z.array(deliveryOutput), prima: z.number().int().nullable() });

export const listAttemptsInput = z.strictObject({ id: idNumber(), prima: idNumber().optional() });
export const attemptOutput = z.object({
  id: z.number().int(),
  consegna: z.number().int(),
  sequenza: z.number().int(),
  iniziato_il: instantString(),
  durata_ms: z.number().int(),
  stato_http: z.number().int().nullable(),
  esito: z.string(),
  risposta: z.string().nullable(),
});
export const listAttemptsOutput = z.object({ tentativi: z.array(attemptOutput), prima: z.number().int().nullable() });
