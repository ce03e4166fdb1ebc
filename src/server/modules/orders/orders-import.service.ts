import type { Db, Tx } from "../../db/client";
import { rows } from "../../db/sql";
import { dateFromIso, formatDate } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import type { OrderInput, OrderRowInput } from "../catalogue/import.schemas";
import * as q from "./purchase-orders.queries";

/**
 * Purchase orders from the master data import: identified by supplier and number (two suppliers may
 * use the same number), written with their rows, never changed once they exist (their rows may have
 * arrivals). The import checks its whole file first.
 */

/** The key of an order in the maps below: its supplier's code and its number. */
export const orderKey = (fornitore: string, numero: string) => `${fornitore}\u0000${numero}`;

/** A purchase order as the import compares it with its file: codes instead of ids, canonical decimals. */
export interface KnownPurchaseOrder {
  id: number;
  fornitore: string;
  magazzino: string;
  data: string;
  righe: { articolo: string; ordinata: string; prezzo: string }[];
}

/** An order to import, its rows in position order. */
type PurchaseOrderInput = Omit<OrderInput, "righe"> & { righe: OrderRowInput[] };

/** The id of each code an order names: its supplier, its warehouse, the articles of its rows. */
interface OrderReferences {
  fornitore: (codice: string) => number;
  magazzino: (codice: string) => number;
  articolo: (codice: string) => number;
}

/** The orders the database holds of these (supplier code, number) pairs, by orderKey. */
export async function loadPurchaseOrdersByKey(
  db: Db,
  keys: { fornitore: string; numero: string }[],
): Promise<Map<string, KnownPurchaseOrder>> {
  // Flat queries: Prisma loads nested relations concurrently, which a transaction's one connection queues.
  const ordini = await rows(
    db,
    q.purchaseOrdersByKey(
      keys.map((k) => k.fornitore),
      keys.map((k) => k.numero),
    ),
  );
  const righe = await rows(db, q.purchaseOrderRows(ordini.map((o) => o.id)));
  const rowsOf = new Map<number, KnownPurchaseOrder["righe"]>();
  for (const r of righe) {
    rowsOf.set(r.ordine_id, [
      ...(rowsOf.get(r.ordine_id) ?? []),
      { articolo: r.articolo, ordinata: canonical(r.ordinata), prezzo: canonical(r.prezzo) },
    ]);
  }
  return new Map(
    ordini.map((o) => [
      orderKey(o.fornitore, o.numero),
      {
        id: o.id,
        fornitore: o.fornitore,
        magazzino: o.magazzino,
        data: formatDate(o.data),
        righe: rowsOf.get(o.id) ?? [],
      },
    ]),
  );
}

/**
 * Creates the orders whose key (orderKey) `known` does not hold, with their rows; a known order is left
 * as it is. Returns number → id of every order given (numbers are unique within a file), the known ones first.
 */
export async function importPurchaseOrders(
  tx: Tx,
  orders: PurchaseOrderInput[],
  known: Map<string, KnownPurchaseOrder>,
  refs: OrderReferences,
): Promise<Record<string, number>> {
  const ordini: Record<string, number> = {};
  const newOrders = orders.filter((o) => !known.has(orderKey(o.fornitore, o.numero)));
  for (const o of orders) {
    const existing = known.get(orderKey(o.fornitore, o.numero));
    if (existing) ordini[o.numero] = existing.id;
  }
  if (newOrders.length > 0) {
    const created = await tx.ordineAcquisto.createManyAndReturn({
      data: newOrders.map((value) => ({
        numero: value.numero,
        fornitore_id: refs.fornitore(value.fornitore),
        magazzino_id: refs.magazzino(value.magazzino),
        data: dateFromIso(value.data),
      })),
      select: { id: true, numero: true },
    });
    for (const c of created) ordini[c.numero] = c.id;
    await tx.rigaOrdine.createMany({
      data: newOrders.flatMap((o) =>
        o.righe.map((r, i) => ({
          ordine_id: ordini[o.numero]!,
          posizione: i + 1,
          articolo_id: refs.articolo(r.articolo),
          ordinata: r.quantita,
          prezzo: r.prezzo,
        })),
      ),
    });
  }
  return ordini;
}
