import { syncParse } from "../../lib/zod";
import { readProcedure, requireRole, router } from "../../trpc/init";
import { startingCursorsInput, startingCursorsOutput } from "./cursors.schemas";
import { startingCursors } from "./cursors.service";

export const cursorsRouter = router({
  // The manager's role, as GET /clienti and GET /eventi, whose cursors it gives.
  starting: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/cursori",
        tags: ["Sincronizzazione"],
        summary: "Il cursore di ogni lista per partire da adesso",
        description:
          "Per ogni lista paginata con `dopo` (tranne `/disponibilita`, una fotografia), per ogni feed `modificati_dopo` e per gli eventi: " +
          "il cursore da salvare per leggere solo ciò che verrà confermato da adesso in poi, senza scorrere tutto da 0. " +
          "Ogni cursore è preso con la garanzia di completezza delle liste: nulla di confermato dopo questa risposta va perso. " +
          "Un cursore oltre ogni valore mai emesso dal servizio è rifiutato dalle liste con 422 `cursore_non_valido`.",
        protect: true,
      },
    })
    .input(syncParse(startingCursorsInput))
    .output(syncParse(startingCursorsOutput))
    .query(({ ctx }) => startingCursors(ctx.db)),
});
