import { z } from "zod";
import { idNumber, instantString, typeError } from "../../lib/zod";
import { ROLES } from "../auth/actor";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../auth/passwords";

const role = () => z.enum(ROLES, { error: "deve essere 'operatore', 'responsabile' o 'amministratore'" });

export const usernameInput = () =>
  z
    .string({ error: typeError("deve essere una stringa") })
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9][a-z0-9._-]{2,63}$/,
      "da 3 a 64 caratteri tra lettere, cifre, punto, trattino e trattino basso; inizia con una lettera o una cifra",
    );

const password = () =>
  z
    .string({ error: typeError("deve essere una stringa") })
    .min(MIN_PASSWORD_LENGTH, `almeno ${MIN_PASSWORD_LENGTH} caratteri`)
    .max(MAX_PASSWORD_LENGTH, `al massimo ${MAX_PASSWORD_LENGTH} caratteri`);

export const createUserInput = z.strictObject({ username: usernameInput(), password: password(), ruolo: role() });
export type CreateUserInput = z.infer<typeof createUserInput>;

export const updateUserInput = z
  .strictObject({
    id: idNumber(),
    ruolo: role().optional(),
    attivo: z
      .boolean({ error: typeError("deve essere true o false") })
      .transform((b) => b)
      .optional(),
  })
  .refine((u) => u.ruolo !== undefined || u.attivo !== undefined, { message: "indicare 'ruolo' o 'attivo'", path: ["ruolo"] });
export type UpdateUserInput = z.infer<typeof updateUserInput>;

export const setPasswordInput = z.strictObject({ id: idNumber(), password: password() });
export type SetPasswordInput = z.infer<typeof setPasswordInput>;

export const userOutput = z.object({
  id: z.number().int(),
  username: z.string(),
  ruolo: role(),
  attivo: z.boolean(),
  creato_il: instantString(),
});
export type UserOutput = z.infer<typeof userOutput>;

export const listUsersOutput = z.object({ utenti: z.array(userOutput) });
