import type { ModelDb } from "../../db/client";
import { rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { assertWarehouses } from "../catalogue/articles";
import * as q from "./arrivals.queries";
import { type ExpectedOutput, MAX_OFFLINE_ROWS } from "./arrivals.schemas";
import { expectedRowFields, orderHeader } from "./search.service";

/**
 * arrivals.expected: a warehouse's open expected rows, the handheld's copy for looking scans up while
 * offline, in the order a scan proposes them (oldest order first), so the copy proposes the same row the
 * service would. `al` is taken before the read: the copy holds at least what was open then.
 * At most MAX_OFFLINE_ROWS rows, the oldest orders' (the ones a scan proposes first); beyond that
 * `completo` is false, and a scan the copy does not find is not "not expected" but unknown offline: the
 * screen must say so and look it up when the network returns.
 */
export async function expectedRowsOf(db: ModelDb, magazzino: number, opts: { timeZone: string }): Promise<ExpectedOutput> {
  const al = formatInstant(opts.timeZone, Date.now());
  const found = await rows(db, q.openRowsOfWarehouse(magazzino, MAX_OFFLINE_ROWS + 1));
  // One statement when the warehouse expects something; only an empty answer asks whether it exists.
  if (found.length === 0) await assertWarehouses(db, { magazzino });
  return {
    magazzino,
    al,
    righe: found.slice(0, MAX_OFFLINE_ROWS).map((r) => ({ ...expectedRowFields(r), ean: r.ean, ordine: orderHeader(r, r.ordine_id) })),
    completo: found.length <= MAX_OFFLINE_ROWS,
  };
}
