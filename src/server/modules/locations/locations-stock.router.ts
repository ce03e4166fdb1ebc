import { syncParse } from "../../lib/zod";
import { readProcedure, router } from "../../trpc/init";
import {
  articleLocationsInput,
  articleLocationsOutput,
  awaitingPutawayInput,
  awaitingPutawayOutput,
  listLocationStockInput,
  listLocationStockOutput,
  screenLocationsInput,
  screenLocationsOutput,
  whereIsInput,
  whereIsOutput,
} from "./locations-stock.schemas";
import {
  listArticleLocations,
  listAwaitingPutaway,
  listLocationStock,
  listScreenLocations,
  whereIsArticle,
} from "./locations-stock.service";

// Every role reads these: an operator looks for goods and puts them away (docs/api.md section 11).
export const locationsStockRouter = router({
  list: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/giacenze-ubicazioni",
        tags: ["Ubicazioni"],
        summary: "Giacenza per ubicazione di un magazzino: una riga per (articolo, ubicazione, lotto) sopra zero",
        description:
          "Pagine per id come `/movimenti` (`limite` 1..500, predefinito 500; `dopo`, `altri`, `cursore`), con la stessa promessa di " +
          "completezza: una riga creata da una scrittura non ancora confermata ferma la pagina finché non è confermata. L'id è stabile " +
          "per (articolo, ubicazione, lotto). Come `/disponibilita` è una fotografia: una riga scesa a zero sparisce, una tornata sopra " +
          "zero riappare con il suo id; per una nuova fotografia si riparte da 0. Un magazzino senza gestione delle ubicazioni non ha righe.",
        protect: true,
      },
    })
    .input(syncParse(listLocationStockInput))
    .output(syncParse(listLocationStockOutput))
    .query(({ ctx, input }) => listLocationStock(ctx.db, input)),

  ofArticle: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/articoli/{id}/ubicazioni",
        tags: ["Ubicazioni"],
        summary: "Dove si trova un articolo in un magazzino: ubicazioni e lotti",
        description:
          "Le ubicazioni che ne tengono sopra zero, per codice, ciascuna con la sua quantità e i suoi lotti (scadenza più vicina prima).",
        protect: true,
      },
    })
    .input(syncParse(articleLocationsInput))
    .output(syncParse(articleLocationsOutput))
    .query(({ ctx, input }) => listArticleLocations(ctx.db, input.id, input.magazzino)),

  awaitingPutaway: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/da-stoccare",
        tags: ["Ubicazioni"],
        summary: "Merce da stoccare: ciò che si trova nelle ubicazioni di ricevimento, arrivo più vecchio prima",
        description:
          "Una riga per (articolo, lotto, ubicazione di ricevimento) sopra zero; `arrivato_il` è quando la merce è entrata in " +
          "quell'ubicazione vuota. Paginata come le liste (sezione 4): per `movimento`, il movimento che l'ha portata nell'ubicazione vuota, " +
          "in ordine di arrivo; `dopo` = il `cursore` della pagina precedente. Una riga stoccata nel frattempo esce; chi prosegue con il " +
          "cursore vede ogni riga ancora in attesa al più una volta, e nessuna che sia arrivata prima del cursore.",
        protect: true,
      },
    })
    .input(syncParse(awaitingPutawayInput))
    .output(syncParse(awaitingPutawayOutput))
    .query(({ ctx, input }) => listAwaitingPutaway(ctx.db, input, ctx.config.SERVICE_TIME_ZONE)),

  // The screens' reads (not on REST): "Dov'è?" across the location warehouses, and the locations screen's list.
  whereIs: readProcedure
    .input(syncParse(whereIsInput))
    .output(syncParse(whereIsOutput))
    .query(({ ctx, input }) => whereIsArticle(ctx.db, input.id)),

  screenLocations: readProcedure
    .input(syncParse(screenLocationsInput))
    .output(syncParse(screenLocationsOutput))
    .query(({ ctx, input }) => listScreenLocations(ctx.db, input)),
});
