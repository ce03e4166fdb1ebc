import type { SchemaObject } from "openapi3-ts/oas31";
import { z } from "zod";
import { createSchema } from "zod-openapi";
import type { EventType } from "../../lib/domain-lists";
import { clientOutput } from "../modules/clients/clients.schemas";
import { eventOutput } from "../modules/events/events.schemas";
import {
  articleRowOutput,
  locationRowOutput,
  purchaseOrderRowOutput,
  supplierRowOutput,
  warehouseRowOutput,
} from "../modules/feeds/feeds.schemas";
import { movementOutput } from "../modules/movements/movements.schemas";
import { differenceOutput } from "../modules/arrivals/receiving.schemas";
import { noticeOutput } from "../modules/notices/notices.schemas";
import { reservationOutput } from "../modules/reservations/reservations.schemas";
import { saleDocumentOutput } from "../modules/sales/sales.schemas";

/**
 * Events in the OpenAPI document, one schema per `tipo` (docs/api.md section 10): `GET /eventi` lists them as a
 * union discriminated by `tipo`, and the `webhooks` section (OpenAPI 3.1) describes what a receiver gets,
 * one event or a batch. Each `dati` is the row as events.service.ts renders it, with the lists' own output
 * schemas: a movement in an event is the movement of GET /movimenti.
 */

/** A warehouse row of GET /magazzini. */
const warehouseRow = warehouseRowOutput.meta({ description: "Il magazzino come in GET /magazzini" });
const locationRow = locationRowOutput.meta({ description: "L'ubicazione come in GET /ubicazioni" });

const stockData = z.object({
  operazione: z.number().int().meta({ description: "L'operazione che ha scritto i movimenti" }),
  movimenti: z.array(movementOutput).meta({ description: "I movimenti dell'operazione, come in GET /movimenti" }),
});

/**
 * `dati` by event type. `magazzino.modificato` (warehouses' changes) is listed here ahead of its place in
 * EVENT_TYPES; once it is there, nothing changes in this file (the `satisfies` then checks it too).
 */
const DATA = {
  "movimenti.registrati": stockData,
  "arrivo.registrato": stockData.extend({
    ddt: z.string().nullable().meta({ description: "Il documento di trasporto dell'arrivo" }),
    fornitore: z.number().int().nullable().meta({ description: "Id del fornitore del documento di trasporto" }),
  }),
  "arrivo.annullato": stockData,
  "giacenze.allineate": stockData,
  "documento_vendita.emesso": stockData.extend({
    documento: saleDocumentOutput.nullable().meta({ description: "Il documento come in GET /documenti-vendita" }),
  }),
  "ordine_acquisto.modificato": purchaseOrderRowOutput,
  "articolo.modificato": articleRowOutput,
  "cliente.modificato": clientOutput,
  "fornitore.modificato": supplierRowOutput,
  "magazzino.modificato": warehouseRow,
  "ubicazione.modificato": locationRow,
  "avviso_spedizione.modificato": noticeOutput.meta({ description: "L'avviso come in GET /avvisi-spedizione" }),
  "ricevimento.differenza": differenceOutput.meta({ description: "La differenza come in GET /differenze-ricevimento" }),
  "reso_fornitore.registrato": stockData,
  "prenotazione.modificata": reservationOutput.meta({ description: "La prenotazione come in GET /prenotazioni" }),
  "prenotazione.scoperta": reservationOutput.meta({
    description: "La prenotazione come in GET /prenotazioni, dopo che un fatto ha cambiato la quantità scoperta di sue righe",
  }),
} satisfies Record<EventType, z.ZodType> & Record<string, z.ZodType>;

/** Shared row schemas, named once in components. */
const ROW_COMPONENTS = {
  Movimento: movementOutput,
  DocumentoVendita: saleDocumentOutput,
  OrdineAcquisto: purchaseOrderRowOutput,
  Articolo: articleRowOutput,
  Cliente: clientOutput,
  Fornitore: supplierRowOutput,
  Magazzino: warehouseRow,
  Ubicazione: locationRow,
};

