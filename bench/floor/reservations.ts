import type pg from "pg";
import { Decimal } from "../../src/server/lib/decimal";
import * as catalogue from "../../src/server/modules/catalogue/catalogue.queries";
import * as ledger from "../../src/server/modules/ledger/ledger.queries";
import * as q from "../../src/server/modules/reservations/reservations.queries";
import { inTransaction, run } from "./statements";

export interface ReservationRequest {
  chiave: number;
  riferimento: string;
  magazzino: string;
  cliente: string;
  righe: { codice: string; quantita: number }[];
  oggi: string;
}

/**
 * POST /prenotazioni, one new reservation of rows without lot, `parziale` (reservations-upsert.service.ts
 * upsertReservations): BEGIN; the warehouse, the client and the articles by code; the reference's key lock; the
 * author's reservations of that reference FOR UPDATE (none: it is new); the balances FOR UPDATE in (article,
 * warehouse) order; what is free; the reservation and its rows, each holding what is free up to its quantity;
 * COMMIT. The same statements as the service, in its order: also the ceiling's (bench/bare-server.ts).
 * Left out (ours): the key's statement and the Idempotency-Key.
 */
export async function reserve(c: pg.ClientBase, r: ReservationRequest): Promise<{ id: number; prenotata: string[] }> {
  return inTransaction(c, async () => {
    const magazzino = (await run(c, "res_warehouses", q.warehousesByCode([r.magazzino]))).rows[0];
    const cliente = (await run(c, "res_clients", q.clientsByCode([r.cliente]))).rows[0];
    if (!magazzino || !cliente) throw new Error(`magazzino ${r.magazzino} o cliente ${r.cliente} non trovato`);
    const codici = [...new Set(r.righe.map((x) => x.codice))];
    const found = await run(c, "res_articles", catalogue.articlesAndWarehouses({ codici, eans: [], warehouseIds: [] }, false));
    const ids = new Map(found.rows.filter((a) => a.id !== null).map((a) => [a.codice as string, a.id as number]));
    const rows = r.righe.map((x, i) => {
      const articolo = ids.get(x.codice);
      if (articolo === undefined) throw new Error(`articolo ${x.codice} non trovato`);
      return { numero_riga: i + 1, articolo, quantita: new Decimal(x.quantita) };
    });
    await run(c, "res_keys", q.lockReservationKeys([`chiave:${r.chiave}`], [r.riferimento]));
    const existing = await run(c, "res_existing", q.lockReservationsByReference(r.chiave, null, [r.riferimento]));
    if (existing.rows.length > 0) throw new Error(`la prenotazione ${r.riferimento} esiste già`);
    const pairs = [...new Set(rows.map((x) => x.articolo))].sort((a, b) => a - b);
    await run(
      c,
      "res_lock_balances",
      ledger.lockBalancesForHolds(
        pairs,
        pairs.map(() => magazzino.id),
      ),
    );
    const free = await run(
      c,
      "res_free",
      q.freeToHold(
        pairs,
        pairs.map(() => magazzino.id),
        r.oggi,
      ),
    );
    const pool = new Map(free.rows.map((f) => [f.articolo_id, Decimal.max(new Decimal(f.libera), 0)]));
    const prenotata = rows.map((x) => {
      const take = Decimal.min(pool.get(x.articolo) ?? new Decimal(0), x.quantita);
      pool.set(x.articolo, (pool.get(x.articolo) ?? new Decimal(0)).minus(take));
      return take.toString();
    });
    const created = await run(
      c,
      "res_insert",
      q.insertReservations({
        chiave: r.chiave,
        utente: null,
        riferimento: [r.riferimento],
        magazzino: [magazzino.id],
        cliente: [cliente.id],
        scade_il: [null],
        parziale: [true],
      }),
    );
    const id = created.rows[0]!.id;
    await run(
      c,
      "res_rows",
      q.upsertRows({
        prenotazione: rows.map(() => id),
        numero_riga: rows.map((x) => x.numero_riga),
        articolo: rows.map((x) => x.articolo),
        magazzino: rows.map(() => magazzino.id),
        lotto: rows.map(() => null),
        richiesta: rows.map((x) => x.quantita.toString()),
        prenotata,
        prezzo: rows.map(() => null),
      }),
    );
    return { id, prenotata };
  });
}
