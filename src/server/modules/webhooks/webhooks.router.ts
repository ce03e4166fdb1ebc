import { syncParse } from "../../lib/zod";
import { adminProcedure, router } from "../../trpc/init";
import {
  createEndpointInput,
  createEndpointOutput,
  endpointOutput,
  listAttemptsInput,
  listAttemptsOutput,
  listDeliveriesInput,
  listDeliveriesOutput,
  listEndpointsOutput,
  replayDeliveryInput,
  replayInput,
  restDeleteOutput,
  setActiveInput,
  updateSettingsInput,
} from "./webhooks.schemas";
import {
  createEndpoint,
  deleteEndpoint,
  listAttempts,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  replayEndpoint,
  setEndpointActive,
  updateEndpointSettings,
} from "./webhooks.service";
import { z } from "zod";

/** Webhook endpoints, for administrators on the screens (/webhook); the command line calls the same services. */
export const webhooksRouter = router({
  list: adminProcedure.output(syncParse(listEndpointsOutput)).query(({ ctx }) => listEndpoints(ctx.db, ctx.config.SERVICE_TIME_ZONE)),
  create: adminProcedure
    .input(syncParse(createEndpointInput))
    .output(syncParse(createEndpointOutput))
    .mutation(({ ctx, input }) =>
      createEndpoint(ctx.db, ctx.actor, input, {
        allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true",
        timeZone: ctx.config.SERVICE_TIME_ZONE,
      }),
    ),
  setActive: adminProcedure
    .input(syncParse(setActiveInput))
    .output(syncParse(endpointOutput))
    .mutation(({ ctx, input }) => setEndpointActive(ctx.db, ctx.actor, input.id, input.attivo, ctx.config.SERVICE_TIME_ZONE)),
  update: adminProcedure
    .input(syncParse(updateSettingsInput))
    .output(syncParse(endpointOutput))
    .mutation(({ ctx, input: { id, ...changes } }) => updateEndpointSettings(ctx.db, ctx.actor, id, changes, ctx.config.SERVICE_TIME_ZONE)),
  remove: adminProcedure
    .input(syncParse(setActiveInput.pick({ id: true })))
    .output(syncParse(restDeleteOutput))
    .mutation(({ ctx, input }) => deleteEndpoint(ctx.db, ctx.actor, input.id, null, ctx.config.WEBHOOK_TIMEOUT_MS)),
  replay: adminProcedure
    .input(syncParse(replayInput))
    .output(syncParse(z.object({ riaccodate: z.number().int() })))
    .mutation(({ ctx, input }) => replayEndpoint(ctx.db, ctx.actor, input.id, input.da)),
  replayDelivery: adminProcedure
    .input(syncParse(replayDeliveryInput))
    .output(syncParse(z.object({ riaccodate: z.number().int() })))
    .mutation(({ ctx, input }) => replayDelivery(ctx.db, ctx.actor, input.id, input.consegna)),
  deliveries: adminProcedure
    .input(syncParse(listDeliveriesInput))
    .output(syncParse(listDeliveriesOutput))
    .query(({ ctx, input }) => listDeliveries(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),
  attempts: adminProcedure
    .input(syncParse(listAttemptsInput))
    .output(syncParse(listAttemptsOutput))
    .query(({ ctx, input }) => listAttempts(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),
});
