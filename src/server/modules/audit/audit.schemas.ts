import { z } from "zod";
import { instantString } from "../../lib/zod";

/** What the administrative log records (the `azione` column). */
export const AZIONI = [
  "utente.creato",
  "utente.ruolo",
  "utente.disattivato",
  "utente.riattivato",
  "utente.password",
  "chiave.creata",
  "chiave.revocata",
  "demo.rimossa",
  "webhook.creato",
  "webhook.disattivato",
  "webhook.riattivato",
  "webhook.riconsegna",
  "webhook.modificato",
  "webhook.eliminato",
  "stampante.aggiunta",
  "stampante.modificata",
  "stampante.disattivata",
  "stampante.riattivata",
] as const;
export type Azione = (typeof AZIONI)[number];

export const listAuditInput = z
  .strictObject({
    prima: z
      .number()
      .int()
      .positive()
      .max(2_147_483_647)
      .optional()
      .meta({ description: "Voci con id minore di questo (pagina successiva)" }),
    limite: z.number().int().min(1).max(200).optional(),
  })
  .optional();
export type ListAuditInput = z.infer<typeof listAuditInput>;

export const auditEntry = z.object({
  id: z.number().int(),
  creato_il: instantString(),
  autore: z.object({ tipo: z.enum(["utente", "chiave", "riga_di_comando"]), id: z.number().int().nullable(), nome: z.string() }),
  azione: z.enum(AZIONI),
  oggetto: z.object({ tipo: z.string(), id: z.number().int().nullable(), nome: z.string() }),
  dettagli: z.string().nullable(),
});

export const listAuditOutput = z.object({ voci: z.array(auditEntry), prima: z.number().int().nullable() });
export type ListAuditOutput = z.infer<typeof listAuditOutput>;
