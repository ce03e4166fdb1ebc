import type { Db, Prisma } from "../../db/client";
import { rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { cursors, feedPage } from "../feeds/feeds.service";
import { assertPeriod } from "../lists/lists";
import * as q from "./clients.queries";
import type { ClientOutput, ListClientsInput } from "./clients.schemas";

}

/** Clients a picker offers: by code, name or VAT number, up to 20; without text, the first 20 by name. */
export async function searchClients(db: Db, cerca: string) {
  return rows(db, q.searchClients(cerca));
}
