import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite, originOf } from "../../trpc/write";
import {
  listMovementsInput,
  listMovementsOutput,
  newestMovementsInput,
  newestMovementsOutput,
  writeMovementsInput,
  writeMovementsOutput,
} from "./movements.schemas";
import { listMovements, listNewestMovements, writeMovements } from "./movements.service";
import { syncParse } from "../../lib/zod";

export const movementsRouter = router({
  // Users: manual movements and the ledger are a manager's (operators receive goods and count stock).
  write: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/movimenti",
        tags: ["Movimenti"],
        summary: "Scrive movimenti: carichi, scarichi, trasferimenti",
        description:
          "Esiti per riga: una riga rifiutata non blocca le altre. Un trasferimento scrive due movimenti nella stessa operazione. Senza `prezzo` vale il prezzo suggerito (ultimo arrivo, ultimo ordine, costo standard). In un magazzino che gestisce le ubicazioni ogni riga indica `ubicazione` (un trasferimento anche `ubicazione_origine`), e un'ubicazione non cede più di quanto contiene (`quantita_insufficiente_ubicazione`); un trasferimento con `magazzino_origine` uguale a `magazzino` sposta la merce tra due ubicazioni diverse di quel magazzino.",
        protect: true,
      },
    })
    .input(syncParse(writeMovementsInput))
    .output(syncParse(writeMovementsOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await writeMovements(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE, origine: originOf(ctx) }),
      })),
    ),

  list: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/movimenti",
        tags: ["Movimenti"],
        summary: "Elenco dei movimenti (sincronizzazione incrementale con `dopo`)",
        protect: true,
      },
    })
    .input(syncParse(listMovementsInput))
    .output(syncParse(listMovementsOutput))
    .query(({ ctx, input }) => listMovements(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),

  // The movements screen's order, for people: not on REST, whose list pages oldest first (its sync order).
  newest: readProcedure
    .use(requireRole("responsabile"))
    .input(syncParse(newestMovementsInput))
    .output(syncParse(newestMovementsOutput))
    .query(({ ctx, input }) => listNewestMovements(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),
});
