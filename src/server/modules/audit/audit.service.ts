import type { Db } from "../../db/client";
import { first, rows } from "../../db/sql";
import * as q from "./audit.queries";
import type { Azione, ListAuditInput, ListAuditOutput } from "./audit.schemas";

/**
 * The administrative log: users created, roles changed, users deactivated or reactivated, passwords
 * reset, API keys created and revoked, the demo removed. Append-only (a trigger refuses UPDATE and
 * DELETE); each entry keeps who (a user, a key, or the command line), when, what, and on what, by id
 * and by name. Written with the action, on the same database handle (in its transaction where it has one).
 */

/**
 * Who acted: a signed-in user or a key (an auth Actor is one), or the command line (the CLI has no actor).
 * Only what the log records of them, so that the log, which auth's key administration writes, imports no auth.
 */
export type AuditAuthor =
  | { kind: "utente"; id: number; username: string }
  | { kind: "chiave"; id: number; nome: string }
  | "riga_di_comando";

export async function recordAdminAction(
  db: Db,
  by: AuditAuthor,
  azione: Azione,
  oggetto: { tipo: "utente" | "chiave" | "demo" | "webhook" | "stampante"; id: number | null; nome: string },
  dettagli: string | null = null,
): Promise<void> {
  const author =
    by === "riga_di_comando"
      ? { autore_tipo: "riga_di_comando" as const, autore_id: null, autore_nome: "riga di comando" }
      : by.kind === "utente"
        ? { autore_tipo: "utente" as const, autore_id: by.id, autore_nome: by.username }
        : { autore_tipo: "chiave" as const, autore_id: by.id, autore_nome: by.nome };
  await first(
    db,
    q.insertEntry({ ...author, azione, oggetto_tipo: oggetto.tipo, oggetto_id: oggetto.id, oggetto: oggetto.nome, dettagli }),
  );
}

/** The administrator's screen: newest first, a page at a time (`prima`: the next page's bound, null at the end). */
export async function listAdminActions(db: Db, input: ListAuditInput): Promise<ListAuditOutput> {
  const limite = input?.limite ?? 50;
  const page = await rows(db, q.entriesPage(input?.prima ?? null, limite + 1));
  const voci = page.slice(0, limite).map((r) => ({
    id: r.id,
    creato_il: r.creato_il.toISOString(),
    autore: { tipo: r.autore_tipo, id: r.autore_id, nome: r.autore_nome },
    azione: r.azione,
    oggetto: { tipo: r.oggetto_tipo, id: r.oggetto_id, nome: r.oggetto },
    dettagli: r.dettagli,
  }));
  return { voci, prima: page.length > limite ? voci[voci.length - 1]!.id : null };
}
