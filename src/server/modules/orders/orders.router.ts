import { syncParse } from "../../lib/zod";
import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { closePurchaseOrder } from "./orders-close.service";
import { upsertPurchaseOrders } from "./orders-upsert.service";
import {
  closeOrderInput,
  closeOrderOutput,
  getOrderInput,
  listOrdersInput,
  listOrdersOutput,
  orderDetailOutput,
  printableOrderOutput,
  upsertOrdersInput,
  upsertOrdersOutput,
} from "./orders.schemas";
import { getOrderDetail, getPrintableOrder, listOrders } from "./orders.service";

/**
 * Purchase orders: fed by the ERP (POST /ordini-acquisto, closing short), and for the screens choosing
 * one and printing its row labels (tRPC only).
 */
export const ordersRouter = router({
  list: readProcedure
    .input(syncParse(listOrdersInput))
    .output(syncParse(listOrdersOutput))
    .query(({ ctx, input }) => listOrders(ctx.db, input)),
  detail: readProcedure
    .input(syncParse(getOrderInput))
    .output(syncParse(orderDetailOutput))
    .query(({ ctx, input }) => getOrderDetail(ctx.db, input.id)),
  printable: readProcedure
    .input(syncParse(getOrderInput))
    .output(syncParse(printableOrderOutput))
    .query(({ ctx, input }) => getPrintableOrder(ctx.db, input.id)),

  upsert: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/ordini-acquisto",
        tags: ["Ordini d'acquisto"],
        summary: "Crea ordini d'acquisto o sostituisce le righe di ordini non evasi (per fornitore e numero)",
        description:
          "Fino a 100 ordini e 500 righe in tutto per chiamata (oltre: `troppe_righe`). Un ordine è identificato da `fornitore` e `numero`; " +
          "una riga da `numero_riga`, che le conserva l'id (`riga`, etichetta R<riga>) finché resta. Ogni ordine è tutto o niente: " +
          "una riga rifiutata rifiuta il suo ordine e il messaggio la nomina. Un ordine malformato (una data impossibile, un campo mancante, " +
          "di tipo sbagliato o sconosciuto) è rifiutato da solo con `campo_non_valido` e il campo in `errore.campo`; gli altri ordini si scrivono. " +
          "Codici per ordine: `campo_non_valido`, `fornitore_non_trovato`, `magazzino_non_trovato`, " +
          "`articolo_non_trovato`, `articolo_con_varianti`, `articolo_non_attivo`, `quantita_non_valida`, `prezzo_non_valido`, " +
          "`quantita_sotto_arrivata` (sotto il già arrivato), `riga_con_arrivi` (riga con arrivi tolta o passata a un altro articolo), " +
          "`ordine_evaso` (ordine già evaso: non si modifica), `ordine_ripetuto`, `numero_riga_ripetuto`. Lo stesso ordine inviato di nuovo è `invariato` " +
          "e non scrive nulla. Una nuova quantità su una riga chiusa la riapre.",
        protect: true,
      },
    })
    .input(syncParse(upsertOrdersInput))
    .output(syncParse(upsertOrdersOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertPurchaseOrders(tx, input),
      })),
    ),

  close: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/ordini-acquisto/{id}/chiudi",
        tags: ["Ordini d'acquisto"],
        summary: "Chiude senza consegna il residuo delle righe indicate (o di tutte)",
        description:
          "`righe`: numeri di riga (`numero_riga`); assente, tutte le righe. Il residuo diventa `chiusa` con il `motivo`: esce da `in_arrivo`, " +
          "non risponde più alla lettura e non si riceve più. L'ordine diventa `evaso` quando non resta nulla di aperto. Una riga senza residuo " +
          "(già chiusa o ricevuta per intero) è `invariato`; se nulla cambia non si scrive nulla. Un numero di riga sconosciuto: 422 `riga_non_trovata`. " +
          "Annullare un arrivo su una riga chiusa rimette in attesa quella quantità.",
        protect: true,
      },
    })
    .input(syncParse(closeOrderInput))
    .output(syncParse(closeOrderOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await closePurchaseOrder(tx, input),
      })),
    ),
});
