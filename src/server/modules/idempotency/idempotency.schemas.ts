import { z } from "zod";
import { typeError } from "../../lib/zod";

/** idempotency.settle (tRPC only): the write whose outcome is unknown, as its Idempotency-Key record names it. */
export const settleInput = z.strictObject({
  percorso: z
    .string({ error: typeError("deve essere una stringa") })
    .max(200, "al massimo 200 caratteri")
    .regex(/^\/[A-Za-z0-9/_-]+$/, "deve essere il percorso della scrittura, per esempio /arrivi o /arrivi/12/annulla")
    .meta({ description: "Il percorso della scrittura (come in /api/v1): /arrivi, /arrivi/{id}/annulla, /movimenti…" }),
  chiave: z.string({ error: typeError("deve essere una stringa") }).meta({ description: "La Idempotency-Key della scrittura" }),
});

export const settleOutput = z.discriminatedUnion("esito", [
  z.object({
    esito: z.literal("eseguita"),
    stato: z.number().int().meta({ description: "Lo stato HTTP della risposta salvata: 2xx eseguita, 4xx rifiutata" }),
    corpo: z.unknown().meta({ description: "Il corpo della risposta salvata" }),
  }),
  z.object({ esito: z.literal("abbandonata") }),
]);
export type SettleOutput = z.infer<typeof settleOutput>;
