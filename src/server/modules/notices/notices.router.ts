import { syncParse } from "../../lib/zod";
import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { fillRates, listDifferences } from "./differences.service";
import { upsertNotices } from "./notices-upsert.service";
import {
  cancelPalletInput,
  cancelPalletOutput,
  fillRateInput,
  fillRateOutput,
  listDifferencesInput,
  listDifferencesOutput,
  listNoticesInput,
  listNoticesOutput,
  palletInput,
  palletOutput,
  receivePalletInput,
  receivePalletOutput,
  upsertNoticesInput,
  upsertNoticesOutput,
} from "./notices.schemas";
import { listNotices } from "./notices.service";
import { palletOf } from "./pallet-scan.service";
import { cancelPallet, receivePallet } from "./pallets.service";
import { returnInput, returnOutput } from "./returns.schemas";
import { returnToSupplier } from "./returns.service";

/** Shipping notices, pallets and receiving differences (API.md section 12). */
export const noticesRouter = router({
  // Notices come from the ERP (a key); on the screens, as orders, a manager's.
  upsert: writeProcedure
    .use(requireRole("responsabile"))
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/avvisi-spedizione",
        tags: ["Avvisi di spedizione"],
        summary: "Crea avvisi di spedizione o sostituisce quelli non ancora ricevuti (per fornitore e numero)",
        description:
          "Fino a 100 avvisi e 500 righe in tutto (oltre: `troppe_righe`). Ogni avviso è tutto o niente, con il suo esito: " +
          "`campo_non_valido`, `fornitore_non_trovato`, `magazzino_non_trovato`, `sscc_non_valido` (18 cifre con la cifra di controllo GS1), " +
          "`sscc_in_uso` (l'SSCC è di un altro avviso, o ripetuto), `riga_non_trovata` (ordine e `numero_riga` sconosciuti, o ordine evaso), " +
          "`fornitore_diverso` (ordine di un altro fornitore), `magazzino_diverso`, `lotto_obbligatorio`, `lotto_non_previsto`, " +
          "`quantita_non_valida`, `avviso_in_ricevimento` (un suo collo è stato ricevuto, anche se poi annullato), `avviso_ripetuto`. " +
          "Lo stesso avviso inviato di nuovo è `invariato` e non scrive nulla.",
        protect: true,
      },
    })
    .input(syncParse(upsertNoticesInput))
    .output(syncParse(upsertNoticesOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { path: "/avvisi-spedizione", input }, async (tx) => ({ status: 200, body: await upsertNotices(tx, input) })),
    ),

  list: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/avvisi-spedizione",
        tags: ["Avvisi di spedizione"],
        summary: "Avvisi di spedizione con colli e righe, per id o come feed delle modifiche",
        description:
          "Paginati per id come ogni lista (`limite`, `dopo`), o con `modificati_dopo` come feed delle modifiche (la versione di un avviso " +
          "cambia anche quando un suo collo è ricevuto o annullato). Filtri: `fornitore` (id), `stato` (`atteso`, `in_ricevimento`, `ricevuto`).",
        protect: true,
      },
    })
    .input(syncParse(listNoticesInput))
    .output(syncParse(listNoticesOutput))
    .query(({ ctx, input }) => listNotices(ctx.db, input)),

  receive: writeProcedure
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/colli/{sscc}/ricevi",
        tags: ["Avvisi di spedizione"],
        summary: "Riceve un collo intero (SSCC) in una sola operazione",
        description:
          "Ogni riga del collo diventa un arrivo come in POST /arrivi (il DDT è l'operazione), meno quanto `differenze` dichiara " +
          "(`mancante`, `danneggiato`, `errato`, `eccedente`) e meno quanto la riga d'ordine non può più prendere (registrato come differenza " +
          "`eccedente`, mai ricevuto). Una riga rifiutata per un motivo suo è elencata con il codice; le altre si ricevono. " +
          "`esito` `non_ricevuta`: nulla da ricevere (tutto dichiarato o eccedente). 404 `collo_non_trovato`; 409 `collo_gia_ricevuto`.",
        protect: true,
      },
    })
    .input(syncParse(receivePalletInput))
    .output(syncParse(receivePalletOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { path: `/colli/${input.sscc}/ricevi`, input }, async (tx) => ({
        status: 200,
        body: await receivePallet(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  cancel: writeProcedure
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/colli/{sscc}/annulla",
        tags: ["Avvisi di spedizione"],
        summary: "Annulla il ricevimento di un collo: tutti i suoi arrivi, tutto o niente",
        description:
          "Annulla ogni arrivo del collo come POST /arrivi/{id}/annulla e le sue differenze; il collo torna `atteso` e si può ricevere di nuovo. " +
          "409 `collo_non_ricevuto` se non risulta ricevuto; i codici dell'annullamento di un arrivo (`lotto_consumato`, ...) rifiutano tutto.",
        protect: true,
      },
    })
    .input(syncParse(cancelPalletInput))
    .output(syncParse(cancelPalletOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { path: `/colli/${input.sscc}/annulla`, input }, async (tx) => ({
        status: 200,
        body: await cancelPallet(tx, ctx.actor, input.sscc, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  // The receiving screen's pallet (tRPC only): the rows of a scanned SSCC, null when no notice announces it.
  pallet: readProcedure
    .input(syncParse(palletInput))
    .output(syncParse(palletOutput.nullable()))
    .query(({ ctx, input }) => palletOf(ctx.db, input.sscc)),

  // The manager's screen (tRPC only): fill rate per supplier over a period.
  fillRates: readProcedure
    .use(requireRole("responsabile"))
    .input(syncParse(fillRateInput))
    .output(syncParse(fillRateOutput))
    .query(({ ctx, input }) => fillRates(ctx.db, input)),

  differences: readProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/differenze-ricevimento",
        tags: ["Avvisi di spedizione"],
        summary: "Differenze al ricevimento (mancante, danneggiato, eccedente, errato)",
        description:
          "Paginate per id come ogni lista. Filtri: `fornitore` (id), `motivo`, `da`, `a` (data del ricevimento). " +
          "`annullata`: il ricevimento del suo collo è stato annullato.",
        protect: true,
      },
    })
    .input(syncParse(listDifferencesInput))
    .output(syncParse(listDifferencesOutput))
    .query(({ ctx, input }) => listDifferences(ctx.db, input)),

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
      idempotentWrite(ctx, { path: "/resi-fornitore", input }, async (tx) => ({
        status: 200,
        body: await returnToSupplier(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),
});
