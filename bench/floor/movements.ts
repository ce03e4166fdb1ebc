import type pg from "pg";
import { ledgerAppend } from "../../src/server/modules/ledger/ledger.service";
import * as locations from "../../src/server/modules/ledger/location-balances.queries";
import { appendAndUncover, benchKey, inTransaction, run } from "./statements";

/**
 * POST /movimenti, one row without lot (movements.service.ts writeMovements): BEGIN; the ledger's one
 * statement (operation, balance, movement: ledger.service.ts appendToLedger) with the uncovering; COMMIT.
 * Left out (ours): the key's authentication and rate-limit statement, the article lookup by code with
 * the warehouse check (the floor is given the id), Prisma's interactive-transaction round trips.
 */
export async function writeMovement(
  c: pg.ClientBase,
  m: { natura: "carico" | "scarico"; magazzino: number; articolo: number; quantita: string; prezzo: string; data: string; chiave: number },
): Promise<number> {
  return inTransaction(c, async () => {
    const signed = m.natura === "carico" ? m.quantita : `-${m.quantita}`;
    const written = await appendAndUncover(
      c,
      "append_ledger",
      ledgerAppend({ operazione: "nuova", origine: "api", causale: null, data: m.data, actor: benchKey(m.chiave) }, [
        { natura: m.natura, magazzino: m.magazzino, articolo: m.articolo, quantita: signed, prezzo: m.prezzo, lotto: null },
      ]),
      [m],
      m.data,
    );
    return written.rows[0]!.id;
  });
}

/**
 * POST /movimenti, one row without lot in a warehouse that manages locations (movements.service.ts
 * writeMovements): BEGIN; the location's stock (ledger/location-balances.queries.ts loadLocation / unloadLocation, the
 * guarded statement); the ledger's one statement with the movement's location; COMMIT.
 * Left out (ours), as in writeMovement: the key's statement, the article and warehouse lookup (with the
 * warehouse gate), and the location lookup by code (with the location gate of a load): the floor is given ids.
 */
export async function writeMovementInLocation(
  c: pg.ClientBase,
  m: {
    natura: "carico" | "scarico";
    magazzino: number;
    ubicazione: number;
    articolo: number;
    quantita: string;
    prezzo: string;
    data: string;
    chiave: number;
  },
): Promise<number> {
  return inTransaction(c, async () => {
    const stock =
      m.natura === "carico"
        ? await run(c, "location_load", locations.loadLocation(m.articolo, m.magazzino, m.ubicazione, null, m.quantita))
        : await run(c, "location_unload", locations.unloadLocation(m.articolo, m.ubicazione, null, m.quantita));
    if (stock.rowCount !== 1) throw new Error(`ubicazione ${m.ubicazione}: quantità insufficiente`);
    const signed = m.natura === "carico" ? m.quantita : `-${m.quantita}`;
    const written = await appendAndUncover(
      c,
      "append_ledger",
      ledgerAppend({ operazione: "nuova", origine: "api", causale: null, data: m.data, actor: benchKey(m.chiave) }, [
        {
          natura: m.natura,
          magazzino: m.magazzino,
          articolo: m.articolo,
          quantita: signed,
          prezzo: m.prezzo,
          lotto: null,
          ubicazione: m.ubicazione,
        },
      ]),
      [m],
      m.data,
    );
    return written.rows[0]!.id;
  });
}
