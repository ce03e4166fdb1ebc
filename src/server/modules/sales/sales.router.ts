import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { createSaleInput, listSalesInput, listSalesOutput, newestSalesInput, newestSalesOutput, saleDocumentOutput } from "./sales.schemas";
import { createSale, listNewestSales, listSales } from "./sales.service";
import { syncParse } from "../../lib/zod";

export const salesRouter = router({
  // Operator screens only: the contract gives integrators no way to issue documents.
  create: writeProcedure
    .meta({ idempotencyPath: "/documenti-vendita" })
    .use(requireRole("responsabile"))
    .input(syncParse(createSaleInput))
    .output(syncParse(saleDocumentOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await createSale(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  list: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/documenti-vendita",
        tags: ["Documenti di vendita"],
        summary: "Elenco dei documenti di vendita con le righe (sincronizzazione incrementale con `dopo`)",
        protect: true,
      },
    })
    .input(syncParse(listSalesInput))
    .output(syncParse(listSalesOutput))
    .query(({ ctx, input }) => listSales(ctx.db, input)),

  // The sales screen's order, for people: not on REST, whose list pages oldest first (its sync order).
  newest: readProcedure
    .use(requireRole("responsabile"))
    .input(syncParse(newestSalesInput))
    .output(syncParse(newestSalesOutput))
    .query(({ ctx, input }) => listNewestSales(ctx.db, input)),
});
