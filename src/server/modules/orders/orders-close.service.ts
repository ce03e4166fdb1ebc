import type { Tx } from "../../db/client";
import { execute, first, rows } from "../../db/sql";
import { canonical, Decimal } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import { recomputeOrders } from "../arrivals/order-rows.service";
import type { CloseOrderInput, CloseOrderOutput } from "./orders.schemas";
import * as q from "./purchase-orders.queries";

/**
 * POST /ordini-acquisto/{id}/chiudi (docs/api.md section 9): closes short what remains open on the rows named
 * (by `numero_riga`) or on every row. The closed quantity (`chiusa`) and the reason are kept on the row;
 * it is no longer expected: out of `in_arrivo`, no longer answering a scan, never received (arrivals
 * check ordinata - arrivata - chiusa). The order becomes `evaso` when nothing remains open.
 *
 * Idempotent by nature: a row with nothing left open (closed, or received in full) is `invariato`, and
 * a call that closes nothing writes nothing. A cancelled arrival on a row closed short gives its
 * quantity back to what is expected (the row reopens by that much): close it again if it is not coming.
 *
 * Locks: the order's rows by id (lock order 1), then the order (lock order 4, recomputeOrders: the
 * UPDATE takes the new version), as arrivals do, so a closing and an arrival on one row queue.
 */
export async function closePurchaseOrder(tx: Tx, input: CloseOrderInput): Promise<CloseOrderOutput> {
  const order = await first(tx, q.orderById(input.id));
  if (!order) throw new DomainError("non_trovato", `L'ordine d'acquisto ${input.id} non esiste.`);
  const locked = await rows(tx, q.lockRowsOfOrders([order.id]));
  const byNumber = new Map(locked.map((r) => [r.numero_riga, r]));
  const named = input.righe === undefined ? [...locked].sort((a, b) => a.numero_riga - b.numero_riga) : [];
  for (const [i, n] of (input.righe ?? []).entries()) {
    const r = byNumber.get(n);
    if (!r) {
      const known = [...byNumber.keys()].sort((a, b) => a - b).join(", ");
      throw new DomainError(
        "riga_non_trovata",
        `L'ordine ${order.numero} non ha la riga numero ${n} (righe[${i}]): le sue righe sono ${known}.`,
        {
          campo: `righe[${i}]`,
        },
      );
    }
    if (!named.includes(r)) named.push(r);
  }
  const open = (r: Pick<q.LockedOrderRow, "ordinata" | "arrivata" | "chiusa">) => new Decimal(r.ordinata).minus(r.arrivata).minus(r.chiusa);
  const closing = named.filter((r) => open(r).gt(0));
  let stato = order.stato;
  if (closing.length > 0) {
    await execute(
      tx,
      q.closeRows(
        closing.map((r) => r.id),
        input.motivo ?? null,
      ),
    );
    stato = (await recomputeOrders(tx, [order.id])).get(order.id)!;
  }
  const closed = new Set(closing.map((r) => r.id));
  return {
    ordine: { id: order.id, numero: order.numero, stato },
    chiusi: closing.length,
    invariati: named.length - closing.length,
    righe: named.map((r) => {
      const now = closed.has(r.id) ? new Decimal(r.ordinata).minus(r.arrivata) : new Decimal(r.chiusa);
      return {
        numero_riga: r.numero_riga,
        riga: r.id,
        esito: closed.has(r.id) ? ("chiuso" as const) : ("invariato" as const),
        ordinata: canonical(r.ordinata),
        arrivata: canonical(r.arrivata),
        chiusa: canonical(now),
        residua: canonical(new Decimal(r.ordinata).minus(r.arrivata).minus(now)),
        motivo: closed.has(r.id) ? (input.motivo ?? r.motivo_chiusura) : r.motivo_chiusura,
      };
    }),
  };
}
