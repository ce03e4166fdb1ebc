import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { toClientOutput } from "../clients/clients.service";
import { toArticleOutput, toNamedOutput, toPurchaseOrderOutput } from "../feeds/feeds.service";
import { cutPage, syncBound } from "../lists/lists";
import type { MovementRow } from "../movements/movements.queries";
import { toMovementOutput } from "../movements/movements.service";
import { salesDocumentsByIds } from "../sales/sales.service";
import * as q from "./events.queries";
import type { EventOutput, ListEventsInput } from "./events.schemas";

/**
 * Events (API.md section 10). They are written by the database itself, in the transaction of the change
 * they tell about (migration 20261125000000_eventi: triggers on movimenti and on the versioned tables), so
 * an event exists if and only if its change committed, whatever path wrote it. Here they are read: pulled
 * by GET /eventi, complete under concurrent writers like every list (the id gate, tag 9), and rendered
 * for the webhook deliveries. A stored event keeps rows as the lists read them, and is rendered by the
 * lists' own mappers: a movement or an order looks the same in an event as in its list.
 */

type Stored = Record<string, unknown>;

/** The contract's events from stored ones; the sales documents named by documento_vendita.emesso are read in one query. */
export async function renderEvents(db: Db, events: q.EventRow[], timeZone: string): Promise<EventOutput[]> {
  const movementsOf = (e: q.EventRow) => (e.dati.movimenti ?? []) as MovementRow[];
  const documentOf = (e: q.EventRow) => movementsOf(e).find((m) => m.riferimento_tipo === "documento_vendita")?.riferimento_id ?? null;
  const docIds = events.filter((e) => e.tipo === "documento_vendita.emesso").flatMap((e) => documentOf(e) ?? []);
  const documents = new Map((await salesDocumentsByIds(db, [...new Set(docIds)])).map((d) => [d.id, d]));

  const dati = (e: q.EventRow): Stored => {
    const d = e.dati;
    switch (e.tipo) {
      case "ordine_acquisto.modificato":
        return toPurchaseOrderOutput(d as unknown as Parameters<typeof toPurchaseOrderOutput>[0]);
      case "articolo.modificato":
        return toArticleOutput(d as unknown as Parameters<typeof toArticleOutput>[0]);
      case "fornitore.modificato":
        return toNamedOutput(d as unknown as Parameters<typeof toNamedOutput>[0]);
      case "cliente.modificato":
        return toClientOutput({ ...(d as unknown as Parameters<typeof toClientOutput>[0]), creato_il: d.creato_ms as number }, timeZone);
      default: {
        const movimenti = movementsOf(e).map((m) => toMovementOutput(m, timeZone));
        const base: Stored = { operazione: d.operazione, movimenti };
        if (e.tipo === "arrivo.registrato") return { operazione: d.operazione, ddt: d.ddt, fornitore: d.fornitore, movimenti };
        if (e.tipo === "documento_vendita.emesso") return { ...base, documento: documents.get(documentOf(e) ?? 0) ?? null };
        return base;
      }
    }
  };
  return events.map((e) => ({ id: e.uid, sequenza: e.id, tipo: e.tipo, creato_il: formatInstant(timeZone, e.creato_ms), dati: dati(e) }));
}

/** GET /eventi: events in sequence order, of the types asked, complete under concurrent writers (API.md section 4). */
export async function listEvents(db: Db, input: ListEventsInput, timeZone: string) {
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const bound = await syncBound(db, "eventi");
  const window = await rows(db, q.eventsPage(dopo, input.tipo ?? null, limite + 1));
  const page = cutPage(window, limite, bound, dopo);
  return { eventi: await renderEvents(db, page.rows, timeZone), altri: page.altri, cursore: page.cursore };
}
