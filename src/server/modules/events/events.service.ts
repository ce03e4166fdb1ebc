import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { toClientOutput } from "../clients/clients.service";
import { toArticleOutput, toLocationOutput, toNamedOutput, toPurchaseOrderOutput, toWarehouseOutput } from "../feeds/feeds.service";
import { boundAndRows, cutPage } from "../lists/lists";
import { type MovementRow, movementsByIds, toMovementOutput } from "../movements/movements.service";
import { differencesByIds } from "../arrivals/differences.service";
import { salesDocumentsByIds } from "../sales/sales.service";
import { toReservationOutput } from "../reservations/reservations.service";
import * as q from "./events.queries";
import type { EventOutput, ListEventsInput } from "./events.schemas";

/**
 * Events (docs/api.md section 10). They are written in the transaction of the change they tell about, by the
 * one place every such change goes through (the ledger's append of movements; triggers on the versioned
 * tables: migration 20261125000000_eventi), so
 * an event exists if and only if its change committed, whatever path wrote it. Here they are read: pulled
 * by GET /eventi, complete under concurrent writers like every list (the id gate, tag 9), and rendered
 * for the webhook deliveries, by the lists' own mappers: a movement or an order looks the same in an
 * event as in its list.
 */

type Stored = Record<string, unknown>;

const STOCK_TYPES: ReadonlySet<string> = new Set([
  "movimenti.registrati",
  "arrivo.registrato",
  "arrivo.annullato",
  "giacenze.allineate",
  "documento_vendita.emesso",
  "reso_fornitore.registrato",
]);

/**
 * The contract's events from stored ones. A stock event stores its operation and its movements' ids
 * (movements never change: ledger.queries.ts appendLedger records it); they are read here in one query
 * for the whole page, as are the delivery notes of arrivals and the sales documents. A *.modificato
 * event stores its row as it was at commit, in the shape its list reads it.
 */
export async function renderEvents(db: Db, events: q.EventRow[], timeZone: string): Promise<EventOutput[]> {
  const stock = events.filter((e) => STOCK_TYPES.has(e.tipo));
  const ids = stock.flatMap((e) => e.dati.movimenti as number[]);
  const movements = new Map((await movementsByIds(db, ids)).map((m) => [m.id, m]));
  const arrivalOps = stock.filter((e) => e.tipo === "arrivo.registrato").map((e) => e.dati.operazione as number);
  const notes = new Map(arrivalOps.length ? (await rows(db, q.deliveryNotes(arrivalOps))).map((o) => [o.id, o]) : []);
  const documentOf = (ms: MovementRow[]) => ms.find((m) => m.riferimento_tipo === "documento_vendita")?.riferimento_id ?? null;
  const docIds = stock.filter((e) => e.tipo === "documento_vendita.emesso").flatMap((e) => documentOf(movementsOf(e)) ?? []);
  const documents = new Map((await salesDocumentsByIds(db, [...new Set(docIds)])).map((d) => [d.id, d]));
  const differenceIds = events.filter((e) => e.tipo === "ricevimento.differenza").map((e) => e.dati.id as number);
  const differences = new Map((await differencesByIds(db, differenceIds)).map((d) => [d.id, d]));

  function movementsOf(e: q.EventRow): MovementRow[] {
    return (e.dati.movimenti as number[]).flatMap((id) => movements.get(id) ?? []);
  }

  const dati = (e: q.EventRow): Stored => {
    const d = e.dati;
    switch (e.tipo) {
      case "ordine_acquisto.modificato":
        return toPurchaseOrderOutput(d as unknown as Parameters<typeof toPurchaseOrderOutput>[0]);
      case "articolo.modificato":
        return toArticleOutput(d as unknown as Parameters<typeof toArticleOutput>[0]);
      case "fornitore.modificato":
        return toNamedOutput(d as unknown as Parameters<typeof toNamedOutput>[0]);
      case "magazzino.modificato":
        return toWarehouseOutput(d as unknown as Parameters<typeof toWarehouseOutput>[0]);
      case "ubicazione.modificato":
        return toLocationOutput(d as unknown as Parameters<typeof toLocationOutput>[0]);
      case "avviso_spedizione.modificato":
        return d;
      case "prenotazione.modificata":
      case "prenotazione.scoperta":
        return toReservationOutput(d as unknown as Parameters<typeof toReservationOutput>[0], timeZone);
      case "ricevimento.differenza":
        return differences.get(d.id as number) ?? d;
      case "cliente.modificato":
        return toClientOutput({ ...(d as unknown as Parameters<typeof toClientOutput>[0]), creato_il: d.creato_ms as number }, timeZone);
      default: {
        const ms = movementsOf(e);
        const movimenti = ms.map((m) => toMovementOutput(m, timeZone));
        if (e.tipo === "arrivo.registrato") {
          const note = notes.get(d.operazione as number);
          return { operazione: d.operazione, ddt: note?.ddt ?? null, fornitore: note?.fornitore_id ?? null, movimenti };
        }
        if (e.tipo === "documento_vendita.emesso")
          return { operazione: d.operazione, documento: documents.get(documentOf(ms) ?? 0) ?? null, movimenti };
        return { operazione: d.operazione, movimenti };
      }
    }
  };
  return events.map((e) => ({ id: e.uid, sequenza: e.id, tipo: e.tipo, creato_il: formatInstant(timeZone, e.creato_ms), dati: dati(e) }));
}

/**
 * The most movements one page of GET /eventi carries. A stock event carries every movement of its call
 * (up to 500: MAX_MOVEMENT_ROWS), so a page of 100 events could carry 50,000 movements, all of their JSON
 * built in the server's memory for one answer: the bound keeps one page's memory small whatever its events.
 */
export const MAX_PAGE_MOVEMENTS = 5_000;

/**
 * A page cut where its events' movements would pass MAX_PAGE_MOVEMENTS: it ends at the event before, with
 * `altri` true and the cursor on its last event, so paging on loses nothing. The first event always stays
 * (one event alone may carry more), so a page is never empty while events follow.
 */
export function withinMovementBudget<T extends Pick<q.EventRow, "id" | "tipo" | "dati">>(page: {
  rows: T[];
  altri: boolean;
  cursore: number;
}) {
  let carried = 0;
  for (const [i, e] of page.rows.entries()) {
    if (STOCK_TYPES.has(e.tipo)) carried += (e.dati.movimenti as number[]).length;
    if (carried > MAX_PAGE_MOVEMENTS && i > 0) return { rows: page.rows.slice(0, i), altri: true, cursore: page.rows[i - 1]!.id };
  }
  return page;
}

/**
 * GET /eventi: events in sequence order, of the types asked, complete under concurrent writers (docs/api.md
 * section 4): `limite` events at most, fewer when their movements pass MAX_PAGE_MOVEMENTS.
 */
export async function listEvents(db: Db, input: ListEventsInput, timeZone: string) {
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const [bound, window] = await boundAndRows(db, "eventi", q.eventsPage(dopo, input.tipo ?? null, limite + 1), {
    campo: "dopo",
    valore: dopo,
  });
  const page = withinMovementBudget(cutPage(window, limite, bound, dopo));
  return { eventi: await renderEvents(db, page.rows, timeZone), altri: page.altri, cursore: page.cursore };
}

/** The contract's events of these stored ids (the webhooks' deliveries name the events they carry). */
export async function renderEventsByIds(db: Db, ids: number[], timeZone: string): Promise<EventOutput[]> {
  return ids.length === 0 ? [] : renderEvents(db, await rows(db, q.eventsByIds(ids)), timeZone);
}
