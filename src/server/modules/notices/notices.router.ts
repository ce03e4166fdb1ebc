import { syncParse } from "../../lib/zod";
import { readProcedure, requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { differenceProcedures, palletProcedures, photoProcedures } from "../arrivals/receiving.router";
import { returnProcedures } from "../returns/returns.router";
import { fillRates } from "./fill-rate.service";
import { upsertNotices } from "./notices-upsert.service";
import {
  fillRateInput,
  fillRateOutput,
  listNoticesInput,
  listNoticesOutput,
  upsertNoticesInput,
  upsertNoticesOutput,
} from "./notices.schemas";
import { listNotices } from "./notices.service";

/**
 * Shipping notices, pallets and receiving differences (docs/api.md section 12), as one router: the UI and the
 * OpenAPI document know them as `notices.*`. The notices and their fill rate are this module's; the pallets,
 * differences and photos are the receiving room's (arrivals/receiving.router.ts), returns to the supplier
 * returns' (returns/returns.router.ts), spread in here in the document's order.
 */
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
    .mutation(({ ctx, input }) => idempotentWrite(ctx, { input }, async (tx) => ({ status: 200, body: await upsertNotices(tx, input) }))),

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

  ...palletProcedures,

  // The managers' screen reads the same procedure (without `fornitore`).
  fillRates: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      openapi: {
        method: "GET",
        path: "/differenze-ricevimento/tasso-riempimento",
        tags: ["Avvisi di spedizione"],
        summary: "Tasso di riempimento per fornitore: ricevuto su annunciato negli avvisi di un periodo, con le differenze per motivo",
        description:
          "Sugli avvisi con data prevista (o, senza, data di creazione) tra `da` e `a` inclusi: `annunciata` è quanto dicono i loro colli, " +
          "`ricevuta` quanto hanno portato i ricevimenti non annullati, `tasso` il rapporto (4 decimali; null se nulla è annunciato), " +
          "`differenze` le quantità delle differenze non annullate per motivo. Un fornitore senza avvisi nel periodo non compare. " +
          "Filtro `fornitore` (id). `da` dopo `a`: `filtro_non_valido`.",
        protect: true,
      },
    })
    .input(syncParse(fillRateInput))
    .output(syncParse(fillRateOutput))
    .query(({ ctx, input }) => fillRates(ctx.db, input)),

  ...differenceProcedures,

  ...returnProcedures,

  ...photoProcedures,
});
