import { syncParse } from "../../lib/zod";
import type { Context } from "../../trpc/context";
import { readProcedure, router } from "../../trpc/init";
import { labelFileOutput, locationLabelInput, lotLabelInput, palletLabelInput, rowLabelsInput } from "./labels.schemas";
import { drawLabels, type LabelFile, renderLabels } from "./labels.service";

/** The file goes out as the response's body (rest-handler writes `binary`); the JSON output stays empty. */
function answerWith(ctx: Context, file: LabelFile): Record<string, never> {
  ctx.response.binary = file.bytes;
  ctx.response.headers["Content-Type"] = file.contentType;
  ctx.response.headers["Content-Disposition"] = `inline; filename="${file.filename}"`;
  ctx.response.headers["Cache-Control"] = "no-store";
  if (file.avviso) ctx.response.headers["X-Avviso"] = file.avviso;
  return {};
}

const TAGS = ["Etichette"];

export const labelsRouter = router({
  lot: readProcedure
    .meta({
      binary: true,
      openapi: { method: "GET", path: "/etichette/lotto", tags: TAGS, summary: "Etichetta GS1-128 di un lotto", protect: true },
    })
    .input(syncParse(lotLabelInput))
    .output(labelFileOutput)
    .query(async ({ ctx, input }) => {
      const { formato, dimensione, copie, ...spec } = input;
      return answerWith(ctx, await renderLabels(await drawLabels(ctx.db, { tipo: "lotto", ...spec }), { formato, dimensione, copie }));
    }),
  pallet: readProcedure
    .meta({
      binary: true,
      openapi: {
        method: "GET",
        path: "/etichette/collo/{sscc}",
        tags: TAGS,
        summary: "Etichetta logistica GS1 di un collo (SSCC)",
        protect: true,
      },
    })
    .input(syncParse(palletLabelInput))
    .output(labelFileOutput)
    .query(async ({ ctx, input }) => {
      const { formato, dimensione, copie, sscc } = input;
      return answerWith(ctx, await renderLabels(await drawLabels(ctx.db, { tipo: "collo", sscc }), { formato, dimensione, copie }));
    }),
  location: readProcedure
    .meta({
      binary: true,
      openapi: {
        method: "GET",
        path: "/etichette/ubicazione",
        tags: TAGS,
        summary: "Etichette di una ubicazione o di un intervallo",
        protect: true,
      },
    })
    .input(syncParse(locationLabelInput))
    .output(labelFileOutput)
    .query(async ({ ctx, input }) => {
      const { formato, dimensione, copie, ...spec } = input;
      return answerWith(ctx, await renderLabels(await drawLabels(ctx.db, { tipo: "ubicazione", ...spec }), { formato, dimensione, copie }));
    }),
  orderRows: readProcedure
    .meta({
      binary: true,
      openapi: {
        method: "GET",
        path: "/ordini-acquisto/{id}/etichette",
        tags: TAGS,
        summary: "Etichette R<riga> di un ordine",
        protect: true,
      },
    })
    .input(syncParse(rowLabelsInput))
    .output(labelFileOutput)
    .query(async ({ ctx, input }) => {
      const { formato, dimensione, copie, id } = input;
      return answerWith(ctx, await renderLabels(await drawLabels(ctx.db, { tipo: "riga", ordine: id }), { formato, dimensione, copie }));
    }),
});
