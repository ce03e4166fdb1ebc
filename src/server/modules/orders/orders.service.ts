import type { ModelDb, Prisma } from "../../db/client";
import { rows } from "../../db/sql";
import { canonical } from "../../lib/decimal";
import { formatDate } from "../../lib/dates";
import { DomainError } from "../../lib/errors";
import { eanCandidates, parseScan } from "../../../lib/barcode";
import type { ListOrdersInput, OrderDetail, PrintableOrder } from "./orders.schemas";
import * as q from "./purchase-orders.queries";

type Stato = PrintableOrder["stato"];

const MAX_ID = 2_147_483_647;

/** What every order screen shows of an order. */
const orderHeader = {
  id: true,
  numero: true,
  data: true,
  stato: true,
  fornitore: { select: { id: true, nome: true } },
  magazzino: { select: { id: true, codice: true } },
} satisfies Prisma.OrdineAcquistoSelect;

type OrderHeaderRow = Prisma.OrdineAcquistoGetPayload<{ select: typeof orderHeader }>;

/** The header as the screens receive it. */
function headerOutput(o: OrderHeaderRow) {
  return { id: o.id, numero: o.numero, data: formatDate(o.data), stato: o.stato as Stato, fornitore: o.fornitore, magazzino: o.magazzino };
}

/**
 * What the orders screen's search finds: the number or the supplier's code or name containing the text,
 * and, when the text reads as a code the dock scans (parseScan, as receiving reads it), the order holding
 * that `R<riga>` row, or the orders with a row of the article of that EAN or GS1 GTIN. The scanned forms
 * add to the text match, so an order numbered `R12` is still found by its number.
 */
function searchCondition(cerca: string): Prisma.OrdineAcquistoWhereInput {
  const text = { contains: cerca, mode: "insensitive" as const };
  const scan = parseScan(cerca);
  const byScan: Prisma.OrdineAcquistoWhereInput[] =
    // A label beyond the id type's range names no row (and would not fit the parameter).
    scan.kind === "etichetta" && scan.riga <= MAX_ID
      ? [{ righe: { some: { id: scan.riga } } }]
      : scan.kind === "ean" || scan.kind === "gs1"
        ? [{ righe: { some: { articolo: { ean: { in: eanCandidates(scan.gtin) } } } } }]
        : [];
  return { OR: [{ numero: text }, { fornitore: { nome: text } }, { fornitore: { codice: text } }, ...byScan] };
}

/** Purchase orders for the operator screens, newest first; open ones only unless asked (or a state is asked). */
export async function listOrders(db: ModelDb, input: ListOrdersInput) {
  const orders = await db.ordineAcquisto.findMany({
    where: {
      ...(input.stato !== undefined ? { stato: input.stato } : input.includi_evasi ? {} : { stato: { not: "evaso" } }),
      ...(input.cerca === undefined ? {} : searchCondition(input.cerca)),
    },
    orderBy: [{ data: "desc" }, { id: "desc" }],
    take: input.limite ?? 50,
    select: {
      ...orderHeader,
      _count: { select: { righe: true } },
    },
  });
  return {
    ordini: orders.map((o) => ({ ...headerOutput(o), righe: o._count.righe })),
  };
}

export async function getPrintableOrder(db: ModelDb, id: number): Promise<PrintableOrder> {
  const o = await db.ordineAcquisto.findUnique({
    where: { id },
    select: {
      ...orderHeader,
      righe: {
        orderBy: { posizione: "asc" },
        select: {
          id: true,
          posizione: true,
          ordinata: true,
          arrivata: true,
          chiusa: true,
          articolo: { select: { id: true, codice: true, ean: true, descrizione: true, unita: true } },
        },
      },
    },
  });
  if (!o) throw new DomainError("non_trovato", `L'ordine ${id} non esiste.`);
  return {
    ...headerOutput(o),
    righe: o.righe.map((r) => ({
      riga: r.id,
      posizione: r.posizione,
      // The label parseScan reads back: R followed by the order row id.
      etichetta: `R${r.id}`,
      articolo: r.articolo,
      ordinata: canonical(r.ordinata),
      arrivata: canonical(r.arrivata),
      residua: canonical(r.ordinata.minus(r.arrivata).minus(r.chiusa)),
    })),
  };
}

/** An arrival on an order row as the order screen lists it: who registered it, and its reversal when cancelled. */
function toRowArrival(m: q.RowArrivalRow): OrderDetail["righe"][number]["arrivi"][number] {
  return {
    movimento: m.id,
    data: m.data,
    quantita: m.quantita,
    lotto: m.lotto,
    autore:
      m.chiave_api_id !== null
        ? { tipo: "chiave", nome: m.autore_nome ?? "" }
        : m.utente_id !== null
          ? { tipo: "utente", nome: m.autore_nome ?? "" }
          : null,
    annullato_da: m.annullato_da,
  };
}

/** The order screen: an order with every row (closed quantity and reason included) and every arrival on each, cancelled ones marked. */
export async function getOrderDetail(db: ModelDb, id: number): Promise<OrderDetail> {
  const o = await db.ordineAcquisto.findUnique({
    where: { id },
    select: {
      ...orderHeader,
      fornitore: { select: { id: true, codice: true, nome: true } },
      righe: {
        orderBy: { posizione: "asc" },
        select: {
          id: true,
          numero_riga: true,
          ordinata: true,
          arrivata: true,
          chiusa: true,
          prezzo: true,
          motivo_chiusura: true,
          articolo: { select: { id: true, codice: true, descrizione: true, unita: true } },
        },
      },
    },
  });
  if (!o) throw new DomainError("non_trovato", `L'ordine ${id} non esiste.`);
  const arrivals = o.righe.length === 0 ? [] : await rows(db, q.rowArrivals(o.righe.map((r) => r.id)));
  return {
    ...headerOutput(o),
    fornitore: o.fornitore,
    righe: o.righe.map((r) => ({
      numero_riga: r.numero_riga,
      riga: r.id,
      etichetta: `R${r.id}`,
      articolo: r.articolo,
      ordinata: canonical(r.ordinata),
      arrivata: canonical(r.arrivata),
      chiusa: canonical(r.chiusa),
      residua: canonical(r.ordinata.minus(r.arrivata).minus(r.chiusa)),
      prezzo: canonical(r.prezzo),
      motivo_chiusura: r.motivo_chiusura,
      arrivi: arrivals.filter((m) => m.riga === r.id).map(toRowArrival),
    })),
  };
}
