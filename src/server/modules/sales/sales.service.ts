import type { Db, Tx } from "../../db/client";
import { execute, first, rows } from "../../db/sql";
import { businessDate, formatDate } from "../../lib/dates";
import { canonical, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError, type FieldProblem } from "../../lib/errors";
import { authorColumns, type Actor } from "../auth/actor";
import { loadArticles, resolveArticle, type ArticleIndex, type ArticleInfo } from "../catalogue/articles";
import { assertPeriod, boundAndRows, cutPage, newestPage, syncBound } from "../lists/lists";
import { createOperation } from "../ledger/ledger.service";
import { type ResolvedLocation, resolveLocations } from "../ledger/location-balances.service";
import { appendStock, takeStock, unloadIntent } from "../ledger/stock-writer";
import { suggestedPrices } from "../movements/movements.service";
import * as q from "./sales.queries";
import type { DocumentRow } from "./sales.queries";
import { MAX_SALES_ROWS, type CreateSaleInput, type ListSalesInput, type NewestSalesInput, type SaleDocumentOutput } from "./sales.schemas";

type Tipo = CreateSaleInput["tipo"];

const TIPO_LABEL: Record<Tipo, string> = { ddt: "DDT", fattura: "Fattura", scontrino: "Scontrino" };

/** NUMERIC(18,2): the largest amount a document can carry. */
const MAX_AMOUNT = new Decimal("9999999999999999.99");

/** "2026/000005": year and progressive, as in the contract's example. */
function formatNumero(anno: number, progressivo: number): string {
  return `${anno}/${String(progressivo).padStart(6, "0")}`;
}

interface PricedRow {
  quantita: string;
  prezzo: string;
  sconto: string;
  aliquota_iva: string;
}

/**
 * The document's money, exact in decimals: each row rounded half-up to cents, VAT rounded once per
 * rate on the sum of that rate's rows (the way an Italian invoice shows it), never per row.
 */
function computeTotals(rows: PricedRow[]) {
  const importi = rows.map((r) =>
    new Decimal(r.quantita)
      .times(r.prezzo)
      .times(new Decimal(1).minus(new Decimal(r.sconto).div(100)))
      .toDecimalPlaces(2, Decimal.ROUND_HALF_UP),
  );
  const byRate = new Map<string, Decimal>();
  rows.forEach((r, i) => {
    const rate = canonical(r.aliquota_iva);
    byRate.set(rate, (byRate.get(rate) ?? new Decimal(0)).plus(importi[i]!));
  });
  const imponibile = importi.reduce((s, x) => s.plus(x), new Decimal(0));
  let imposta = new Decimal(0);
  for (const [rate, base] of byRate) imposta = imposta.plus(base.times(rate).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP));
  return { importi, imponibile, imposta, totale: imponibile.plus(imposta) };
}

interface PlannedRow {
  indice: number;
  article: ArticleInfo;
  quantita: string;
  prezzo: string;
  sconto: string;
  aliquota_iva: string;
  lotto: string | undefined;
  ubicazione: string | undefined;
  /** The location the goods leave (null outside location warehouses). */
  from: ResolvedLocation;
}

/** Row checks that need no lock: the article, the numbers, whether a lot is expected. */
function checkRow(index: ArticleIndex, r: CreateSaleInput["righe"][number], indice: number): PlannedRow {
  const article = resolveArticle(index, r);
  // The contract's code for "no article to sell", as for an arrival (docs/api.md section 9: not sold).
  if (!article.attivo) {
    throw new RowError("articolo_non_trovato", `L'articolo ${article.codice} è disattivato e non si vende: riattivarlo in anagrafica.`);
  }
  const quantita = quantityFromNumber(r.quantita);
  if (quantita === null) {
    throw new RowError(
      "quantita_non_valida",
      `Quantità ${r.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`,
    );
  }
  const prezzo = priceFromString(r.prezzo);
  if (prezzo === null) {
    throw new RowError(
      "prezzo_non_valido",
      `Prezzo '${r.prezzo}' non valido: scrivere un decimale semplice con il punto, al massimo 4 decimali (es. "12.50").`,
    );
  }
  if (article.gestione_lotti && r.lotto === undefined) {
    throw new RowError("lotto_obbligatorio", `L'articolo ${article.codice} è gestito a lotti: indicare il lotto venduto.`);
  }
  if (!article.gestione_lotti && r.lotto !== undefined) {
    throw new RowError("lotto_non_previsto", `L'articolo ${article.codice} non è gestito a lotti: togliere 'lotto'.`);
  }
  return {
    indice,
    article,
    quantita,
    prezzo,
    sconto: r.sconto ?? "0",
    aliquota_iva: r.aliquota_iva,
    lotto: r.lotto,
    ubicazione: r.ubicazione,
    from: null,
  };
}

