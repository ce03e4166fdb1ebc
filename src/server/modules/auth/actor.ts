import { DomainError } from "../../lib/errors";

/** Who is calling: an API key (REST) or a signed-in user (UI). Both reach procedures as ctx.actor. */
/** `webhook`: the key manages its own webhook endpoints by REST (with `lettura`); never implied by the others. */
export type Scope = "lettura" | "scrittura" | "webhook";
export type Role = "operatore" | "responsabile" | "amministratore";

export type Actor =
  | { kind: "chiave"; id: number; nome: string; permessi: Scope[] }
  | { kind: "utente"; id: number; username: string; ruolo: Role };

export function hasScope(actor: Actor, scope: Scope): boolean {
  if (actor.kind === "chiave") return actor.permessi.includes(scope);
  // Every role reads and writes the ledger; finer role rules live in the procedures that need them.
  return true;
}

/** The idempotency records of one caller never meet another's. */
export function idempotencyScope(actor: Actor): string {
  return actor.kind === "chiave" ? `k${actor.id}` : `u${actor.id}`;
}

/** Who wrote a movement or an operation. */
/** Who wrote an operation, a movement or a receipt: one of the two columns is set. */
export interface AuthorColumns {
  chiave_api_id: number | null;
  utente_id: number | null;
}

export function authorColumns(actor: Actor): AuthorColumns {
  return actor.kind === "chiave" ? { chiave_api_id: actor.id, utente_id: null } : { chiave_api_id: null, utente_id: actor.id };
}

export const ROLES: readonly Role[] = ["operatore", "responsabile", "amministratore"];

/** Each role can do everything the roles before it can. */
const RANK: Record<Role, number> = { operatore: 1, responsabile: 2, amministratore: 3 };

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** API keys are governed by their scopes only: a role is a signed-in user's. */
export function hasRole(actor: Actor, role: Role): boolean {
  return actor.kind === "chiave" || RANK[actor.ruolo] >= RANK[role];
}

export const ROLE_LABEL: Record<Role, string> = {
  operatore: "operatore",
  responsabile: "responsabile di magazzino",
  amministratore: "amministratore",
};

/** The refusal of a signed-in user whose role is below what an action needs. */
export function roleRefusal(actor: Actor, role: Role, what = "Questa funzione"): DomainError {
  const current = actor.kind === "utente" ? ROLE_LABEL[actor.ruolo] : "chiave API";
  return new DomainError(
    "permesso_negato",
    `${what} è riservata al ruolo ${ROLE_LABEL[role]}${role === "amministratore" ? "" : " o superiore"}: il tuo ruolo è ${current}.`,
  );
}

/** Throws unless the actor has at least `role` (API keys answer to their scopes only). */
export function assertRole(actor: Actor, role: Role, what?: string): void {
  if (!hasRole(actor, role)) throw roleRefusal(actor, role, what);
}
