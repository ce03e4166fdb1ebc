import type { Db, Tx } from "../../db/client";
import { rows } from "../../db/sql";
import { businessDate } from "../../lib/dates";
import { type Actor, authorColumns } from "../auth/actor";
import { assertPeriod, boundAndRows, cutPage } from "../lists/lists";
import * as q from "./differences.queries";
import { type DifferenceOutput, type ListDifferencesInput, MAX_DIFFERENCE_PAGE, type MotivoDifferenza } from "./receiving.schemas";

/**
 * Receiving differences (docs/api.md section 12): written by a pallet's receipt (pallets.service.ts), each with
 * its event `ricevimento.differenza` (a trigger on the table), read here by GET /differenze-ricevimento
 * (paged by id behind the gate of tag 13, complete as every list) and by the events' rendering.
 */

export const toDifferenceOutput = (r: q.DifferenceRow): DifferenceOutput => ({
  id: r.id,
  data: r.data,
  fornitore: { id: r.fornitore_id, codice: r.fornitore_codice },
  avviso: r.avviso_id === null ? null : { id: r.avviso_id, numero: r.avviso_numero ?? "" },
  sscc: r.sscc,
  riga: r.riga,
  articolo: { id: r.articolo_id, codice: r.articolo_codice },
  attesa: r.attesa,
  ricevuta: r.ricevuta,
  quantita: r.quantita,
  motivo: r.motivo as MotivoDifferenza,
  nota: r.nota,
  annullata: r.annullata,
  autore:
    r.chiave_api_id !== null
      ? { tipo: "chiave", id: r.chiave_api_id, nome: r.autore_nome ?? "" }
      : r.utente_id !== null
        ? { tipo: "utente", id: r.utente_id, nome: r.autore_nome ?? "" }
        : null,
  foto: r.foto,
});

/** Differences by id, as the list shows them (the events of `ricevimento.differenza`). */
export async function differencesByIds(db: Db, ids: number[]): Promise<DifferenceOutput[]> {
  if (ids.length === 0) return [];
  return (await rows(db, q.differencesByIds(ids))).map(toDifferenceOutput);
}

export async function listDifferences(db: Db, input: ListDifferencesInput) {
  assertPeriod(input.da, input.a);
  const limite = input.limite ?? MAX_DIFFERENCE_PAGE;
  const dopo = input.dopo ?? 0;
  const [bound, window] = await boundAndRows(db, "differenze_ricevimento", q.differencesPage(dopo, limite + 1, input), {
    campo: "dopo",
    valore: dopo,
  });
  const page = cutPage(window, limite, bound, dopo);
  return { differenze: page.rows.map(toDifferenceOutput), altri: page.altri, cursore: page.cursore };
}

/** Differences declared beside arrivals of POST /arrivi (no pallet): recorded in the arrival's transaction; their ids in order. */
export async function recordArrivalDifferences(
  tx: Tx,
  actor: Actor,
  items: {
    fornitore: number;
    riga: number;
    articolo: number;
    attesa: string;
    ricevuta: string;
    quantita: string;
    motivo: MotivoDifferenza;
    nota: string | null;
  }[],
  opts: { timeZone: string },
): Promise<number[]> {
  if (items.length === 0) return [];
  const data = businessDate(opts.timeZone);
  const inserted = await rows(
    tx,
    q.insertDifferences(
      items.map((d) => ({ ...d, data, avviso: null, collo: null, ricevimento: null, sscc: null })),
      authorColumns(actor),
    ),
  );
  return inserted.map((r) => r.id);
}
