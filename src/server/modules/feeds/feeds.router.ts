import { syncParse } from "../../lib/zod";
import { readProcedure, router } from "../../trpc/init";
import {
  listArticlesInput,
  listArticlesOutput,
  listLocationsInput,
  listLocationsOutput,
  listPurchaseOrdersInput,
  listPurchaseOrdersOutput,
  listSuppliersInput,
  listSuppliersOutput,
  listWarehousesInput,
  listWarehousesOutput,
} from "./feeds.schemas";
import { listArticles, listLocations, listPurchaseOrders, listSuppliers, listWarehouses } from "./feeds.service";

const FEED =
  "Pagine per id come `/movimenti` (`limite`, `dopo`, `altri`, `cursore`). Con `modificati_dopo=V` è il feed delle modifiche: " +
  "le righe create o cambiate dopo la versione V, in ordine di `versione`, ciascuna nel suo stato attuale, con `cursore_versione` " +
  "(sulla pagina vuota il V inviato). Un client che riparte dal `cursore_versione` salvato non perde nessuna modifica, " +
  "comunque si intreccino le scritture. `dopo` e `modificati_dopo` insieme sono `filtro_non_valido`; un cursore oltre ogni valore mai " +
  "emesso dal servizio è 422 `cursore_non_valido` (ripartire da GET /cursori o da 0).";

export const feedsRouter = router({
  articles: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/articoli",
        tags: ["Anagrafiche"],
        summary: "Articoli (modelli e varianti), per id o come feed delle modifiche",
        description: `Ogni articolo, modelli e varianti uno per uno (\`modello\`: il codice del modello di una variante). ${FEED}`,
        protect: true,
      },
    })
    .input(syncParse(listArticlesInput))
    .output(syncParse(listArticlesOutput))
    .query(({ ctx, input }) => listArticles(ctx.db, input)),

  // The articles screen's look-up (tRPC only): GET /articoli's list whose text also finds an EAN, whole,
  // in part or inside a GS1 code. Kept off REST, where `cerca` is code and description (docs/api.md section 9).
  articleLookup: readProcedure
    .input(syncParse(listArticlesInput))
    .output(syncParse(listArticlesOutput))
    .query(({ ctx, input }) => listArticles(ctx.db, input, { byEan: true })),

  suppliers: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/fornitori",
        tags: ["Anagrafiche"],
        summary: "Fornitori, per id o come feed delle modifiche",
        description: FEED,
        protect: true,
      },
    })
    .input(syncParse(listSuppliersInput))
    .output(syncParse(listSuppliersOutput))
    .query(({ ctx, input }) => listSuppliers(ctx.db, input)),

  warehouses: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/magazzini",
        tags: ["Anagrafiche"],
        summary: "Magazzini, per id o come feed delle modifiche",
        description: FEED,
        protect: true,
      },
    })
    .input(syncParse(listWarehousesInput))
    .output(syncParse(listWarehousesOutput))
    .query(({ ctx, input }) => listWarehouses(ctx.db, input)),

  locations: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/ubicazioni",
        tags: ["Anagrafiche"],
        summary: "Ubicazioni dei magazzini, per id o come feed delle modifiche",
        description:
          "Le ubicazioni (docs/api.md section 11), di un magazzino (`magazzino`: id; uno che non esiste è `magazzino_non_trovato`) o di tutti; " +
          `filtri \`tipo\`, \`attiva\`, \`cerca\` (codice e descrizione). ${FEED}`,
        protect: true,
      },
    })
    .input(syncParse(listLocationsInput))
    .output(syncParse(listLocationsOutput))
    .query(({ ctx, input }) => listLocations(ctx.db, input)),

  purchaseOrders: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/ordini-acquisto",
        tags: ["Ordini d'acquisto"],
        summary: "Ordini d'acquisto con le righe, per id o come feed delle modifiche",
        description:
          "La `versione` di un ordine cambia a ogni modifica della testata o di una sua riga (arrivi, annullamenti, chiusure comprese). " +
          `\`da\`/\`a\` filtrano sulla data dell'ordine. ${FEED}`,
        protect: true,
      },
    })
    .input(syncParse(listPurchaseOrdersInput))
    .output(syncParse(listPurchaseOrdersOutput))
    .query(({ ctx, input }) => listPurchaseOrders(ctx.db, input)),
});
