import { readProcedure, router } from "../../trpc/init";
import { listLotsInput, listLotsOutput } from "./lots.schemas";
import { listOpenLots } from "./lots.service";
import { syncParse } from "../../lib/zod";

export const lotsRouter = router({
  listOpen: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/articoli/{id}/lotti",
        tags: ["Lotti"],
        summary: "Lotti aperti di un articolo in un magazzino",
        protect: true,
      },
    })
    .input(syncParse(listLotsInput))
    .output(syncParse(listLotsOutput))
    .query(({ ctx, input }) => listOpenLots(ctx.db, input.id, input.magazzino)),
});
