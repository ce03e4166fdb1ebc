import type { Tx } from "../../db/client";
import { canonical, Decimal } from "../../lib/decimal";
import { RowError } from "../../lib/errors";
import { balanceLockOrder, heldUnderLock } from "./ledger.service";

/**
 * The promise's check (docs/api.md section 14): a write that names no reservation may not leave less free than
 * the reservations hold, where they hold something. Run by the stock writer once every intent holds its lot and
 * location row, before the append: the balances come next in the lock order, and a reservation takes the same
 * balance row before it reads what is free, so the two queue instead of both reading the stock as it was.
 */

type Pair = { articolo: number; magazzino: number };

/** What the check reads of a stock writer's intent (stock-writer.ts StockIntent). */
interface Intent extends Pair {
  codice: string;
  quantita: string;
  da?: { magazzino: number };
}

interface TakeOut extends Pair {
  codice: string;
  taken: Decimal;
  /** The intents that take it out, refused together: without them the pair is as it was. */
  indices: number[];
  /** Some of them consume a reservation's hold: `taken` is what they ask beyond it. */
  beyond: boolean;
}

/**
 * The intents the holds refuse (by index), among those not refused yet. A take-out is an unload, or the source
 * of a move to another warehouse (a move inside one warehouse leaves its stock as it is); the loads of the same
 * write into the pair count for it, a move's arrival does not (its source may be refused). An unload naming a
 * reservation takes out only what its hold does not cover (`consumed`, by intent index). No statement when
 * nothing is taken out; else the balances of every pair written, locked in their order, and what is held.
 */
export async function refusedByHolds(
  tx: Tx,
  intents: Intent[],
  refused: ReadonlyMap<number, unknown>,
  oggi: string,
  consumed: ReadonlyMap<number, string> = new Map(),
) {
  const outs = new Map<string, TakeOut>();
  const loads = new Map<string, Decimal>();
  const written = new Map<string, Pair>();
  const add = (articolo: number, magazzino: number) => written.set(`${articolo}:${magazzino}`, { articolo, magazzino });
  intents.forEach((intent, indice) => {
    if (refused.has(indice)) return;
    add(intent.articolo, intent.magazzino);
    const out = intent.da
      ? intent.da.magazzino === intent.magazzino
        ? null
        : { magazzino: intent.da.magazzino, quantita: intent.quantita }
      : intent.quantita.startsWith("-")
        ? { magazzino: intent.magazzino, quantita: new Decimal(intent.quantita.slice(1)).minus(consumed.get(indice) ?? 0) }
        : null;
    if (intent.da) add(intent.articolo, intent.da.magazzino);
    // An unload within the hold of the reservation it names leaves what is free as it was: stock and hold go
    // down together, so only its part beyond the hold takes from the free stock.
    if (out && !intent.da && new Decimal(out.quantita).lte(0)) return;
    if (!out) {
      if (!intent.da) {
        const key = `${intent.articolo}:${intent.magazzino}`;
        loads.set(key, (loads.get(key) ?? new Decimal(0)).plus(intent.quantita));
      }
      return;
    }
    const key = `${intent.articolo}:${out.magazzino}`;
    const seen = outs.get(key) ?? {
      articolo: intent.articolo,
      magazzino: out.magazzino,
      codice: intent.codice,
      taken: new Decimal(0),
      indices: [],
      beyond: false,
    };
    outs.set(key, {
      ...seen,
      taken: seen.taken.plus(out.quantita),
      indices: [...seen.indices, indice],
      beyond: seen.beyond || consumed.has(indice),
    });
  });
  const refusals = new Map<number, RowError>();
  if (outs.size === 0) return refusals;
  const held = await heldUnderLock(tx, [...written.values()].sort(balanceLockOrder), [...outs.values()], oggi);
  for (const row of held) {
    const key = `${row.articolo_id}:${row.magazzino_id}`;
    const out = outs.get(key)!;
    // The lots and location stock already moved by this write are in `libera`, the balance not yet.
    const free = new Decimal(row.libera).plus(loads.get(key) ?? 0);
    if (out.taken.lte(free)) continue;
    const error = new RowError(
      "quantita_prenotata",
      `L'articolo ${out.codice} nel magazzino ${out.magazzino}: ne sono libere ${canonical(Decimal.max(free, 0))}, ${canonical(row.tenuta)} sono prenotate (richiesti ${canonical(out.taken)}${out.beyond ? " oltre la prenotazione indicata" : ""}).`,
    );
    for (const indice of out.indices) refusals.set(indice, error);
  }
  return refusals;
}
