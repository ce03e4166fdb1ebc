import { z } from "zod";
import { instantString, shortText, typeError } from "../../lib/zod";

const scope = z.enum(["lettura", "scrittura", "webhook"], { error: "deve essere 'lettura', 'scrittura' o 'webhook'" });

export const createApiKeyInput = z.strictObject({
  nome: shortText(100),
  permessi: z.array(scope).min(1, "almeno un permesso"),
  limite_al_secondo: z
    .number({ error: typeError("deve essere un numero") })
    .transform((n) => n)
    .pipe(z.number().positive("deve essere maggiore di zero").max(1_000_000))
    .optional(),
  raffica: z
    .number({ error: typeError("deve essere un numero intero") })
    .transform((n) => n)
    .pipe(z.number().int().positive().max(10_000_000))
    .optional(),
});

export const createdApiKeyOutput = z.object({
  id: z.number().int(),
  nome: z.string(),
  prefisso: z.string(),
  permessi: z.array(scope),
  /** Shown once: only its SHA-256 is stored. */
  chiave: z.string(),
});

export const apiKeyOutput = z.object({
  id: z.number().int(),
  nome: z.string(),
  prefisso: z.string(),
  permessi: z.array(scope),
  limite_al_secondo: z.number().nullable(),
  raffica: z.number().int().nullable(),
  creata_il: instantString(),
  revocata_il: instantString().nullable(),
  ultimo_uso_il: instantString().nullable(),
});
export const listApiKeysOutput = z.object({ chiavi: z.array(apiKeyOutput) });

export const revokeApiKeyInput = z.strictObject({ id: z.number().int().positive().max(2_147_483_647) });
