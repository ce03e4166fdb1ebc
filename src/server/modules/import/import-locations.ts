import type { Tx } from "../../db/client";
import { businessDate } from "../../lib/dates";
import type { Actor } from "../auth/actor";
import type { Located, ParsedFile, Problems } from "./import-parse";
import type { WarehouseInput } from "../catalogue/import.schemas";
import { upsertLocationRows } from "../locations/locations-upsert.service";
import { MAX_LOCATION_ROWS } from "../locations/locations.schemas";
import { loadWarehousesByCode } from "../catalogue/master-data.service";
import { resolveSettings, type WarehouseWrite, writeWarehouses } from "../catalogue/warehouses-upsert.service";

/**
 * The import's locations (docs/api.md sections 6 and 11), after its warehouses are written: the file's `ubicazioni`
 * through the writer of POST /ubicazioni, then the warehouses' `ubicazione_ricevimento` and
 * `gestione_ubicazioni` through that of POST /magazzini, so a warehouse new in the file can name a receiving
 * location new in the file. What those writers refuse is a problem of the file, at its path (as the orders' are):
 * the caller fails the import and nothing is written.
 */
export async function writeImportLocations(
  tx: Tx,
  file: Pick<ParsedFile, "magazzini" | "ubicazioni">,
  opts: { actor: Actor | null; timeZone: string },
): Promise<Problems> {
  const problems: Problems = [];
  for (let start = 0; start < file.ubicazioni.length; start += MAX_LOCATION_ROWS) {
    const chunk = file.ubicazioni.slice(start, start + MAX_LOCATION_ROWS);
    const out = await upsertLocationRows(
      tx,
      chunk.map((l) => ({ ...l.value })),
      { oggi: businessDate(opts.timeZone) },
    );
    for (const r of out.righe) if (r.errore) problems.push({ campo: chunk[r.indice]!.at, messaggio: withoutRow(r.errore.messaggio) });
  }
  if (problems.length > 0) return problems;

  const asking = file.magazzini.filter((m) => m.value.gestione_ubicazioni !== undefined || m.value.ubicazione_ricevimento !== undefined);
  if (asking.length === 0) return problems;
  const known = await loadWarehousesByCode(
    tx,
    asking.map((m) => m.value.codice),
  );
  const settings = await resolveSettings(
    tx,
    asking.map((m, indice) => ({ indice, value: m.value })),
    known,
  );
  const writes: (WarehouseWrite & { item: Located<WarehouseInput> })[] = [];
  asking.forEach((m, indice) => {
    const s = settings.get(indice);
    if (s instanceof Error) problems.push({ campo: m.at, messaggio: s.message });
    else writes.push({ item: m, row: { codice: m.value.codice, nome: m.value.nome, attivo: m.value.attivo }, settings: s });
  });
  if (problems.length > 0) return problems;
  const { refused } = await writeWarehouses(tx, opts.actor, writes, known, opts);
  for (const w of writes) {
    const e = refused.get(w.row.codice);
    if (e) problems.push({ campo: w.item.at, messaggio: e.message });
  }
  return problems;
}

/** A row's refusal without the "Riga N (…): " of a REST answer: the file's path says where. */
const withoutRow = (messaggio: string) => messaggio.replace(/^Riga \d+ \([^)]*\): /, "");