/** All-or-nothing: one refused row refuses the document, and the error lists every refused row. */
function refuseDocument(refused: Map<number, RowError>): DomainError {
  const entries = [...refused.entries()].sort(([a], [b]) => a - b);
  const [first, firstError] = entries[0]!;
  const dettagli: FieldProblem[] = entries.map(([i, e]) => ({ campo: `righe[${i}]`, messaggio: `Riga ${i + 1}: ${e.message}` }));
  const others = entries.length > 1 ? ` Altre righe rifiutate: ${entries.length - 1} (vedere 'dettagli').` : "";
  return new DomainError(
    firstError.codice,
    `Documento non registrato: la riga ${first + 1} è rifiutata. ${firstError.message}${others} Correggere le righe indicate e riprovare.`,
    { ...(entries.length === 1 ? { campo: `righe[${first}]` } : {}), dettagli },
  );
}

/**
 * Creates a sales document with its stock movements, in the caller's transaction. Every check runs
 * before the number is taken, so the numerator's row lock (which serialises documents of one type
 * and year) is held only for the final inserts; a refused document never consumes a number.
 */
export async function createSale(tx: Tx, actor: Actor, input: CreateSaleInput, opts: { timeZone: string }): Promise<SaleDocumentOutput> {
  if (input.righe.length > MAX_SALES_ROWS) {
    throw new DomainError("troppe_righe", `Al massimo ${MAX_SALES_ROWS} righe per documento: ricevute ${input.righe.length}.`, {
      campo: "righe",
    });
  }
  const client = await first(tx, q.clientById(input.cliente));
  if (!client) {
    throw new DomainError("richiesta_non_valida", `Il cliente ${input.cliente} non esiste: sceglierne uno dall'anagrafica clienti.`, {
      campo: "cliente",
    });
  }
  const index = await loadArticles(tx, input.righe, { warehouses: { magazzino: input.magazzino } });
  const refused = new Map<number, RowError>();
  const planned: PlannedRow[] = [];
  input.righe.forEach((r, i) => {
    try {
      planned.push(checkRow(index, r, i));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      refused.set(i, e);
    }
  });
  // Locations first (lock order 1b), then lots in lotLockOrder, then location stock (lock order 4), even
  // when another row is already refused, to report every row.
  const locations = await resolveLocations(
    tx,
    index.magazzini,
    planned.map((p) => ({ magazzino: input.magazzino, codice: p.ubicazione, entrata: false })),
  );
  planned.forEach((p, i) => {
    const l = locations[i]!;
    if (l instanceof RowError) refused.set(p.indice, l);
    else p.from = l;
  });
  // Lots, then location stock (the stock writer), for every row not refused yet, to report every row.
  const taking = planned.filter((p) => !refused.has(p.indice));
  const intents = taking.map((p) => unloadIntent(p, input.magazzino, { prezzo: null }));
  for (const [i, e] of await takeStock(tx, intents, { partial: true, holds: { oggi: businessDate(opts.timeZone) } }))
    refused.set(taking[i]!.indice, e);
  // Throwing rolls the transaction back, lot decrements included.
  if (refused.size > 0) throw refuseDocument(refused);

  const totals = computeTotals(planned);
  if (totals.totale.gt(MAX_AMOUNT)) {
    throw new DomainError(
      "richiesta_non_valida",
      `Il totale del documento (${canonical(totals.totale)}) supera il massimo registrabile (${canonical(MAX_AMOUNT)}): dividere la vendita in più documenti.`,
      { campo: "righe" },
    );
  }

  // The ledger values stock at cost (as an unload without price does); the sale price is on the
  // document row, which the movement's riferimento points to.
  const costs = await suggestedPrices(tx, [...new Set(planned.map((p) => p.article.id))]);
  const operazione = await createOperation(tx, "vendita", actor);

  const data = input.data ?? businessDate(opts.timeZone);
  const anno = Number(data.slice(0, 4));
  // Taken last: the counter row stays locked until commit, so concurrent documents of this type and
  // year queue here, and a rollback gives the number back with it: numbers never skip.
  const counter = await first(tx, q.takeNumber(input.tipo, anno));
  const progressivo = counter!.ultimo;
  const numero = formatNumero(anno, progressivo);
  const doc = await first(
    tx,
    q.insertDocument({
      tipo: input.tipo,
      anno,
      progressivo,
      numero,
      data,
      cliente: input.cliente,
      magazzino: input.magazzino,
      operazione,
      imponibile: totals.imponibile.toFixed(),
      imposta: totals.imposta.toFixed(),
      totale: totals.totale.toFixed(),
      utente: authorColumns(actor).utente_id,
    }),
  );
  const documento = doc!.id;

  // Nothing was refused: the intents are every planned row, in order, their lots found by takeStock.
  const { ids: movimenti } = await appendStock(
    tx,
    { operazione, origine: "vendita", causale: input.causale ?? `${TIPO_LABEL[input.tipo]} ${numero}`, data, actor },
    intents.map((intent) => ({
      ...intent,
      prezzo: costs.get(intent.articolo) ?? null,
      riferimento: { tipo: "documento_vendita", id: documento },
    })),
  );

  await execute(
    tx,
    q.insertDocumentLines(documento, {
      posizione: planned.map((p) => p.indice + 1),
      articolo: planned.map((p) => p.article.id),
      descrizione: planned.map((p) => p.article.descrizione),
      quantita: planned.map((p) => p.quantita),
      prezzo: planned.map((p) => p.prezzo),
      sconto: planned.map((p) => p.sconto),
      aliquota: planned.map((p) => p.aliquota_iva),
      importo: totals.importi.map((x) => x.toFixed()),
      lotto: intents.map((i) => i.lotto?.id ?? null),
      movimento: movimenti,
    }),
  );

  const [created] = await withLines(tx, await rows(tx, q.documentById(documento)));
  return created!;
}

