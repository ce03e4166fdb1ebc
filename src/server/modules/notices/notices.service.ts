import type { Db } from "../../db/client";
import { cursors, feedPage } from "../feeds/feeds.service";
import type { ListNoticesInput, NoticeOutput } from "./notices.schemas";
import * as q from "./notices.queries";

/**
 * GET /avvisi-spedizione (docs/api.md section 12): notices paged by id behind their gate (tag 12), or with
 * `modificati_dopo` their change feed by version (a notice's version moves with its rows and with every
 * receipt or cancellation of its pallets). The notice is built by the database function
 * banchina_avviso_json, the same that its event `avviso_spedizione.modificato` records.
 */
export async function listNotices(db: Db, input: ListNoticesInput) {
  const p = await feedPage(db, input, "avvisi_spedizione", (w, take) => q.noticesPage(w, take, input));
  return { avvisi: p.rows.map((r) => r.avviso as NoticeOutput), ...cursors(p) };
}