const componentName = (tipo: string) =>
  `Evento${tipo
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")}`;

export interface EventSchemas {
  /** Components to add: the rows, one schema per event type, `Evento` (the union) and `LottoEventi` (a batch). */
  components: Record<string, SchemaObject>;
  /** The OpenAPI 3.1 `webhooks` section. */
  webhooks: Record<string, unknown>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Built once with the document. */
export function eventSchemas(): EventSchemas {
  const { id, sequenza, creato_il } = eventOutput.shape;
  const variants = Object.fromEntries(
    Object.entries(DATA).map(([tipo, dati]) => [
      componentName(tipo),
      z.object({ id, sequenza, tipo: z.literal(tipo), creato_il, dati }).meta({ description: `Evento \`${tipo}\`` }),
    ]),
  );
  const names = Object.keys(variants);
  const { components } = createSchema(z.object(variants), {
    io: "output",
    schemaComponents: { ...ROW_COMPONENTS, ...variants },
    openapiVersion: "3.1.0",
  });
  components.Evento = {
    description: "Un evento: `dati` secondo `tipo`",
    oneOf: names.map(ref),
    discriminator: {
      propertyName: "tipo",
      mapping: Object.fromEntries(Object.keys(DATA).map((t) => [t, `#/components/schemas/${componentName(t)}`])),
    },
  };
  components.LottoEventi = {
    type: "object",
    description: "Il corpo di una consegna con `eventi_per_richiesta` sopra 1: uno o più eventi, in ordine di `sequenza`",
    required: ["eventi"],
    additionalProperties: false,
    properties: { eventi: { type: "array", minItems: 1, maxItems: 100, items: ref("Evento") } },
  };
  const webhooks: Record<string, unknown> = {};
  for (const tipo of Object.keys(DATA))
    webhooks[tipo] = delivery(tipo, `Evento \`${tipo}\`, consegnato da solo`, componentName(tipo), "evt_…, l'`id` dell'evento");
  webhooks.eventi = delivery(
    "eventi",
    "Più eventi in una richiesta (endpoint con `eventi_per_richiesta` sopra 1), in ordine di `sequenza`, firmati come un messaggio",
    "LottoEventi",
    "msg_<prima sequenza>_<ultima sequenza>: lo stesso a ogni nuovo tentativo",
  );
  return { components, webhooks };
}

/** One delivery: a POST to the receiver's URL, signed as Standard Webhooks says. */
function delivery(name: string, summary: string, schema: string, idDescription: string) {
  const header = (name: string, description: string, type: "string" | "integer") => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type },
  });
  return {
    post: {
      operationId: `webhook_${name}`,
      summary,
      description:
        "Consegna secondo Standard Webhooks: il destinatario verifica la firma con le librerie pubblicate dalla specifica " +
        "(segreto `whsec_…`, mostrato una volta alla creazione dell'endpoint). Almeno una volta: fatta con un 2xx entro 10 s, " +
        "altrimenti ritentata con attese crescenti per almeno 30 ore.",
      security: [],
      parameters: [
        header("webhook-id", `Id del messaggio: ${idDescription}. Serve a riconoscere un doppione`, "string"),
        header("webhook-timestamp", "Istante dell'invio, in secondi Unix", "integer"),
        header(
          "webhook-signature",
          "Firme `v1,<base64 HMAC-SHA256>` separate da spazi, di `<webhook-id>.<webhook-timestamp>.<corpo>`",
          "string",
        ),
      ],
      requestBody: { required: true, content: { "application/json": { schema: ref(schema) } } },
      responses: {
        "200": { description: "Consegnato (vale ogni 2xx entro 10 s)" },
        default: { description: "Qualsiasi altra risposta, o nessuna entro 10 s: la consegna sarà ritentata" },
      },
    },
  };
}
