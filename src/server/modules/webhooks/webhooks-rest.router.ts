import { DomainError } from "../../lib/errors";
import { syncParse } from "../../lib/zod";
import { router, webhookKeyProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import {
  createEndpointInput,
  replayOutput,
  restCreateOutput,
  restDeleteOutput,
  restEndpointDetail as restEndpointDetailOutput,
  restIdInput,
  restListInput,
  restListOutput,
  restReplayInput,
  restUpdateInput,
} from "./webhooks.schemas";
import {
  createRestEndpoint,
  deleteEndpoint,
  listRestEndpoints,
  replayEndpointIn,
  restEndpointDetail,
  updateRestEndpoint,
} from "./webhooks.service";

/**
 * A key's own webhook endpoints by REST (docs/api.md section 10): scopes `webhook` and `lettura`; an endpoint of
 * another key, or one made on the screen or the command line, is 404 for it. No answer carries a receiver's
 * answer body. The screen's procedures (webhooks.router.ts) see every endpoint; both call the same services.
 */

const TAG = "Webhook";

export const webhooksRestRouter = router({
  list: webhookKeyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhook",
        tags: [TAG],
        summary: "I webhook creati da questa chiave",
        description:
          "Ogni webhook con le impostazioni, lo stato delle consegne, il ritardo (`ritardo_s`) e il ritmo (`eventi_al_secondo`). " +
          "Serve una chiave con i permessi `webhook` e `lettura`.",
        protect: true,
      },
    })
    .input(syncParse(restListInput))
    .output(syncParse(restListOutput))
    .query(({ ctx }) => listRestEndpoints(ctx.db, ctx.actor.id, ctx.config.SERVICE_TIME_ZONE)),

  create: webhookKeyProcedure
    .meta({
      successStatuses: [201],
      openapi: {
        method: "POST",
        path: "/webhook",
        tags: [TAG],
        summary: "Crea un webhook: il segreto è nella risposta, una sola volta",
        description:
          "Riceve gli eventi dei tipi scelti registrati da ora in poi, firmati secondo Standard Webhooks con il `segreto`. " +
          "`eventi_per_richiesta` (1–100, predefinito 1) e `consegna` (`ordinata`, predefinita, o `parallela`). " +
          "Indirizzi http o https; reti private, di loopback e link-local rifiutate salvo configurazione del servizio. " +
          "`Idempotency-Key` non è accettata (422 `richiesta_non_valida`): una ripetizione mostrerebbe il segreto una seconda volta.",
        protect: true,
      },
    })
    .input(syncParse(createEndpointInput))
    .output(syncParse(restCreateOutput))
    .mutation(async ({ ctx, input }) => {
      if (ctx.headers.get("idempotency-key") !== null) {
        throw new DomainError(
          "richiesta_non_valida",
          "Idempotency-Key non è accettata su POST /webhook: ripetere la creazione mostrerebbe il segreto una seconda volta. " +
            "Se l'esito è incerto, GET /webhook mostra i webhook creati da questa chiave.",
          { campo: "Idempotency-Key" },
        );
      }
      const out = await createRestEndpoint(ctx.db, ctx.actor, input, {
        allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true",
        timeZone: ctx.config.SERVICE_TIME_ZONE,
      });
      ctx.response.status = 201;
      return out;
    }),

  get: webhookKeyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhook/{id}",
        tags: [TAG],
        summary: "Un webhook: stato, ritardo, ritmo, ultimi tentativi (stato HTTP e durata)",
        description:
          "`salto`, quando c'è, è l'intervallo di sequenze non raccolte perché il webhook è rimasto disattivato più di 7 giorni: " +
          "POST /webhook/{id}/riprova con `da` uguale al suo inizio lo consegna. Il corpo delle risposte del ricevente non è mai mostrato.",
        protect: true,
      },
    })
    .input(syncParse(restIdInput))
    .output(syncParse(restEndpointDetailOutput))
    .query(({ ctx, input }) => restEndpointDetail(ctx.db, input.id, ctx.actor.id, ctx.config.SERVICE_TIME_ZONE)),

  update: webhookKeyProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/webhook/{id}",
        tags: [TAG],
        summary: "Cambia eventi, impostazioni di consegna o stato (attivo) di un webhook",
        description:
          "Solo i campi inviati cambiano (almeno uno). `eventi` sostituisce l'elenco; le impostazioni valgono per i lotti non ancora formati. " +
          "`attivo: false` sospende le consegne; dopo più di 7 giorni di disattivazione, `attivo: true` riprende da ora e `salto` nomina le sequenze saltate.",
        protect: true,
      },
    })
    .input(syncParse(restUpdateInput))
    .output(syncParse(restEndpointDetailOutput))
    .mutation(({ ctx, input: { id, ...changes } }) => updateRestEndpoint(ctx.db, ctx.actor, id, changes, ctx.config.SERVICE_TIME_ZONE)),

  remove: webhookKeyProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/webhook/{id}",
        tags: [TAG],
        summary: "Elimina un webhook: le sue consegne in attesa sono scartate",
        description:
          "Il webhook non riceve più nulla e sparisce dagli elenchi. Senza corpo. La risposta arriva quando i tentativi già in corso " +
          "(su qualsiasi istanza) hanno avuto risposta: un evento è consegnato o scartato (`consegne_scartate`), e dopo la risposta " +
          "non parte più nulla.",
        protect: true,
      },
    })
    .input(syncParse(restIdInput))
    .output(syncParse(restDeleteOutput))
    .mutation(({ ctx, input }) => deleteEndpoint(ctx.db, ctx.actor, input.id, ctx.actor.id, ctx.config.WEBHOOK_TIMEOUT_MS)),

  replay: webhookKeyProcedure
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/webhook/{id}/riprova",
        tags: [TAG],
        summary: "Consegna di nuovo gli eventi dalla sequenza `da` (inclusa)",
        description:
          "Ogni evento dei tipi del webhook da `da` in poi torna in attesa, anche se già consegnato; riempie il `salto` quando `da` non lo supera. " +
          "Una `da` oltre l'ultima sequenza emessa dal servizio è 422 `cursore_non_valido`.",
        protect: true,
      },
    })
    .input(syncParse(restReplayInput))
    .output(syncParse(replayOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await replayEndpointIn(tx, ctx.actor, input.id, input.da, ctx.actor.id),
      })),
    ),
});
