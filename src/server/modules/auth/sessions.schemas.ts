import { z } from "zod";
import { instantString, typeError } from "../../lib/zod";
import { ROLES } from "./actor";

export const signInInput = z.strictObject({
  username: z
    .string({ error: typeError("deve essere una stringa") })
    .trim()
    .min(1, "indicare il nome utente")
    .max(64, "al massimo 64 caratteri"),
  password: z
    .string({ error: typeError("deve essere una stringa") })
    .min(1, "indicare la password")
    .max(256, "al massimo 256 caratteri"),
});

export const sessionUserOutput = z.object({ id: z.number().int(), username: z.string(), ruolo: z.enum(ROLES) });

export const sessionOutput = z.object({
  utente: sessionUserOutput,
  /** Echoed by the UI in the x-csrf-token header of every mutation. */
  csrf: z.string(),
  scade_il: instantString(),
});
