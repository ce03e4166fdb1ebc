import type { Db, Tx } from "../../db/client";
import { rows } from "../../db/sql";
import { businessDate, formatInstant } from "../../lib/dates";
import { canonicalOrNull, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { checkRows } from "../../lib/rows";
import type { Actor } from "../auth/actor";
import { loadArticles, resolveArticle, type ArticleInfo } from "../catalogue/articles";
import { operationExists } from "../ledger/ledger.service";
import { type LocationRef, type ResolvedLocation, resolveLocations, type WarehouseInfo } from "../ledger/location-balances.service";
import { appendStock, type StockIntent, takeStock } from "../ledger/stock-writer";
import { consumptionStatements, planConsumption } from "../reservations/reservations-consume.service";
import { assertPeriod, boundAndRows, cutPage, newestPage, syncBound } from "../lists/lists";
import {
  MAX_MOVEMENT_ROWS,
  movementRowFor,
  SAME_WAREHOUSE,
  type ListMovementsInput,
  type MovementOutput,
  type NewestMovementsInput,
  type WriteMovementsInput,
  type WriteMovementsOutput,
} from "./movements.schemas";
import * as q from "./movements.queries";
import type { MovementRow } from "./movements.queries";

export type { MovementRow };

/** Suggested purchase prices of the given articles (SUGGESTED_PRICE), by article id. */
export async function suggestedPrices(db: Db, articleIds: number[]): Promise<Map<number, string | null>> {
  if (articleIds.length === 0) return new Map();
  const prices = await rows(db, q.suggestedPrices(articleIds));
  return new Map(prices.map((r) => [r.id, canonicalOrNull(r.prezzo)]));
}

interface PlannedRow {
  indice: number;
  article: ArticleInfo;
  quantita: string;
  prezzo: string | undefined;
  lotto: string | undefined;
  scadenza: string | undefined;
  ubicazione: string | undefined;
  ubicazione_origine: string | undefined;
  /** An unload's reservation, whose hold it consumes (docs/api.md section 14). */
  prenotazione: number | undefined;
  /** Resolved locations: where goods go in (`to`) and come out (`from`); null outside location warehouses. */
  to?: ResolvedLocation;
  from?: ResolvedLocation;
}

/**
 * POST /movimenti, the screens' manual movement and the putaway screen (`stoccaggio`): loads, unloads,
 * transfers, with per-row outcomes. In a warehouse that manages locations each row names its location
 * (a transfer: `ubicazione_origine` too), and a transfer may stay in one warehouse, between two locations.
 */
export async function writeMovements(
  tx: Tx,
  actor: Actor,
  input: WriteMovementsInput,
  opts: { timeZone: string; origine: "api" | "schermo" | "stoccaggio" },
): Promise<WriteMovementsOutput> {
  if (input.righe.length > MAX_MOVEMENT_ROWS) {
    throw new DomainError("troppe_righe", `Al massimo ${MAX_MOVEMENT_ROWS} righe per chiamata: ricevute ${input.righe.length}.`, {
      campo: "righe",
    });
  }
  const checked = checkRows(input.righe, movementRowFor(input.natura));
  const wellFormed = checked.rows.map((c) => c.row);
  const index = await loadArticles(tx, wellFormed, {
    withPrice: wellFormed.some((r) => r.prezzo === undefined),
    warehouses: { magazzino: input.magazzino, magazzino_origine: input.magazzino_origine },
  });
  if (input.magazzino_origine === input.magazzino && !index.magazzini.get(input.magazzino)?.gestione_ubicazioni) {
    throw new DomainError("richiesta_non_valida", `Campo 'magazzino_origine': ${SAME_WAREHOUSE}.`, { campo: "magazzino_origine" });
  }
  if (input.operazione !== undefined) {
    // A key (or a user) appends only to its own operations (docs/api.md section 5).
    if (!(await operationExists(tx, input.operazione, opts.origine, actor))) {
      throw new DomainError(
        "operazione_non_trovata",
        `L'operazione ${input.operazione} non esiste o non è stata scritta da te attraverso questa interfaccia: ometterla per aprirne una nuova.`,
        { campo: "operazione" },
      );
    }
  }

  const outcomes: WriteMovementsOutput["righe"] = [];
  for (const [indice, e] of checked.refused) outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
  const planned: PlannedRow[] = [];
  checked.rows.forEach(({ indice, row: r }) => {
    try {
      const article = resolveArticle(index, r);
      const quantita = quantityFromNumber(r.quantita);
      if (quantita === null) {
        throw new RowError(
          "quantita_non_valida",
          `Quantità ${r.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`,
        );
      }
      let prezzo: string | undefined;
      if (r.prezzo !== undefined) {
        const p = priceFromString(r.prezzo);
        if (p === null) {
          throw new RowError(
            "prezzo_non_valido",
            `Prezzo '${r.prezzo}' non valido: scrivere un decimale semplice con il punto, al massimo 4 decimali (es. "12.50").`,
          );
        }
        prezzo = p;
      }
      if (article.gestione_lotti && r.lotto === undefined) {
        throw new RowError("lotto_obbligatorio", `L'articolo ${article.codice} è gestito a lotti: indicare 'lotto'.`);
      }
      if (!article.gestione_lotti && (r.lotto !== undefined || r.scadenza !== undefined)) {
        throw new RowError("lotto_non_previsto", `L'articolo ${article.codice} non è gestito a lotti: togliere 'lotto' e 'scadenza'.`);
      }
      planned.push({
        indice,
        article,
        quantita,
        prezzo,
        lotto: r.lotto,
        scadenza: r.scadenza,
        ubicazione: r.ubicazione,
        ubicazione_origine: r.ubicazione_origine,
        prenotazione: r.prenotazione,
      });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
    }
  });
  // Locations (and the gates of those goods go into) before any row lock: lock order 1b.
  const refusedAt = await resolveRowLocations(tx, index.magazzini, input, planned);
  for (const [indice, e] of refusedAt) outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
  // The reservations the unloads name, FOR UPDATE (lock order 2b), and what each row consumes of their holds.
  const consumption = await planConsumption(
    tx,
    planned.flatMap((p) =>
      p.prenotazione === undefined || refusedAt.has(p.indice)
        ? []
        : [
            {
              indice: p.indice,
              prenotazione: p.prenotazione,
              articolo: p.article.id,
              codice: p.article.codice,
              magazzino: input.magazzino,
              lotto: p.lotto ?? null,
              quantita: p.quantita,
            },
          ],
    ),
  );
  for (const [indice, e] of consumption.refused) outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
  const located = planned.filter((p) => !refusedAt.has(p.indice) && !consumption.refused.has(p.indice));

  // Lots, then location stock (the stock writer), every row reported: a refused row leaves both as they were.
  // An unload's part within its reservation's hold is not checked against the free stock (stock-holds.ts).
  const intents = located.map((p) => rowIntent(input, p));
  const consumed = new Map(
    located.flatMap((p, i) => (consumption.consumed.has(p.indice) ? [[i, consumption.consumed.get(p.indice)!]] : [])),
  );
  for (const [i, e] of await takeStock(tx, intents, { partial: true, holds: { oggi: businessDate(opts.timeZone), consumed } })) {
    outcomes[located[i]!.indice] = { indice: located[i]!.indice, esito: "rifiutata", errore: e.toBody() };
  }
  const accepted = located.flatMap((p, i) => (outcomes[p.indice] ? [] : [{ indice: p.indice, intent: intents[i]! }]));

  let operazione: number | null = null;
  if (accepted.length > 0) {
    const written = await appendStock(
      tx,
      {
        operazione: input.operazione ?? "nuova",
        origine: opts.origine,
        causale: input.causale ?? null,
        data: businessDate(opts.timeZone),
        actor,
      },
      accepted.map((a) => a.intent),
      // The last statements of the write: its outcomes below are computed from the append's answer alone. The
      // reservations' rows and headers follow it (under their locks, taken at 2b), the headers last.
      {
        after: consumptionStatements(
          consumption,
          accepted.map((a) => a.indice),
        ),
        last: true,
      },
    );
    const { ids, sources } = written;
    operazione = written.operazione;
    accepted.forEach(({ indice }, i) => {
      const base = { indice, esito: "scritta", movimento: ids[i]! } as const;
      const source = sources[i] ?? null;
      outcomes[indice] =
        source === null
          ? { ...base, operazione: written.operazione }
          : { ...base, movimento_origine: source, operazione: written.operazione };
    });
  }
  const scritte = outcomes.filter((o) => o.esito === "scritta").length;
  return { operazione, scritte, rifiutate: outcomes.length - scritte, righe: outcomes };
}

/**
 * Resolves each row's locations (resolveLocations: its row codes), into `p.to` / `p.from`; the refused
 * rows by index. No statement unless a warehouse of the request manages locations and a row names one.
 */
async function resolveRowLocations(
  tx: Tx,
  warehouses: Map<number, WarehouseInfo>,
  input: WriteMovementsInput,
  planned: PlannedRow[],
): Promise<Map<number, RowError>> {
  const into = input.natura !== "scarico";
  const outOf = input.natura !== "carico";
  const source = input.magazzino_origine ?? input.magazzino;
  const refs: LocationRef[] = planned.flatMap((p) => [
    ...(into ? [{ magazzino: input.magazzino, codice: p.ubicazione, entrata: true }] : []),
    ...(outOf
      ? [
          input.natura === "trasferimento"
            ? { magazzino: source, codice: p.ubicazione_origine, entrata: false, campo: "ubicazione_origine" }
            : { magazzino: source, codice: p.ubicazione, entrata: false },
        ]
      : []),
  ]);
  const resolved = await resolveLocations(tx, warehouses, refs);
  const per = into && outOf ? 2 : 1;
  const refused = new Map<number, RowError>();
  planned.forEach((p, i) => {
    const to = into ? resolved[i * per]! : null;
    const from = outOf ? resolved[i * per + per - 1]! : null;
    const error = [to, from].find((x) => x instanceof RowError);
    if (error) refused.set(p.indice, error);
    else [p.to, p.from] = [to as ResolvedLocation, from as ResolvedLocation];
  });
  return refused;
}

/** A row's change of stock: a load or an unload in `magazzino`, a transfer a move from `magazzino_origine`. */
function rowIntent(input: WriteMovementsInput, p: PlannedRow): StockIntent {
  const row = {
    natura: input.natura,
    magazzino: input.magazzino,
    articolo: p.article.id,
    codice: p.article.codice,
    prezzo: p.prezzo ?? canonicalOrNull(p.article.prezzo_suggerito),
    lotto: p.lotto === undefined ? null : { id: null, codice: p.lotto },
    ...(p.prenotazione === undefined ? {} : { riferimento: { tipo: "prenotazione" as const, id: p.prenotazione } }),
  };
  if (input.natura === "carico") return { ...row, quantita: p.quantita, scadenza: p.scadenza ?? null, ubicazione: p.to ?? null };
  if (input.natura === "scarico") return { ...row, quantita: `-${p.quantita}`, ubicazione: p.from ?? null };
  return {
    ...row,
    quantita: p.quantita,
    ubicazione: p.to ?? null,
    da: { magazzino: input.magazzino_origine!, ubicazione: p.from ?? null },
  };
}

/** A movement as the contract shows it (GET /movimenti, and the movements an event carries). */
export function toMovementOutput(r: MovementRow, timeZone: string): MovementOutput {
  return {
    id: r.id,
    operazione: r.operazione_id,
    data: r.data,
    registrato_il: formatInstant(timeZone, r.registrato_ms),
    origine: r.origine,
    natura: r.natura,
    causale: r.causale,
    magazzino: r.magazzino_id,
    articolo: { id: r.articolo_id, codice: r.articolo_codice },
    quantita: r.quantita,
    prezzo: r.prezzo,
    lotto: r.lotto,
    ubicazione: r.ubicazione,
    riferimento: r.riferimento_tipo && r.riferimento_id !== null ? { tipo: r.riferimento_tipo, id: r.riferimento_id } : null,
    annulla: r.annulla_id,
    autore:
      r.chiave_api_id !== null
        ? { tipo: "chiave", id: r.chiave_api_id, nome: r.autore_nome ?? "" }
        : r.utente_id !== null
          ? { tipo: "utente", id: r.utente_id, nome: r.autore_nome ?? "" }
          : null,
  };
}

/** GET /movimenti: every movement, any channel, in id order, complete under concurrent writers. */
export async function listMovements(db: Db, input: ListMovementsInput, timeZone: string) {
  assertPeriod(input.da, input.a);
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const [bound, window] = await boundAndRows(db, "movimenti", q.movementsPage(dopo, input, limite + 1), { campo: "dopo", valore: dopo });
  const cut = cutPage(window, limite, bound, dopo);
  return { movimenti: cut.rows.map((r) => toMovementOutput(r, timeZone)), altri: cut.altri, cursore: cut.cursore };
}

/** The movements screen: the list's filters, newest first, a page below `prima` (lists.ts newestPage). */
export async function listNewestMovements(db: Db, input: NewestMovementsInput, timeZone: string) {
  assertPeriod(input.da, input.a);
  const bound = await syncBound(db, "movimenti");
  const page = await newestPage(bound, input.prima, input.limite ?? 100, (below, take) => rows(db, q.movementsBefore(below, input, take)));
  return { movimenti: page.rows.map((r) => ({ ...toMovementOutput(r, timeZone), annullato_da: r.annullato_da })), prima: page.prima };
}

/** Movements by id, for the events that name them (movements never change). */
export async function movementsByIds(db: Db, ids: number[]): Promise<MovementRow[]> {
  return ids.length === 0 ? [] : rows(db, q.movementsByIds(ids));
}
