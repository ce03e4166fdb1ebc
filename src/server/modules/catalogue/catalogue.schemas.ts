import { z } from "zod";
import { idNumber, shortText } from "../../lib/zod";

/** Reference data the operator screens choose from (tRPC only: REST clients receive ids from `import`). */
export const warehouseOutput = z.object({ id: z.number().int(), codice: z.string(), nome: z.string() });
export const listWarehousesOutput = z.object({ magazzini: z.array(warehouseOutput) });

export const supplierOutput = z.object({ id: z.number().int(), codice: z.string(), nome: z.string(), ordini_aperti: z.number().int() });
export const listSuppliersOutput = z.object({ fornitori: z.array(supplierOutput) });

export const searchArticlesInput = z.strictObject({
  cerca: shortText(64).meta({ description: "Codice, EAN o parte della descrizione" }),
  limite: idNumber().pipe(z.number().max(50, "al massimo 50")).optional(),
});
export type SearchArticlesInput = z.infer<typeof searchArticlesInput>;

export const articleOutput = z.object({
  id: z.number().int(),
  codice: z.string(),
  ean: z.string().nullable(),
  descrizione: z.string(),
  gestione_lotti: z.boolean(),
  ha_varianti: z.boolean(),
});
export const searchArticlesOutput = z.object({ articoli: z.array(articleOutput) });

export const MAX_LOOKUPS = 10_000;

/** What an operator typed or scanned for an article, several at once (an inventory count file). */
export const resolveArticlesInput = z.strictObject({
  letture: z
    .array(shortText(200), { error: "deve essere un elenco di codici" })
    .min(1, "indicare almeno un codice")
    .max(MAX_LOOKUPS, `al massimo ${MAX_LOOKUPS} codici`),
});
export type ResolveArticlesInput = z.infer<typeof resolveArticlesInput>;

export const resolveArticlesOutput = z.object({
  articoli: z.array(
    z.object({
      lettura: z.string(),
      articolo: z.object({ id: z.number().int(), codice: z.string(), gestione_lotti: z.boolean(), ha_varianti: z.boolean() }).nullable(),
    }),
  ),
});
export type ResolveArticlesOutput = z.infer<typeof resolveArticlesOutput>;
