import { businessDate } from "../../lib/dates";
import { syncParse } from "../../lib/zod";
import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { holdersInput, holdersOutput, newestReservationsInput, newestReservationsOutput } from "./reservations-screens.schemas";
import { holdersOfArticle, listNewestReservations } from "./reservations-screens.service";
import { upsertReservations } from "./reservations-upsert.service";
import {
  cancelReservationInput,
  listReservationsInput,
  listReservationsOutput,
  reservationOutput,
  upsertReservationsInput,
  upsertReservationsOutput,
} from "./reservations.schemas";
import { cancelReservation, listReservations } from "./reservations.service";

/** Reservations and available-to-promise (docs/api.md section 14): fed by a shop or an ERP by REST. */
export const reservationsRouter = router({
  list: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/prenotazioni",
        tags: ["Prenotazioni"],
        summary: "Prenotazioni con le righe, per id o come feed delle modifiche",
        description:
          "Paginate per id come ogni lista (`limite`, `dopo`), o con `modificati_dopo` come feed delle modifiche (la versione cambia a ogni " +
          "cambio di stato o di quantità). Filtri: `magazzino`, `cliente` (id), `stato`, `riferimento`.",
        protect: true,
      },
    })
    .input(syncParse(listReservationsInput))
    .output(syncParse(listReservationsOutput))
    .query(({ ctx, input }) => listReservations(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),

  upsert: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/prenotazioni",
        tags: ["Prenotazioni"],
        summary: "Crea prenotazioni o ne sostituisce le righe (per chiave e riferimento)",
        description:
          "Fino a 100 prenotazioni e 500 righe in tutto per chiamata (oltre: `troppe_righe`). Una prenotazione è identificata dal `riferimento` " +
          "tra quelle della chiave; una riga da `numero_riga`. Senza `parziale` ogni riga è tenuta per intero o la prenotazione è rifiutata " +
          "(`disponibilita_insufficiente`, con il `disponibile` di ogni riga scoperta in `errore.righe`); con `parziale` ogni riga tiene quanto " +
          "è disponibile. Inviarla di nuovo ne sostituisce le righe: un aumento chiede disponibilità, una riduzione o una riga tolta rilascia subito. " +
          "Una prenotazione rifiutata non blocca le altre e un aggiornamento rifiutato lascia in vigore la versione precedente. Codici per " +
          "prenotazione: `campo_non_valido`, `riferimento_ripetuto`, `prenotazione_chiusa`, `cliente_non_trovato`, `magazzino_non_trovato`, " +
          "`disponibilita_insufficiente`, `lotto_non_disponibile`, `numero_riga_ripetuto`, `articolo_non_trovato`, `articolo_con_varianti`, " +
          "`articolo_ambiguo`, `articolo_non_attivo`, `quantita_non_valida`, `prezzo_non_valido`, `lotto_non_previsto`.",
        protect: true,
      },
    })
    .input(syncParse(upsertReservationsInput))
    .output(syncParse(upsertReservationsOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertReservations(tx, ctx.actor, input, { oggi: businessDate(ctx.config.SERVICE_TIME_ZONE) }),
      })),
    ),

  cancel: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/prenotazioni/{id}/annulla",
        tags: ["Prenotazioni"],
        summary: "Rilascia tutte le righe di una prenotazione, o quelle indicate",
        description:
          "`righe`: numeri di riga (`numero_riga`); assente, tutte. Il prelevato resta tenuto. Quando nulla resta tenuto la prenotazione è " +
          "`annullata`; una già `annullata` risponde 200 così com'è. Una `evasa` o `scaduta`: 422 `prenotazione_chiusa`; un numero di riga " +
          "sconosciuto: 422 `riga_non_trovata`.",
        protect: true,
      },
    })
    .input(syncParse(cancelReservationInput))
    .output(syncParse(reservationOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await cancelReservation(tx, input, ctx.config.SERVICE_TIME_ZONE),
      })),
    ),

  // The screens only (not REST): the manager's list newest first with the names a person reads, and who holds an
  // article (its page, open to every role as the article look-up is). Releasing is `cancel` above, by tRPC.
  newest: readProcedure
    .use(requireRole("responsabile"))
    .input(syncParse(newestReservationsInput))
    .output(syncParse(newestReservationsOutput))
    .query(({ ctx, input }) => listNewestReservations(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),

  holders: readProcedure
    .input(syncParse(holdersInput))
    .output(syncParse(holdersOutput))
    .query(({ ctx, input }) => holdersOfArticle(ctx.db, input.articolo)),
});
