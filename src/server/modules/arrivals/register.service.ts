import { Prisma, type Tx } from "../../db/client";
import { businessDate } from "../../lib/dates";
import { canonical, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { type CheckedRows, checkRows } from "../../lib/rows";
import type { Actor } from "../auth/actor";
import { deliveryNoteOperation, expiryConflict, lotExpiry } from "../ledger/ledger.service";
import { lockWarehouses, resolveLocations, type ResolvedLocation } from "../ledger/location-balances.service";
import { appendStock, type StockIntent, takeStock } from "../ledger/stock-writer";
import { recordArrivalDifferences } from "./differences.service";
import type { MotivoDifferenza } from "./receiving.schemas";
import * as q from "./arrivals.queries";
import {
  arrivalRowInput,
  isSingleArrival,
  MAX_ARRIVAL_ROWS,
  singleArrivalRow,
  type ArrivalRowInput,
  type RegisterInput,
  type RegisterOutput,
} from "./arrivals.schemas";
import {
  lockOrderRows,
  moveArrived,
  recomputeOrdersStatements,
  remaining,
  statesOf,
  type LockedRow,
  type OrderState,
} from "./order-rows.service";

/** POST /arrivi: goods received against order rows, one row or several (per-row outcomes). */

/** The order row a refused row names, as sent: null when it is missing or not an id. */
function rigaOf(raw: Record<string, unknown> | undefined): number | null {
  const riga = raw?.riga;
  return typeof riga === "number" && Number.isInteger(riga) && riga > 0 ? riga : null;
}

/** A declared difference's quantity (docs/api.md section 12: "needs its quantita"), as any quantity. */
function declaredQuantity(n: number): string {
  const q = quantityFromNumber(n);
  if (q === null)
    throw new RowError("quantita_non_valida", `Quantità della differenza ${n} non valida: maggiore di zero, al massimo 3 decimali.`);
  return q;
}

interface Accepted {
  indice: number;
  row: LockedRow;
  quantita: string;
  prezzo: string;
  /** The lot's code as given; its id once the lot is loaded. */
  lottoCodice: string | undefined;
  scadenza: string | undefined;
  /** Where the goods land: null in a warehouse without locations. */
  ubicazione: ResolvedLocation;
  arrivata: string;
  residua: string;
  /** A difference declared beside the arrival (docs/api.md section 12), recorded with it. */
  differenza?: { quantita: string; motivo: MotivoDifferenza; nota: string | null };
  /** Quantity 0 with a difference (docs/api.md section 12, "alone with a quantity of 0 received"): no movement. */
  soloDifferenza: boolean;
}

/** The delivery note's supplier: the first row's order's (the first row of the request that names an existing order row). */
interface DeliveryNote {
  fornitore: { id: number; codice: string } | null;
  /** The warehouse the goods arrive in: every row's order must be for it. */
  magazzino: number;
  /** Lot expiries known so far (`articolo|lotto`): the lot's own, or the first one this request gives it. */
  expiries: Map<string, string | null>;
}

/** Checks one row against its locked order row and moves its arrived quantity (the lot comes later, in lot order). */
async function acceptRow(
  tx: Tx,
  note: DeliveryNote,
  row: LockedRow | undefined,
  input: ArrivalRowInput,
  indice: number,
  location: ResolvedLocation | RowError,
): Promise<Accepted> {
  if (location instanceof RowError) throw location;
  if (!row) throw new RowError("riga_non_trovata", `La riga d'ordine ${input.riga} non esiste: controllare l'etichetta R${input.riga}.`);
  // One delivery note comes from one supplier: the first row's order names it.
  note.fornitore ??= { id: row.fornitore_id, codice: row.fornitore_codice };
  if (row.fornitore_id !== note.fornitore.id) {
    throw new RowError(
      "fornitore_diverso",
      `La riga R${row.id} è dell'ordine ${row.numero} del fornitore ${row.fornitore_codice}, ma il DDT è del fornitore ${note.fornitore.codice} (quello della prima riga): registrarla con un DDT di ${row.fornitore_codice}.`,
    );
  }
  if (row.magazzino_id !== note.magazzino) {
    throw new RowError(
      "magazzino_diverso",
      `La riga R${row.id} (ordine ${row.numero}) è attesa nel magazzino ${row.magazzino_codice}, non in quello indicato: ricevere la merce in ${row.magazzino_codice}.`,
    );
  }
  // The contract's code for "no article to receive": an inactive article is not received.
  if (!row.attivo) {
    throw new RowError(
      "articolo_non_trovato",
      `L'articolo ${row.codice} (riga R${row.id}, ordine ${row.numero}) è disattivato e non si riceve: riattivarlo in anagrafica, o lasciare la merce fuori.`,
    );
  }
  // What was closed short is no longer expected: the remaining quantity leaves it out.
  const residua = remaining(row);
  // "The whole remaining quantity" of a complete row is nothing: riga_evasa. An explicit quantity on
  // it is over the remaining quantity like any other: quantita_eccessiva.
  if (residua.isZero() && input.quantita === undefined) {
    throw new RowError(
      "riga_evasa",
      row.chiusa.isZero()
        ? `La riga R${row.id} dell'ordine ${row.numero} è già stata ricevuta per intero.`
        : `La riga R${row.id} dell'ordine ${row.numero} è chiusa: il residuo (${canonical(row.chiusa)}) è stato chiuso senza consegna.`,
    );
  }
  let quantita = residua.toFixed();
  // Nothing received, only a difference declared: the row is recorded without moving (no lot, no location).
  const soloDifferenza = input.quantita === 0 && input.differenza !== undefined;
  if (soloDifferenza) quantita = "0";
  else if (input.quantita !== undefined) {
    const q = quantityFromNumber(input.quantita);
    if (q === null)
      throw new RowError(
        "quantita_non_valida",
        `Quantità ${input.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`,
      );
    if (new Decimal(q).gt(residua)) {
      throw new RowError(
        "quantita_eccessiva",
        `Quantità ${canonical(q)} oltre il residuo della riga R${row.id} (${row.codice}, ordine ${row.numero}): ne restano ${canonical(residua)}` +
          (row.chiusa.isZero() ? "." : ` (${canonical(row.chiusa)} chiusi senza consegna).`),
      );
    }
    quantita = q;
  }
  if (row.gestione_lotti && input.lotto === undefined && !soloDifferenza)
    throw new RowError("lotto_obbligatorio", `L'articolo ${row.codice} è gestito a lotti: indicare il lotto (e la scadenza, se c'è).`);
  if (!row.gestione_lotti && (input.lotto !== undefined || input.scadenza !== undefined))
    throw new RowError("lotto_non_previsto", `L'articolo ${row.codice} non è gestito a lotti: togliere lotto e scadenza.`);
  // An expiry that differs from the existing lot's (or from an earlier row's for a new lot) is refused.
  const lotKey = `${row.articolo_id}|${input.lotto}`;
  if (row.gestione_lotti && input.scadenza !== undefined) {
    if (!note.expiries.has(lotKey)) note.expiries.set(lotKey, await lotExpiry(tx, row.articolo_id, note.magazzino, input.lotto!));
    const conflict = expiryConflict(row.codice, note.magazzino, input.lotto!, note.expiries.get(lotKey)!, input.scadenza);
    if (conflict) throw conflict;
  }
  let prezzo = canonical(row.prezzo);
  if (input.prezzo !== undefined) {
    const p = priceFromString(input.prezzo);
    if (p === null)
      throw new RowError(
        "prezzo_non_valido",
        `Prezzo '${input.prezzo}' non valido: decimale semplice con il punto, al massimo 4 decimali.`,
      );
    prezzo = p;
  }
  // Checked before the row moves: a refused row leaves it as it was.
  const differenza = input.differenza && {
    quantita: declaredQuantity(input.differenza.quantita),
    motivo: input.differenza.motivo,
    nota: input.differenza.nota ?? null,
  };
  if (soloDifferenza)
    return {
      indice,
      row,
      quantita,
      prezzo,
      lottoCodice: undefined,
      scadenza: undefined,
      ubicazione: null,
      arrivata: canonical(row.arrivata),
      residua: canonical(residua),
      differenza,
      soloDifferenza,
    };
  const moved = await moveArrived(tx, row.id, quantita);
  // A later row of the same request on the same order row sees this one's quantity.
  row.arrivata = new Prisma.Decimal(moved.arrivata);
  if (row.gestione_lotti && input.scadenza !== undefined && note.expiries.get(lotKey) === null) note.expiries.set(lotKey, input.scadenza);
  return {
    indice,
    row,
    quantita,
    prezzo,
    lottoCodice: input.lotto,
    scadenza: input.scadenza,
    ubicazione: location,
    ...moved,
    differenza,
    soloDifferenza,
  };
}

/**
 * Registers the arrivals and returns the response body: for one row (`riga`, isSingleArrival) the
 * movement, or a DomainError with the row's code; for several (`righe`) an outcome per row.
 */
export async function registerArrivals(tx: Tx, actor: Actor, input: RegisterInput, opts: { timeZone: string }): Promise<RegisterOutput> {
  const single = isSingleArrival(input);
  const count = input.righe?.length ?? 1;
  if (count > MAX_ARRIVAL_ROWS) {
    throw new DomainError("troppe_righe", `Al massimo ${MAX_ARRIVAL_ROWS} righe per chiamata: ricevute ${count}.`, {
      campo: "righe",
    });
  }
  // Several rows: each parsed on its own, a malformed one refused alone (lib/rows.ts). One row is the call.
  const checked: CheckedRows<ArrivalRowInput> = input.righe
    ? checkRows(input.righe, arrivalRowInput)
    : { rows: [{ indice: 0, row: singleArrivalRow(input) }], refused: new Map() };
  const rows = checked.rows.map((c) => c.row);
  // The gates first (the warehouse's, then those of the locations the goods go into), then order rows,
  // lots (lotLockOrder), location stock, balances and orders: the order every writer takes them in.
  const warehouses = await lockWarehouses(tx, { magazzino: input.magazzino });
  const locations = await resolveLocations(
    tx,
    warehouses,
    rows.map((r) => ({ magazzino: input.magazzino, codice: r.ubicazione, entrata: true, ricevimento: true })),
  );
  const locked = await lockOrderRows(
    tx,
    rows.map((r) => r.riga),
  );
  const accepted: Accepted[] = [];
  const refused = new Map<number, RowError>(checked.refused);
  const note: DeliveryNote = { fornitore: null, magazzino: input.magazzino, expiries: new Map() };
  for (const [i, { indice, row: r }] of checked.rows.entries()) {
    try {
      accepted.push(await acceptRow(tx, note, locked.get(r.riga), r, indice, locations[i]!));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      if (single) throw new DomainError(e.codice, e.message, { campo: e === locations[i] ? "ubicazione" : "riga" });
      refused.set(indice, e);
    }
  }
  // What is received moves stock; a row of quantity 0 with a difference only records the difference.
  const received = accepted.filter((a) => !a.soloDifferenza);
  const intents = received.map(
    (a): StockIntent => ({
      natura: "carico",
      magazzino: input.magazzino,
      articolo: a.row.articolo_id,
      codice: a.row.codice,
      quantita: a.quantita,
      prezzo: a.prezzo,
      lotto: a.lottoCodice === undefined ? null : { id: null, codice: a.lottoCodice },
      scadenza: a.scadenza ?? null,
      ubicazione: a.ubicazione,
      riferimento: { tipo: "riga_ordine", id: a.row.id },
    }),
  );
  await takeStock(tx, intents, {
    // Checked on every row above; only a lot created meanwhile by another request gets here: nothing is written.
    refuse: (_, why) => new DomainError(why.error.codice, why.error.message, { campo: single ? "scadenza" : "righe" }),
  });

  let operazione: number | null = null;
  let movementIds: number[] = [];
  let states = new Map<number, OrderState>();
  // Recorded before the arrival's end, which commits with its last statements.
  const differenceIds = await recordArrivalDifferences(
    tx,
    actor,
    accepted.flatMap((a) =>
      a.differenza
        ? [
            {
              fornitore: a.row.fornitore_id,
              riga: a.row.id,
              articolo: a.row.articolo_id,
              attesa: new Decimal(a.residua).plus(a.quantita).toFixed(),
              ricevuta: a.quantita,
              ...a.differenza,
            },
          ]
        : [],
    ),
    opts,
  );
  const differenceOf = new Map(accepted.filter((a) => a.differenza).map((a, i) => [a.indice, differenceIds[i]!]));
  if (received.length > 0) {
    operazione = await deliveryNoteOperation(tx, note.fornitore!.id, input.ddt, actor);
    // The arrival's end in one write with its COMMIT: the movements, the articles' last purchase price
    // (the suggested price of POST /movimenti), then the orders locked and their states recomputed. Each
    // statement still runs after the one before it, in the lock order; none waits on another's answer.
    const lastPrice = new Map(received.map((a) => [a.row.articolo_id, a.prezzo]));
    const articles = [...lastPrice.keys()].sort((a, b) => a - b);
    const written = await appendStock(
      tx,
      { operazione, origine: "arrivo", causale: `DDT ${input.ddt}`, data: businessDate(opts.timeZone), actor },
      intents,
      {
        after: [
          q.setLastArrivalPrice(
            articles,
            articles.map((id) => lastPrice.get(id)!),
          ),
          ...recomputeOrdersStatements(received.map((a) => a.row.ordine_id)),
        ] as const,
        last: true,
      },
    );
    movementIds = written.ids;
    states = statesOf(written.after[2]);
  }

  if (single) {
    const a = accepted[0]!;
    const differenza = differenceOf.get(a.indice);
    return {
      movimento: a.soloDifferenza ? null : movementIds[0]!,
      operazione,
      riga: a.row.id,
      arrivata: a.arrivata,
      residua: a.residua,
      ordine: { id: a.row.ordine_id, stato: states.get(a.row.ordine_id) ?? a.row.stato },
      ...(differenza !== undefined && { differenza }),
    };
  }
  const movementOf = new Map(received.map((a, i) => [a.indice, movementIds[i]!]));
  const byIndex = new Map(accepted.map((a) => [a.indice, { a, movimento: movementOf.get(a.indice) }]));
  return {
    operazione,
    registrate: accepted.length,
    rifiutate: refused.size,
    righe: Array.from({ length: count }, (_, indice) => {
      const ok = byIndex.get(indice);
      if (ok)
        return {
          indice,
          riga: ok.a.row.id,
          esito: "registrata" as const,
          ...(ok.movimento !== undefined && { movimento: ok.movimento }),
          arrivata: ok.a.arrivata,
          residua: ok.a.residua,
          ...(differenceOf.has(indice) && { differenza: differenceOf.get(indice)! }),
        };
      return { indice, riga: rigaOf(input.righe?.[indice]), esito: "rifiutata" as const, errore: refused.get(indice)!.toBody() };
    }),
  };
}
