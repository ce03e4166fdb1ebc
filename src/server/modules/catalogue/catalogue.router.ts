import { readProcedure, router } from "../../trpc/init";
import { listSuppliersOutput, listWarehousesOutput, searchArticlesInput, searchArticlesOutput } from "./catalogue.schemas";
import { listSuppliers, listWarehouses, searchArticles } from "./catalogue.service";
import { syncParse } from "../../lib/zod";

export const catalogueRouter = router({
  warehouses: readProcedure.output(syncParse(listWarehousesOutput)).query(async ({ ctx }) => ({ magazzini: await listWarehouses(ctx.db) })),
  suppliers: readProcedure.output(syncParse(listSuppliersOutput)).query(async ({ ctx }) => ({ fornitori: await listSuppliers(ctx.db) })),
  articles: readProcedure
    .input(syncParse(searchArticlesInput))
    .output(syncParse(searchArticlesOutput))
    .query(async ({ ctx, input }) => ({ articoli: await searchArticles(ctx.db, input) })),
});
