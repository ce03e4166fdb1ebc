import { createHash } from "node:crypto";
import { syncParse } from "../../lib/zod";
import type { Context } from "../../trpc/context";
import { readProcedure, requireRole, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { listDifferences } from "./differences.service";
import { cancelPallet } from "./pallet-cancel.service";
import { palletOf } from "./pallet-scan.service";
import { receivePallet } from "./pallets.service";
import {
  addDifferencePhotoInput,
  addPhotoInput,
  differencePhotoInput,
  differencePhotoOutput,
  photoAddedOutput,
  photoFileOutput,
  photoInput,
} from "./photos.schemas";
import { addPhoto, fromBase64, photoOf } from "./photos.service";
import {
  cancelPalletInput,
  cancelPalletOutput,
  listDifferencesInput,
  listDifferencesOutput,
  palletInput,
  palletOutput,
  receivePalletInput,
  receivePalletOutput,
} from "./receiving.schemas";

/**
 * The receiving room's procedures of docs/api.md section 12 (a pallet's receipt, cancel and scan; receiving
 * differences and their photos). They are keys of the notices' router (`notices.receive`, `notices.addPhoto`, …),
 * which the UI and the OpenAPI document name so: notices.router.ts spreads them in.
 */

/** A photo goes out as the response's body (rest-handler writes `binary`, as for labels); the JSON output stays empty. */
function answerWithPhoto(ctx: Context, id: number, n: number, photo: { tipo: string; dati: Uint8Array }): Record<string, never> {
  ctx.response.binary = photo.dati;
  ctx.response.headers["Content-Type"] = photo.tipo;
  ctx.response.headers["Content-Disposition"] =
    `inline; filename="differenza-${id}-foto-${n}.${photo.tipo === "image/png" ? "png" : "jpg"}"`;
  ctx.response.headers["Cache-Control"] = "private, max-age=3600";
  return {};
}

/** The request an Idempotency-Key compares: the image by its SHA-256, not its megabytes of base64. */
const photoRequest = (id: number, tipo: string, bytes: Uint8Array) => ({
  id,
  tipo,
  sha256: createHash("sha256").update(bytes).digest("hex"),
});

/** POST /colli/{sscc}/ricevi and /annulla, and the receiving screen's pallet. */
export const palletProcedures = {
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
          "`esito` `non_ricevuta`: nulla da ricevere (tutto dichiarato o eccedente). 422 `sscc_non_valido` (non è un SSCC); 404 `collo_non_trovato` (SSCC in nessun avviso); 409 `collo_gia_ricevuto`.",
        protect: true,
      },
    })
    .input(syncParse(receivePalletInput))
    .output(syncParse(receivePalletOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
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
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await cancelPallet(tx, ctx.actor, input.sscc, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  // The receiving screen's pallet (tRPC only): the rows of a scanned SSCC, null when no notice announces it.
  pallet: readProcedure
    .input(syncParse(palletInput))
    .output(syncParse(palletOutput.nullable()))
    .query(({ ctx, input }) => palletOf(ctx.db, input.sscc, { timeZone: ctx.config.SERVICE_TIME_ZONE })),
};

/** GET /differenze-ricevimento. */
export const differenceProcedures = {
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
};

/** A receiving difference's photos, by REST and on the screens. */
export const photoProcedures = {
  addPhoto: writeProcedure
    .meta({
      binaryBody: "image",
      idempotent: true,
      successStatuses: [201],
      openapi: {
        method: "POST",
        path: "/differenze-ricevimento/{id}/foto",
        tags: ["Avvisi di spedizione"],
        summary: "Aggiunge una foto a una differenza di ricevimento (corpo: l'immagine JPEG o PNG)",
        description:
          "Il corpo è l'immagine stessa, con `Content-Type: image/jpeg` o `image/png` (altri tipi: 415 `tipo_contenuto_non_supportato`), " +
          "fino a 5 MB (oltre: 413 `richiesta_troppo_grande`); un contenuto che non è l'immagine dichiarata è 422 `foto_non_valida`. " +
          "Al massimo 5 foto per differenza (422 `troppe_foto`); differenza sconosciuta: 404 `non_trovato`. Risponde 201 con il numero " +
          "della foto (1..5) e il percorso da cui leggerla.",
        protect: true,
      },
    })
    .input(syncParse(addPhotoInput))
    .output(syncParse(photoAddedOutput))
    .mutation(({ ctx, input }) => {
      const bytes = fromBase64(input.dati);
      return idempotentWrite(ctx, { input: photoRequest(input.id, input.tipo, bytes) }, async (tx) => ({
        status: 201,
        body: await addPhoto(tx, input.id, input.tipo, bytes),
      }));
    }),

  // The receiving screen (tRPC only): a photo taken on the device, in base64, for a difference its receipt recorded.
  addDifferencePhoto: writeProcedure
    .meta({ idempotencyPath: "/differenze-ricevimento/{id}/foto" })
    .input(syncParse(addDifferencePhotoInput))
    .output(syncParse(photoAddedOutput))
    .mutation(({ ctx, input }) => {
      const bytes = fromBase64(input.dati);
      return idempotentWrite(ctx, { input: photoRequest(input.differenza, input.tipo, bytes) }, async (tx) => ({
        status: 201,
        body: await addPhoto(tx, input.differenza, input.tipo, bytes),
      }));
    }),

  photo: readProcedure
    .use(requireRole("responsabile"))
    .meta({
      binary: "image",
      openapi: {
        method: "GET",
        path: "/differenze-ricevimento/{id}/foto/{n}",
        tags: ["Avvisi di spedizione"],
        summary: "Una foto di una differenza di ricevimento: l'immagine, con il suo Content-Type",
        description:
          "`n` da 1 nell'ordine di invio (il `foto` della lista dice quante sono). 404 `non_trovato`: differenza o foto sconosciuta.",
        protect: true,
      },
    })
    .input(syncParse(photoInput))
    .output(photoFileOutput)
    .query(async ({ ctx, input }) => answerWithPhoto(ctx, input.id, input.n, await photoOf(ctx.db, input.id, input.n))),

  // The managers' screen (tRPC only): a photo in base64, shown as a data URL.
  differencePhoto: readProcedure
    .use(requireRole("responsabile"))
    .input(syncParse(differencePhotoInput))
    .output(syncParse(differencePhotoOutput))
    .query(async ({ ctx, input }) => {
      const photo = await photoOf(ctx.db, input.differenza, input.n);
      return { tipo: photo.tipo, dati: Buffer.from(photo.dati).toString("base64") };
    }),
};
