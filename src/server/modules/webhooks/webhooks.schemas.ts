import { z } from "zod";
import { idNumber, shortText } from "../../lib/zod";
import { EVENT_TYPES } from "../../../lib/domain-lists";

export const createEndpointInput = z.strictObject({
  url: shortText(2000).meta({ description: "http:// o https://" }),
  eventi: z
    .array(z.enum(EVENT_TYPES, { error: `tipo di evento sconosciuto: ammessi ${EVENT_TYPES.join(", ")}` }))
    .min(1, "almeno un tipo di evento"),
  descrizione: shortText(200).optional(),
});
export type CreateEndpointInput = z.infer<typeof createEndpointInput>;

export const endpointOutput = z.object({
  id: z.number().int(),
  url: z.string(),
  descrizione: z.string().nullable(),
  eventi: z.array(z.string()),
  attivo: z.boolean(),
  creato_il: z.string(),
  in_attesa: z.number().int(),
  fallite: z.number().int(),
  ultimo_successo: z.string().nullable(),
  ultimo_errore: z
    .object({ il: z.string(), stato_http: z.number().int().nullable(), esito: z.string(), risposta: z.string().nullable() })
    .nullable(),
});
export type EndpointOutput = z.infer<typeof endpointOutput>;

export const createEndpointOutput = z.object({ endpoint: endpointOutput, segreto: z.string() });
export const listEndpointsOutput = z.object({ endpoint: z.array(endpointOutput) });

export const setActiveInput = z.strictObject({ id: idNumber(), attivo: z.boolean() });
export const replayInput = z.strictObject({
  id: idNumber(),
  da: idNumber().meta({ description: "Dalla sequenza N (inclusa)" }),
});
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
  prossimo_tentativo: z.string().nullable(),
  concluso_il: z.string().nullable(),
});
export const listDeliveriesOutput = z.object({ consegne: z.array(deliveryOutput), prima: z.number().int().nullable() });

export const listAttemptsInput = z.strictObject({ id: idNumber(), prima: idNumber().optional() });
export const attemptOutput = z.object({
  id: z.number().int(),
  consegna: z.number().int(),
  sequenza: z.number().int(),
  iniziato_il: z.string(),
  durata_ms: z.number().int(),
  stato_http: z.number().int().nullable(),
  esito: z.string(),
  risposta: z.string().nullable(),
});
export const listAttemptsOutput = z.object({ tentativi: z.array(attemptOutput), prima: z.number().int().nullable() });
