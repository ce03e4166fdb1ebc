import { syncParse } from "../../lib/zod";
import { writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { returnInput, returnOutput } from "./returns.schemas";
import { returnToSupplier } from "./returns.service";

/** POST /resi-fornitore: a key of the notices' router (`notices.returnToSupplier`), which spreads it in. */
export const returnProcedures = {
  returnToSupplier: writeProcedure
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/resi-fornitore",
        tags: ["Avvisi di spedizione"],
        summary: "Reso al fornitore: scarichi con origine reso_fornitore in una sola operazione",
        description:
          "Esiti per riga come POST /movimenti (controlli di lotto di ogni scarico). Con `riga` (una riga d'ordine del fornitore) e " +
          "`riapri: true` l'arrivato della riga scende della quantità resa e la merce torna attesa; mai oltre l'arrivato (`quantita_eccessiva`). " +
          "Un annullamento successivo di un arrivo di quella riga che porterebbe l'arrivato sotto zero è 409 `arrivo_reso`.",
        protect: true,
      },
    })
    .input(syncParse(returnInput))
    .output(syncParse(returnOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await returnToSupplier(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),
};
