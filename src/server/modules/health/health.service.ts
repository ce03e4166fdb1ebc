import { getDb, type Db } from "../../db/client";
import { rows } from "../../db/sql";
import * as q from "./health.queries";

export type DatabaseStatus = { ok: true } | { ok: false; error: unknown };

/**
 * Whether the database answers, for the health check and the sign-in page. Never throws: a missing
 * client (getDb without DATABASE_URL) or an unreachable server is an answer, with its error.
 */
export async function databaseStatus(db: () => Db = getDb): Promise<DatabaseStatus> {
  try {
    await rows(db(), q.ping());
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}
