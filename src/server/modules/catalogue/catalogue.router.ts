import { readProcedure, router } from "../../trpc/init";
import { listSuppliersOutput, listWarehousesOutput, searchArticlesInput, searchArticlesOutput } from "./catalogue.schemas";
import { listSuppliers, listWarehouses, searchArticles } from "./catalogue.service";

export const catalogueRouter = router({
  warehouses: readProcedure.output(listWarehousesOutput).query(async ({ ctx }) => ({ magazzini: await listWarehouses(ctx.db) })),
  suppliers: readProcedure.output(listSuppliersOutput).query(async ({ ctx }) => ({ fornitori: await listSuppliers(ctx.db) })),
  articles: readProcedure
    .input(searchArticlesInput)
    .output(searchArticlesOutput)
    .query(async ({ ctx, input }) => ({ articoli: await searchArticles(ctx.db, input) })),
});
