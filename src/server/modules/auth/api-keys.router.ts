import { z } from "zod";
import { DomainError } from "../../lib/errors";
import { adminProcedure, router } from "../../trpc/init";
import type { Scope } from "./actor";
import { createdApiKeyOutput, createApiKeyInput, listApiKeysOutput, revokeApiKeyInput } from "./api-keys.schemas";
import { createApiKey, listApiKeys, revokeApiKeyById } from "./api-keys.service";
import { syncParse } from "../../lib/zod";

/** The API keys of integrators, managed by administrators from the UI (the CLI does the same). */
export const apiKeysRouter = router({
  list: adminProcedure.output(syncParse(listApiKeysOutput)).query(async ({ ctx }) => ({
    chiavi: (await listApiKeys(ctx.db)).map((k) => ({
      ...k,
      permessi: k.permessi as Scope[],
      creata_il: k.creata_il.toISOString(),
      revocata_il: k.revocata_il?.toISOString() ?? null,
      ultimo_uso_il: k.ultimo_uso_il?.toISOString() ?? null,
    })),
  })),

  create: adminProcedure
    .input(syncParse(createApiKeyInput))
    .output(syncParse(createdApiKeyOutput))
    .mutation(({ ctx, input }) =>
      createApiKey(
        ctx.db,
        {
          nome: input.nome,
          permessi: input.permessi,
          limiteAlSecondo: input.limite_al_secondo,
          raffica: input.raffica,
        },
        ctx.actor,
      ),
    ),

  revoke: adminProcedure
    .input(syncParse(revokeApiKeyInput))
    .output(syncParse(revokeApiKeyInput.extend({ revocata: z.literal(true) })))
    .mutation(async ({ ctx, input }) => {
      if (!(await revokeApiKeyById(ctx.db, input.id, ctx.actor))) {
        throw new DomainError("non_trovato", `Nessuna chiave attiva con id ${input.id}.`);
      }
      return { id: input.id, revocata: true as const };
    }),
});
