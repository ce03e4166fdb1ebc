import type { ModelDb, Prisma, PrismaClient } from "../../db/client";
import { execute } from "../../db/sql";
import { inPrismaTransaction } from "../../db/transaction";
import { isUniqueViolation } from "../../db/pg-errors";
import { DomainError } from "../../lib/errors";
import { recordAdminAction, type AuditAuthor } from "../audit/audit.service";
import type { Actor, Role } from "../auth/actor";
import { hashPassword, passwordProblem } from "../auth/passwords";
import * as q from "./users.queries";
import type { CreateUserInput, SetPasswordInput, UpdateUserInput, UserOutput } from "./users.schemas";

/**
 * Users of the operator UI. Passwords are hashed with argon2id; deactivating a user or changing their
 * password ends their sessions at once. The last active administrator can be neither demoted nor
 * deactivated: nobody could manage users afterwards except from the command line.
 */

const userSelect = { id: true, username: true, ruolo: true, attivo: true, creato_il: true } as const;

function toOutput(u: { id: number; username: string; ruolo: string; attivo: boolean; creato_il: Date }): UserOutput {
  return { id: u.id, username: u.username, ruolo: u.ruolo as Role, attivo: u.attivo, creato_il: u.creato_il.toISOString() };
}

/** The password policy (passwords.ts) on every path that sets one: creation, reset, the CLI, the demo. */
async function assertAcceptablePassword(password: string, username: string): Promise<void> {
  const problem = await passwordProblem(password, username);
  if (problem) throw new DomainError("richiesta_non_valida", `Campo 'password': ${problem}.`, { campo: "password" });
}

export async function listUsers(db: ModelDb): Promise<UserOutput[]> {
  const users = await db.utente.findMany({ orderBy: { username: "asc" }, select: userSelect });
  return users.map(toOutput);
}

/** `by`: who creates it, for the administrative log (the screens and the CLI; none for seeding). */
export async function createUser(db: ModelDb, input: CreateUserInput, by?: AuditAuthor): Promise<UserOutput> {
  await assertAcceptablePassword(input.password, input.username);
  const password_hash = await hashPassword(input.password);
  try {
    const user = await db.utente.create({ data: { username: input.username, password_hash, ruolo: input.ruolo }, select: userSelect });
    if (by) await recordAdminAction(db, by, "utente.creato", { tipo: "utente", id: user.id, nome: user.username }, `ruolo ${user.ruolo}`);
    return toOutput(user);
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new DomainError("utente_esistente", `Esiste già un utente '${input.username}': scegliere un altro nome.`, {
        campo: "username",
      });
    }
    throw e;
  }
}

/** Changes a user's role or state, in a transaction of its own: the lock of the last-administrator check is held to commit. */
export function updateUser(db: PrismaClient, actor: Actor, input: UpdateUserInput): Promise<UserOutput> {
  return inPrismaTransaction(db, (tx) => updateUserInTransaction(tx, actor, input));
}

export async function updateUserInTransaction(tx: Prisma.TransactionClient, actor: Actor, input: UpdateUserInput): Promise<UserOutput> {
  await execute(tx, q.lockUsers());
  const user = await tx.utente.findUnique({ where: { id: input.id }, select: userSelect });
  if (!user) throw new DomainError("non_trovato", `L'utente ${input.id} non esiste.`);
  if (input.attivo === false && actor.kind === "utente" && actor.id === user.id) {
    throw new DomainError("richiesta_non_valida", "Non puoi disattivare il tuo stesso utente.", { campo: "attivo" });
  }
  const staysAdmin = (input.ruolo ?? user.ruolo) === "amministratore" && (input.attivo ?? user.attivo);
  if (user.ruolo === "amministratore" && user.attivo && !staysAdmin) {
    const others = await tx.utente.count({ where: { ruolo: "amministratore", attivo: true, id: { not: user.id } } });
    if (others === 0) {
      throw new DomainError("ultimo_amministratore", `'${user.username}' è l'ultimo amministratore attivo: nominarne un altro prima.`);
    }
  }
  const updated = await tx.utente.update({
    where: { id: user.id },
    data: { ...(input.ruolo !== undefined && { ruolo: input.ruolo }), ...(input.attivo !== undefined && { attivo: input.attivo }) },
    select: userSelect,
  });
  if (input.attivo === false) await tx.sessione.deleteMany({ where: { utente_id: user.id } });
  const target = { tipo: "utente" as const, id: user.id, nome: user.username };
  if (updated.ruolo !== user.ruolo) await recordAdminAction(tx, actor, "utente.ruolo", target, `da ${user.ruolo} a ${updated.ruolo}`);
  if (updated.attivo !== user.attivo)
    await recordAdminAction(tx, actor, updated.attivo ? "utente.riattivato" : "utente.disattivato", target);
  return toOutput(updated);
}

export async function setUserPassword(db: ModelDb, input: SetPasswordInput, by?: AuditAuthor): Promise<UserOutput> {
  const user = await db.utente.findUnique({ where: { id: input.id }, select: { id: true, username: true } });
  if (!user) throw new DomainError("non_trovato", `L'utente ${input.id} non esiste.`);
  await assertAcceptablePassword(input.password, user.username);
  const password_hash = await hashPassword(input.password);
  const updated = await db.utente.update({ where: { id: input.id }, data: { password_hash }, select: userSelect });
  // A reset password is usually a compromised or forgotten one: whoever holds a session leaves too.
  await db.sessione.deleteMany({ where: { utente_id: input.id } });
  if (by) await recordAdminAction(db, by, "utente.password", { tipo: "utente", id: user.id, nome: user.username });
  return toOutput(updated);
}

/** The lock of the users' own writes (the last-administrator check), for a transaction that removes users. */
export async function lockUsers(tx: Prisma.TransactionClient): Promise<void> {
  await execute(tx, q.lockUsers());
}
