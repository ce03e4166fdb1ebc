import { syncParse } from "../../lib/zod";
import { readProcedure, requireRole, router } from "../../trpc/init";
import { EVENT_TYPES } from "../../../lib/domain-lists";
import { listEventsInput, listEventsOutput } from "./events.schemas";
import { listEvents, MAX_PAGE_MOVEMENTS } from "./events.service";

export const eventsRouter = router({
  list: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/eventi",
        tags: ["Eventi"],
        summary: "Eventi, in ordine di sequenza",
        description:
          "Ogni scrittura che cambia le giacenze, un ordine o un'anagrafica registra un evento nella sua stessa transazione: " +
          "un evento esiste se e solo se la sua modifica è stata confermata. Pagine per `sequenza` come `/movimenti` " +
          "(`limite`, `dopo`, `altri`, `cursore`): un client che riparte dal `cursore` salvato non perde nessun evento, " +
          `comunque si intreccino le scritture. Una pagina porta al più ${MAX_PAGE_MOVEMENTS} movimenti in tutto: ` +
          "quando i movimenti dei suoi eventi li superano si ferma prima di `limite` eventi, con `altri` vero (ne porta sempre almeno uno). " +
          `\`tipo\` filtra: ${EVENT_TYPES.join(", ")}.`,
        protect: true,
      },
    })
    .input(syncParse(listEventsInput))
    .output(syncParse(listEventsOutput))
    .query(({ ctx, input }) => listEvents(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),
});
