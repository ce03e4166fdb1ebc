import { readProcedure, router } from "../../trpc/init";
import {
  listSuppliersOutput,
  listWarehousesOutput,
  resolveArticlesInput,
  resolveArticlesOutput,
  searchArticlesInput,
  searchArticlesOutput,
} from "./catalogue.schemas";
import { listSuppliers, listWarehouses, resolveArticles, searchArticles } from "./catalogue.service";
import { syncParse } from "../../lib/zod";

export const catalogueRouter = router({
  warehouses: readProcedure.output(syncParse(listWarehousesOutput)).query(async ({ ctx }) => ({ magazzini: await listWarehouses(ctx.db) })),
  suppliers: readProcedure.output(syncParse(listSuppliersOutput)).query(async ({ ctx }) => ({ fornitori: await listSuppliers(ctx.db) })),
  articles: readProcedure
    .input(syncParse(searchArticlesInput))
    .output(syncParse(searchArticlesOutput))
    .query(async ({ ctx, input }) => ({ articoli: await searchArticles(ctx.db, input) })),
  // A mutation only for its body: an inventory file's 10,000 codes do not fit in a query string. It writes nothing.
  resolve: readProcedure
    .input(syncParse(resolveArticlesInput))
    .output(syncParse(resolveArticlesOutput))
    .mutation(({ ctx, input }) => resolveArticles(ctx.db, input)),
});
