import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import { boundAndRows, cutPage } from "../lists/lists";
import * as q from "./availability.queries";
import type { AvailabilityRow } from "./availability.queries";
import type { AvailabilityRowOutput, ListAvailabilityInput } from "./availability.schemas";

/**
 * GET /disponibilita: one row per stocked article (templates are never stocked; their variants are
 * listed one by one), zero stock included, paged by article id like every list.
 *
 * One statement computes the page: the page's articles first, then balances and open order rows
 * joined to those articles, so the cost follows the page size, not the catalogue. Stock comes from
 * the maintained balances (`giacenze`); only `a` sums the ledger, because a past day has no balance.
 * With `a`, `in_arrivo` is also that day's: what the orders dated up to it still expected at its end, from
 * the ledger's arrivals (availability.queries.ts `expected`), so a snapshot of a past day does not mix its
 * stock with today's expectations (goods that arrived since would be in neither).
 * The breakdown lists every warehouse (zero included), by id, with and without `a`: a client reads the
 * same shape whatever the article's history, and the breakdown always adds up to `giacenza`.
 * Quantities leave the database already canonical: `trim_scale(numeric)::text` is the contract's form
 * (no exponent, no trailing zeros, "0"), and it spares parsing thousands of decimals per page in JS
 * (with `canonical` that parsing was the largest cost of the service itself).
 */
export async function listAvailability(db: Db, input: ListAvailabilityInput, opts: { oggi?: string } = {}) {
  if (input.articolo !== undefined && input.codice !== undefined) {
    throw new DomainError("filtro_non_valido", "I parametri 'articolo' e 'codice' non si combinano: indicarne uno.", { campo: "codice" });
  }
  const limite = input.limite ?? 500;
  const dopo = input.dopo ?? 0;
  const magazzino = input.magazzino ?? null;
  const [bound, found] = await boundAndRows(
    db,
    "articoli",
    q.availabilityPage(dopo, limite + 1, magazzino, input, opts.oggi),
    { campo: "dopo", valore: dopo },
    (rows) => {
      if (rows[0] && !rows[0].magazzino_trovato) {
        throw new DomainError("magazzino_non_trovato", `Il magazzino ${magazzino} non esiste.`, { campo: "magazzino" });
      }
    },
  );
  const one = input.articolo !== undefined || input.codice !== undefined;
  if (one && !found.some((r) => r.id !== null) && (await rows(db, q.articleExists(input))).length === 0) {
    throw new DomainError("non_trovato", `L'articolo ${input.articolo ?? `'${input.codice}'`} non esiste.`, {
      campo: input.articolo !== undefined ? "articolo" : "codice",
    });
  }
  const page = cutPage(
    found.filter((r): r is AvailabilityRow & { id: number } => r.id !== null),
    limite,
    bound,
    dopo,
  );
  return {
    disponibilita: page.rows.map((r) => toAvailabilityOutput(r, magazzino === null)),
    altri: page.altri,
    cursore: page.cursore,
  };
}

/** A page row as the contract shows it (also bench/bare-server.ts's, the ceiling's). */
export function toAvailabilityOutput(r: AvailabilityRow & { id: number }, withBreakdown: boolean): AvailabilityRowOutput {
  const out: AvailabilityRowOutput = {
    articolo: { id: r.id, codice: r.codice, descrizione: r.descrizione },
    giacenza: r.giacenza,
    in_arrivo: r.in_arrivo,
  };
  // Only where a warehouse of the row manages locations (docs/api.md section 11): elsewhere the row is unchanged.
  if (r.in_quarantena !== null) out.in_quarantena = r.in_quarantena;
  // Today only (docs/api.md section 14): with `a` the query leaves them null.
  if (r.disponibile !== null) {
    out.prenotata = r.prenotata ?? "0";
    out.scaduta = r.scaduta ?? "0";
    out.disponibile = r.disponibile;
  }
  // json_agg over no warehouse at all is NULL, not an empty array.
  if (withBreakdown) out.magazzini = r.magazzini ?? [];
  return out;
}
