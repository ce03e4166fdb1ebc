import { readProcedure, requireRole, router } from "../../trpc/init";
import { listClientsInput, listClientsOutput, searchClientsInput, searchClientsOutput } from "./clients.schemas";
import { listClients, searchClients } from "./clients.service";
import { syncParse } from "../../lib/zod";

export const clientsRouter = router({
  list: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/clienti",
        tags: ["Clienti"],
        summary: "Elenco dei clienti",
        description:
          "Pagine per id (`limite`, `dopo`, `altri`, `cursore`). Con `modificati_dopo=V` è il feed delle modifiche: i clienti creati o " +
          "cambiati dopo la versione V, in ordine di `versione`, ciascuno nel suo stato attuale, con `cursore_versione`. " +
          "`cerca` filtra su codice e ragione sociale, `attivo` sullo stato. `dopo` e `modificati_dopo` insieme sono `filtro_non_valido`.",
        protect: true,
      },
    })
    .input(syncParse(listClientsInput))
    .output(syncParse(listClientsOutput))
    .query(({ ctx, input }) => listClients(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),

  // The sales form's picker: a shop may have thousands of clients, more than one page of the list.
  search: readProcedure
    .use(requireRole("responsabile"))
    .input(syncParse(searchClientsInput))
    .output(syncParse(searchClientsOutput))
    .query(async ({ ctx, input }) => ({ clienti: await searchClients(ctx.db, input.cerca) })),
});