/** The rows of every given document in one query, shaped as the contract shows them. */
async function withLines(db: Db, docs: DocumentRow[]): Promise<SaleDocumentOutput[]> {
  if (docs.length === 0) return [];
  const lines = await rows(db, q.documentLines(docs.map((d) => d.id)));
  const byDoc = new Map<number, SaleDocumentOutput["righe"]>();
  for (const l of lines) {
    const righe = byDoc.get(l.documento_id) ?? [];
    righe.push({
      articolo: { id: l.articolo_id, codice: l.codice },
      descrizione: l.descrizione,
      quantita: canonical(l.quantita),
      prezzo: canonical(l.prezzo),
      sconto: canonical(l.sconto),
      aliquota_iva: canonical(l.aliquota_iva),
      importo: canonical(l.importo),
      lotto: l.lotto,
      movimento: l.movimento_id,
    });
    byDoc.set(l.documento_id, righe);
  }
  return docs.map((d) => ({
    id: d.id,
    numero: d.numero,
    tipo: d.tipo,
    data: formatDate(d.data),
    cliente: { id: d.cliente_id, ragione_sociale: d.ragione_sociale },
    magazzino: d.magazzino_id,
    righe: byDoc.get(d.id) ?? [],
    imponibile: canonical(d.imponibile),
    imposta: canonical(d.imposta),
    totale: canonical(d.totale),
  }));
}

/** Documents by id, as the contract shows them (documento_vendita.emesso). */
export async function salesDocumentsByIds(db: Db, ids: number[]): Promise<SaleDocumentOutput[]> {
  return ids.length === 0 ? [] : withLines(db, await rows(db, q.documentsByIds(ids)));
}

/** GET /documenti-vendita: every document in id order, complete under concurrent writers. */
export async function listSales(db: Db, input: ListSalesInput) {
  assertPeriod(input.da, input.a);
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const [bound, window] = await boundAndRows(db, "documenti_vendita", q.documentsPage(dopo, input, limite + 1), {
    campo: "dopo",
    valore: dopo,
  });
  const page = cutPage(window, limite, bound, dopo);
  return { documenti: await withLines(db, page.rows), altri: page.altri, cursore: page.cursore };
}

/** The sales screen: the list's filters, newest first, a page below `prima` (lists.ts newestPage). */
export async function listNewestSales(db: Db, input: NewestSalesInput) {
  assertPeriod(input.da, input.a);
  const bound = await syncBound(db, "documenti_vendita");
  const page = await newestPage(bound, input.prima, input.limite ?? 100, (below, take) => rows(db, q.documentsBefore(below, input, take)));
  return { documenti: await withLines(db, page.rows), prima: page.prima };
}
