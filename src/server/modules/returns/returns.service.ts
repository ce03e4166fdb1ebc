import type { Tx } from "../../db/client";
import { rows } from "../../db/sql";
import { businessDate } from "../../lib/dates";
import { canonical, Decimal, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { checkRows } from "../../lib/rows";
import type { Actor } from "../auth/actor";
import { lockOrderRows, moveArrived, recomputeOrdersStatements } from "../arrivals/order-rows.service";
import { type ArticleInfo, loadArticles, resolveArticle } from "../catalogue/articles";
import { type ResolvedLocation, resolveLocations } from "../ledger/location-balances.service";
import { appendStock, takeStock, unloadIntent } from "../ledger/stock-writer";
import * as q from "./returns.queries";
import { MAX_RETURN_ROWS, type ReturnInput, type ReturnOutput, returnRowInput } from "./returns.schemas";

/**
 * POST /resi-fornitore (docs/api.md section 12): goods sent back to a supplier, unloaded in one operation with
 * `origine` `reso_fornitore` (its event, reso_fornitore.registrato, is the ledger append's), with the lot
 * checks of any unload and per-row outcomes as POST /movimenti.
 *
 * With `riga` and `riapri`, the order row's arrived quantity drops by what is returned, so a replacement is
 * expected again; never below zero (`quantita_eccessiva`). The return's movement then points at the row
 * (`riferimento` riga_ordine), which is how `verify` counts it: arrived = arrivals − cancellations − returns
 * that reopened. A later cancellation of an arrival of that row that would take `arrivata` below zero is
 * `arrivo_reso` (cancel.service.ts).
 *
 * Locks, in the ledger's order: the warehouse gate (with the articles), the order rows named (by id), the
 * lots (lotLockOrder), the location stock (a warehouse that manages locations: each row's `ubicazione`, the
 * checks of any unload), the balances (the append), the orders last (their states recomputed).
 *
 * Decision: the contract gives each row a `motivo` but the ledger has one `causale` per operation: the
 * causale names the supplier, the delivery note and the rows' reasons.
 */

interface Planned {
  indice: number;
  article: ArticleInfo;
  quantita: string;
  lotto: string | undefined;
  riga: number | undefined;
  riapri: boolean;
  prezzo: string | null;
  /** Where the goods leave from: null outside warehouses that manage locations. */
  from: ResolvedLocation;
}

export async function returnToSupplier(tx: Tx, actor: Actor, input: ReturnInput, opts: { timeZone: string }): Promise<ReturnOutput> {
  if (input.righe.length > MAX_RETURN_ROWS)
    throw new DomainError("troppe_righe", `Al massimo ${MAX_RETURN_ROWS} righe per chiamata: ricevute ${input.righe.length}.`, {
      campo: "righe",
    });
  const [supplier] = await rows(tx, q.suppliersByCode([input.fornitore]));
  if (!supplier) throw new DomainError("fornitore_non_trovato", `Fornitore '${input.fornitore}' sconosciuto.`, { campo: "fornitore" });
  const checked = checkRows(input.righe, returnRowInput);
  const wellFormed = checked.rows.map((c) => c.row);
  const index = await loadArticles(tx, wellFormed, { warehouses: { magazzino: input.magazzino } });
  // Locations right after the warehouse gate (lock order 1b), before any row lock: the rule of every writer.
  const locations = await resolveLocations(
    tx,
    index.magazzini,
    wellFormed.map((r) => ({ magazzino: input.magazzino, codice: r.ubicazione, entrata: false })),
  );
  // Lock order 1 before any lot: the rows a return may reopen, and the rows it names for their price.
  const named = wellFormed.flatMap((r) => (r.riga === undefined ? [] : [r.riga]));
  const locked = named.length > 0 ? await lockOrderRows(tx, named) : new Map();

  const outcomes: ReturnOutput["righe"] = [];
  for (const [indice, e] of checked.refused) outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
  const planned: Planned[] = [];
  const reopened = new Map<number, Decimal>();
  for (const [i, { indice, row: r }] of checked.rows.entries()) {
    try {
      const article = resolveArticle(index, r);
      const from = locations[i]!;
      if (from instanceof RowError) throw from;
      const quantita = quantityFromNumber(r.quantita);
      if (quantita === null)
        throw new RowError("quantita_non_valida", `Quantità ${r.quantita} non valida: maggiore di zero, al massimo 3 decimali.`);
      if (article.gestione_lotti && r.lotto === undefined)
        throw new RowError("lotto_obbligatorio", `L'articolo ${article.codice} è gestito a lotti: indicare 'lotto'.`);
      if (!article.gestione_lotti && r.lotto !== undefined)
        throw new RowError("lotto_non_previsto", `L'articolo ${article.codice} non è gestito a lotti: togliere 'lotto'.`);
      let prezzo: string | null = null;
      if (r.riga !== undefined) {
        const row = locked.get(r.riga);
        if (!row || row.articolo_id !== article.id)
          throw new RowError("riga_non_trovata", `La riga d'ordine ${r.riga} non esiste o non è dell'articolo ${article.codice}.`);
        if (row.fornitore_id !== supplier.id)
          throw new RowError(
            "fornitore_diverso",
            `La riga R${row.id} è dell'ordine ${row.numero} del fornitore ${row.fornitore_codice}, non di ${input.fornitore}.`,
          );
        if (row.magazzino_id !== input.magazzino)
          throw new RowError("magazzino_diverso", `La riga R${row.id} (ordine ${row.numero}) è del magazzino ${row.magazzino_codice}.`);
        prezzo = canonical(row.prezzo);
        if (r.riapri) {
          // What earlier rows of this call already reopened on the same order row counts too.
          const after = new Decimal(row.arrivata.toString()).minus(reopened.get(row.id) ?? 0).minus(quantita);
          if (after.lt(0))
            throw new RowError(
              "quantita_eccessiva",
              `Reso di ${canonical(quantita)} oltre l'arrivato della riga R${row.id} (${canonical(row.arrivata)}): si riapre al più quanto è arrivato.`,
            );
          reopened.set(row.id, (reopened.get(row.id) ?? new Decimal(0)).plus(quantita));
        }
      }
      planned.push({ indice, article, quantita, lotto: r.lotto, riga: r.riga, riapri: r.riapri === true, prezzo, from });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
    }
  }
  // Lots, then location stock (the stock writer): a refused row leaves both as they were, and reopens nothing.
  const intents = planned.map((p) =>
    unloadIntent(p, input.magazzino, { prezzo: p.prezzo, riferimento: p.riapri ? { tipo: "riga_ordine", id: p.riga! } : undefined }),
  );
  for (const [i, e] of await takeStock(tx, intents, { partial: true, holds: { oggi: businessDate(opts.timeZone) } })) {
    const p = planned[i]!;
    outcomes[p.indice] = { indice: p.indice, esito: "rifiutata", errore: e.toBody() };
    if (p.riapri) reopened.set(p.riga!, reopened.get(p.riga!)!.minus(p.quantita));
  }
  const accepted = planned.filter((p) => !outcomes[p.indice]);
  if (accepted.length === 0) return { operazione: null, scritte: 0, rifiutate: outcomes.length, righe: outcomes };

  const moved = new Map<number, { arrivata: string; residua: string }>();
  for (const [riga, quantita] of [...reopened].sort((a, b) => a[0] - b[0])) {
    if (quantita.gt(0)) moved.set(riga, await moveArrived(tx, riga, `-${canonical(quantita)}`));
  }
  const motivi = [...new Set(wellFormed.map((r) => r.motivo))].join("; ");
  const orders = [...moved.keys()].map((riga) => locked.get(riga)!.ordine_id);
  const { operazione, ids } = await appendStock(
    tx,
    {
      operazione: "nuova",
      origine: "reso_fornitore",
      causale: `Reso al fornitore ${input.fornitore}${input.ddt ? `, DDT ${input.ddt}` : ""}: ${motivi}`.slice(0, 500),
      data: businessDate(opts.timeZone),
      actor,
    },
    intents.filter((_, i) => !outcomes[planned[i]!.indice]),
    { after: recomputeOrdersStatements(orders), last: true },
  );
  accepted.forEach((p, i) => {
    const riga = p.riapri ? moved.get(p.riga!) : undefined;
    outcomes[p.indice] = {
      indice: p.indice,
      esito: "scritta",
      movimento: ids[i]!,
      operazione,
      ...(riga ? { riga: { riga: p.riga!, ...riga } } : {}),
    };
  });
  const scritte = accepted.length;
  return { operazione, scritte, rifiutate: outcomes.length - scritte, righe: outcomes };
}
