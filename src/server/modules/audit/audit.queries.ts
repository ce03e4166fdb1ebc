import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import type { Azione } from "./audit.schemas";

export interface AuditInsert {
  autore_tipo: "utente" | "chiave" | "riga_di_comando";
  autore_id: number | null;
  autore_nome: string;
  azione: Azione;
  oggetto_tipo: string;
  oggetto_id: number | null;
  oggetto: string;
  dettagli: string | null;
}

export const insertEntry = (e: AuditInsert) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO registro_amministrativo (autore_tipo, autore_id, autore_nome, azione, oggetto_tipo, oggetto_id, oggetto, dettagli)
    VALUES (${e.autore_tipo}, ${e.autore_id}::int, ${e.autore_nome}, ${e.azione}, ${e.oggetto_tipo}, ${e.oggetto_id}::int, ${e.oggetto},
            ${e.dettagli})
    RETURNING id`);

export interface AuditRow extends AuditInsert {
  id: number;
  creato_il: Date;
}

/** Newest first: the entries below `prima` (all when null), `take` at most. */
export const entriesPage = (prima: number | null, take: number) =>
  query<AuditRow>(Prisma.sql`
    SELECT id, creato_il, autore_tipo, autore_id, autore_nome, azione, oggetto_tipo, oggetto_id, oggetto, dettagli
      FROM registro_amministrativo
     WHERE ${prima === null ? Prisma.sql`TRUE` : Prisma.sql`id < ${prima}`}
     ORDER BY id DESC
     ${limit(take)}`);
