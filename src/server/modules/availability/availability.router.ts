import { readProcedure, requireRole, router } from "../../trpc/init";
import { listAvailabilityInput, listAvailabilityOutput } from "./availability.schemas";
import { listAvailability } from "./availability.service";
import { businessDate } from "../../lib/dates";
import { syncParse } from "../../lib/zod";

export const availabilityRouter = router({
  list: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/disponibilita",
        tags: ["Disponibilità"],
        summary: "Disponibilità per articolo: giacenza, quantità in arrivo, dettaglio per magazzino",
        description:
          "Una riga per ogni articolo gestito a magazzino (le varianti una per una, mai i modelli; anche a giacenza zero), per id articolo. " +
          "Con `a` giacenza e in arrivo sono quelli alla fine di quel giorno (senza `prenotata`, `scaduta`, `disponibile`); con `magazzino` " +
          "i valori sono di quel magazzino. Con `articolo` (id) o `codice`, solo quell'articolo (un modello: le sue varianti); sconosciuto: 404.",
        protect: true,
      },
    })
    .input(syncParse(listAvailabilityInput))
    .output(syncParse(listAvailabilityOutput))
    .query(({ ctx, input }) => listAvailability(ctx.db, input, { oggi: businessDate(ctx.config.SERVICE_TIME_ZONE) })),
});
