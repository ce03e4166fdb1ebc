import type { Db, Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { changes, hasKeys } from "../../lib/changes";
import { businessDate } from "../../lib/dates";
import { RowError } from "../../lib/errors";
import type { ClientInput } from "../catalogue/import.schemas";
import { lockMasterData } from "../catalogue/master-data.service";
import { UpsertRows, type UpsertOutput, type Written } from "../../lib/upsert-rows";
import { clientRowCheck } from "./clients-upsert.schemas";
import * as q from "./clients.queries";
import { CLIENT_TEXT_FIELDS, type ClientColumns, type KnownClient } from "./clients.queries";

export type { KnownClient } from "./clients.queries";

/**
 * Writing clients, upserted by code: POST /clienti row by row, and the master data import after
 * checking its file, through the one writer below. A new code creates the client, dated the business day
 * of its creation; a known one gets the fields that differ. A field the row leaves out keeps its value,
 * `null` clears it. Set-based: one INSERT and one UPDATE of the rows that differ per call.
 */

export async function loadClientsByCode(db: Db, codes: string[]): Promise<Map<string, KnownClient>> {
  return new Map((await rows(db, q.clientsByCode(codes))).map((c) => [c.codice, c]));
}

/** A client to write: `ragione_sociale` known (from the row or the database), the other fields optional. */
type ClientRow = Omit<ClientInput, "ragione_sociale"> & { ragione_sociale: string };

export async function writeClients(
  tx: Tx,
  clients: ClientRow[],
  known: Map<string, KnownClient>,
  opts: { timeZone: string },
): Promise<Written> {
  const out: Written = new Map();
  const fresh: { codice: string; row: Omit<KnownClient, "id" | "codice"> }[] = [];
  const changed: { id: number; row: Omit<KnownClient, "id" | "codice"> }[] = [];
  for (const value of clients) {
    const db = known.get(value.codice);
    const row = {} as Record<string, unknown>;
    for (const f of CLIENT_TEXT_FIELDS) row[f] = value[f] !== undefined ? value[f] : (db?.[f] ?? (f === "nazione" ? "IT" : null));
    row.attivo = value.attivo ?? db?.attivo ?? true;
    const target = row as Omit<KnownClient, "id" | "codice">;
    if (!db) fresh.push({ codice: value.codice, row: target });
    else if (hasKeys(changes(db, target))) {
      changed.push({ id: db.id, row: target });
      out.set(value.codice, { id: db.id, esito: "aggiornato" });
    } else out.set(value.codice, { id: db.id, esito: "invariato" });
  }
  if (changed.length > 0)
    await execute(
      tx,
      q.updateClients(
        changed.map((c) => c.id),
        columns(changed.map((c) => c.row)),
      ),
    );
  if (fresh.length > 0) {
    const created = await rows(
      tx,
      q.insertClients(
        fresh.map((f) => f.codice),
        columns(fresh.map((f) => f.row)),
        businessDate(opts.timeZone),
      ),
    );
    for (const c of created) out.set(c.codice, { id: c.id, esito: "creato" });
  }
  return out;
}

function columns(batch: Omit<KnownClient, "id" | "codice">[]): ClientColumns {
  const c = { attivo: batch.map((r) => r.attivo) } as ClientColumns;
  for (const f of CLIENT_TEXT_FIELDS) c[f] = batch.map((r) => r[f]);
  return c;
}

/** The import's writer: code → id of every client of the file. */
export async function upsertClients(
  tx: Tx,
  clients: ClientInput[],
  known: Map<string, KnownClient>,
  opts: { timeZone: string },
): Promise<Record<string, number>> {
  const written = await writeClients(tx, clients, known, opts);
  return Object.fromEntries([...written].map(([codice, w]) => [codice, w.id]));
}

/** POST /clienti: `ragione_sociale` is required for a new code; `nazione` cannot be cleared (it defaults to IT). */
export async function upsertClientRows(tx: Tx, input: Record<string, unknown>[], opts: { timeZone: string }): Promise<UpsertOutput> {
  const batch = new UpsertRows(input, clientRowCheck, "clienti");
  await lockMasterData(tx, "clienti");
  const known = await loadClientsByCode(tx, batch.codes);
  const ready: ClientRow[] = [];
  for (const { indice, value } of batch.accepted) {
    const db = known.get(value.codice);
    const ragione = value.ragione_sociale ?? db?.ragione_sociale;
    if (ragione === undefined) {
      batch.refuse(
        indice,
        value.codice,
        null,
        new RowError("campo_non_valido", `Riga ${indice} ('${value.codice}'): campo 'ragione_sociale' obbligatorio per un cliente nuovo.`),
      );
      continue;
    }
    ready.push({ ...value, nazione: value.nazione ?? undefined, ragione_sociale: ragione });
  }
  return batch.answer(await writeClients(tx, ready, known, opts), (c) => known.get(c)?.id);
}
