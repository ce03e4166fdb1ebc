import { syncParse } from "../../lib/zod";
import { requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { upsertOutput } from "../../lib/upsert-rows";
import { upsertClientsInput } from "./clients-upsert.schemas";
import { upsertClientRows } from "./clients-upsert.service";

/** POST /clienti: clients upserted by code (docs/api.md section 9). */
export const clientsUpsertRouter = router({
  upsert: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/clienti",
        tags: ["Clienti"],
        summary: "Crea o aggiorna clienti per codice",
        description:
          "Upsert per `codice`, fino a 500 righe: un codice nuovo crea, uno noto aggiorna i campi inviati (un campo assente resta com'è, `null` cancella un campo facoltativo). " +
          "Esiti per riga: una riga rifiutata non blocca le altre; lo stesso invio ripetuto risponde `invariato` e non scrive nulla. " +
          "Codici di rifiuto per riga: `codice_non_valido`, `codice_ripetuto`, `campo_non_valido` (il messaggio nomina il campo).",
        protect: true,
      },
    })
    .input(syncParse(upsertClientsInput))
    .output(syncParse(upsertOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertClientRows(tx, input.clienti, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),
});
