import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { assertPeriod } from "../lists/lists";
import { createSaleInput, listSalesInput, listSalesOutput, saleDocumentOutput } from "./sales.schemas";
import { createSale, listSales } from "./sales.service";

export const salesRouter = router({
  // Operator screens only: the contract gives integrators no way to issue documents.
  create: writeProcedure
    .use(requireRole("responsabile"))
    .input(createSaleInput)
    .output(saleDocumentOutput)
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { path: "/documenti-vendita", input }, async (tx) => ({
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
    .input(listSalesInput)
    .output(listSalesOutput)
    .query(({ ctx, input }) => {
      assertPeriod(input.da, input.a);
      return listSales(ctx.db, input);
    }),
});
