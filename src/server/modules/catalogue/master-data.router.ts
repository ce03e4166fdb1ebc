import { businessDate } from "../../lib/dates";
import { syncParse } from "../../lib/zod";
import { requireRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { upsertLocationRows } from "../locations/locations-upsert.service";
import { upsertLocationsInput } from "../locations/locations.schemas";
import { upsertArticleRows, upsertSupplierRows } from "./master-data-upsert.service";
import { upsertWarehouseRows } from "./warehouses-upsert.service";
import { upsertOutput } from "../../lib/upsert-rows";
import { upsertArticlesInput, upsertSuppliersInput, upsertWarehousesInput } from "./master-data.schemas";

/** POST /articoli, /fornitori, /magazzini: master-data upserts by code (docs/api.md section 9). */

const DESCRIPTION =
  "Upsert per `codice`, fino a 500 righe: un codice nuovo crea, uno noto aggiorna i campi inviati (un campo assente resta com'è, `null` cancella un campo facoltativo). " +
  "Esiti per riga (`creato`, `aggiornato`, `invariato`, `rifiutato`): una riga rifiutata non blocca le altre e per lei non si scrive nulla; lo stesso invio ripetuto risponde `invariato` e non scrive nulla. " +
  "Codici di rifiuto per riga: `codice_non_valido`, `codice_ripetuto`, `campo_non_valido` (il messaggio nomina il campo)";

// Master data is a manager's business on the screens; API keys answer to their `scrittura` scope.
const upsert = writeProcedure.use(requireRole("responsabile"));

export const masterDataRouter = router({
  upsertArticles: upsert
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/articoli",
        tags: ["Anagrafiche"],
        summary: "Crea o aggiorna articoli e varianti per codice",
        description: `${DESCRIPTION}, \`ean_in_uso\`, \`gestione_lotti_bloccata\`, \`modello_non_trovato\`. Una variante indica in \`modello\` il codice del suo modello.`,
        protect: true,
      },
    })
    .input(syncParse(upsertArticlesInput))
    .output(syncParse(upsertOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertArticleRows(tx, input.articoli),
      })),
    ),

  upsertSuppliers: upsert
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/fornitori",
        tags: ["Anagrafiche"],
        summary: "Crea o aggiorna fornitori per codice",
        description: `${DESCRIPTION}.`,
        protect: true,
      },
    })
    .input(syncParse(upsertSuppliersInput))
    .output(syncParse(upsertOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertSupplierRows(tx, input.fornitori),
      })),
    ),

  upsertWarehouses: upsert
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/magazzini",
        tags: ["Anagrafiche"],
        summary: "Crea o aggiorna magazzini per codice",
        description:
          `${DESCRIPTION}, \`ubicazione_non_trovata\` (\`ubicazione_ricevimento\` che non è un'ubicazione attiva del magazzino), ` +
          "`ubicazione_ricevimento_mancante` (gestire le ubicazioni senza un'ubicazione di ricevimento), `giacenza_negativa` (attivarle " +
          "con una giacenza sotto zero), `ubicazioni_in_uso` (disattivarle con merce in più di un'ubicazione). Attivare " +
          "`gestione_ubicazioni` scrive un'operazione (`correzione`, \"Attivazione ubicazioni\") che porta la giacenza nell'ubicazione di ricevimento.",
        protect: true,
      },
    })
    .input(syncParse(upsertWarehousesInput))
    .output(syncParse(upsertOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertWarehouseRows(tx, ctx.actor, input.magazzini, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  upsertLocations: upsert
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/ubicazioni",
        tags: ["Anagrafiche"],
        summary: "Crea o aggiorna ubicazioni per magazzino e codice",
        description:
          "Upsert per (`magazzino`, `codice`), fino a 500 righe, con gli esiti per riga degli altri upsert (docs/api.md section 9 e 11). " +
          "Codici di rifiuto per riga: `codice_non_valido` (anche un codice che si leggerebbe come altro: un EAN, un SSCC, un codice GS1, " +
          "`R` seguito da cifre), `codice_ripetuto` (stessa coppia magazzino e codice due volte), `campo_non_valido`, `magazzino_non_trovato`, " +
          "`ubicazione_non_vuota` (disattivare un'ubicazione che contiene merce, o l'ubicazione di ricevimento del magazzino).",
        protect: true,
      },
    })
    .input(syncParse(upsertLocationsInput))
    .output(syncParse(upsertOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await upsertLocationRows(tx, input.ubicazioni, { oggi: businessDate(ctx.config.SERVICE_TIME_ZONE) }),
      })),
    ),
});
