import type { Db, Prisma, Tx } from "../../db/client";
import { changes, hasKeys } from "../../lib/changes";
import { businessDate, dateFromIso } from "../../lib/dates";
import type { ClientInput } from "../catalogue/import.schemas";
import { clientFields } from "./clients.service";

/**
 * Writing clients, upserted by code (the master data import calls it after checking its file): a new
 * code creates the client, dated the business day of its creation; a known one gets the fields that
 * differ. A field the row leaves out keeps its value, `null` clears it.
 */

export type KnownClient = Prisma.ClienteGetPayload<{ select: typeof clientFields }>;

export async function loadClientsByCode(db: Db, codes: string[]): Promise<Map<string, KnownClient>> {
  const found = await db.cliente.findMany({
    where: { codice: { in: codes } },
    select: clientFields,
  });
  return new Map(found.map((c) => [c.codice, c]));
}

export async function upsertClients(
  tx: Tx,
  clients: ClientInput[],
  known: Map<string, KnownClient>,
  opts: { timeZone: string },
): Promise<Record<string, number>> {
  const today = businessDate(opts.timeZone);
  const ids: Record<string, number> = {};
  const fresh: ClientInput[] = [];
  for (const value of clients) {
    const db = known.get(value.codice);
    if (!db) fresh.push(value);
    else {
      ids[value.codice] = db.id;
      const diff = changes(db, value);
      if (hasKeys(diff)) await tx.cliente.update({ where: { id: db.id }, data: diff, select: { id: true } });
    }
  }
  // One statement: the sync gate on clienti is taken once for the whole batch.
  if (fresh.length > 0) {
    const created = await tx.cliente.createManyAndReturn({
      data: fresh.map((c) => ({ ...c, data: dateFromIso(today) })),
      select: { id: true, codice: true },
    });
    for (const c of created) ids[c.codice] = c.id;
  }
  return ids;
}
