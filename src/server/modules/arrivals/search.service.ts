import type { ModelDb, Prisma } from "../../db/client";
import { first, rows, rowsInOrder } from "../../db/sql";
import { formatDate } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import { assertWarehouses } from "../catalogue/articles";
import * as q from "./arrivals.queries";
import { eanCandidates, parseScan } from "../../../lib/barcode";
import { readSscc } from "../../../lib/sscc";
import { palletOf } from "./pallet-scan.service";
import type { ExpectedOrder, ScanInput, ScanOutput, SearchInput, SearchOutput } from "./arrivals.schemas";
import { remaining } from "./order-rows.service";

/** POST /arrivi/cerca: the goods expected, by filters or by a scanned code. */

type StandingArrival = { riga: number; movimento: number; data: string; quantita: string };

const toStanding = (m: q.StandingArrivalRow): StandingArrival => ({
  riga: m.riga,
  movimento: m.id,
  data: formatDate(m.data),
  quantita: canonical(m.quantita),
});

/** The arrivals still standing on order rows (a cancelled arrival leaves), by id; also the order screen's. */
export async function standingArrivals(db: ModelDb, rowIds: number[]): Promise<StandingArrival[]> {
  if (rowIds.length === 0) return [];
  return (await rows(db, q.standingArrivals(rowIds))).map(toStanding);
}

/** Orders with the given rows, each row with the arrivals still standing on it (cancelled ones leave). */
async function loadOrders(db: ModelDb, orderIds: number[], rowFilter: Prisma.Sql): Promise<ExpectedOrder[]> {
  if (orderIds.length === 0) return [];
  const [orders, orderRows] = await rowsInOrder(db, q.orderHeaders(orderIds), q.orderRows(orderIds, rowFilter));
  const arrivals = await standingArrivals(
    db,
    orderRows.map((r) => r.id),
  );
  return expectedOrders(orders, orderRows, arrivals);
}

/** An order's header as the receiving answers show it (a scan, a search, the handheld's copy). */
export function orderHeader(o: Omit<q.OrderHeaderRow, "id">, id: number): Omit<ExpectedOrder, "righe"> {
  return {
    id,
    numero: o.numero,
    data: formatDate(o.data),
    stato: o.stato,
    fornitore: { id: o.fornitore_id, nome: o.fornitore_nome },
    magazzino: o.magazzino_id,
  };
}

/** An expected row's figures as the receiving answers show them, without its arrivals. */
export function expectedRowFields(r: q.ExpectedRowRecord) {
  return {
    riga: r.id,
    etichetta: `R${r.id}`,
    articolo: { id: r.articolo_id, codice: r.codice },
    descrizione: r.descrizione,
    ordinata: canonical(r.ordinata),
    arrivata: canonical(r.arrivata),
    residua: canonical(remaining(r)),
    prezzo_proposto: canonical(r.prezzo),
    chiede_lotto: r.gestione_lotti,
  };
}

function expectedOrders(orders: q.OrderHeaderRow[], orderRows: q.ExpectedRowRecord[], arrivals: StandingArrival[]): ExpectedOrder[] {
  return orders.map((o) => ({
    ...orderHeader(o, o.id),
    righe: orderRows
      .filter((r) => r.ordine_id === o.id)
      .map((r) => ({
        ...expectedRowFields(r),
        registrati: arrivals.filter((m) => m.riga === r.id).map(({ movimento, data, quantita }) => ({ movimento, data, quantita })),
      })),
  }));
}

/**
 * A scan's answer when it named one row (a label, or an article's first expected row): its order, the
 * row, the row's arrivals and the article's open totals (in the scanning warehouse, when given). With
 * the row known, none of the four reads waits on another's answer, so they go out in one write (sql.ts
 * rowsInOrder) rather than one round trip each; each is still its own statement, as when they were sent
 * one by one.
 */
async function oneExpectedRow(
  db: ModelDb,
  row: { ordine_id: number; id: number },
  articoloId: number,
  magazzino: number | undefined,
): Promise<ScanOutput> {
  const [orders, orderRows, arrivals, totals] = await rowsInOrder(
    db,
    q.orderHeaders([row.ordine_id]),
    q.orderRows([row.ordine_id], q.rowIs(row.id)),
    q.standingArrivals([row.id]),
    q.articleOpenTotals(articoloId, magazzino),
  );
  const ordini = expectedOrders(orders, orderRows, arrivals.map(toStanding));
  return { ordini, totale_ordini: totals[0]!.ordini, totale_righe: totals[0]!.righe, altri: false, cursore: ordini[0]?.id ?? 0 };
}

const inactive = (codice: string) =>
  `L'articolo ${codice} non è attivo in anagrafica: non si riceve. Controllare il documento di trasporto.`;

function empty(motivo: string, motivo_codice: ScanOutput["motivo_codice"], dopo = 0): ScanOutput {
  return { ordini: [], totale_ordini: 0, totale_righe: 0, altri: false, cursore: dopo, motivo, motivo_codice };
}

/**
 * The first expected row of an article: the oldest order first (by order date, then order id, then
 * row position). The oldest commitment is the one the supplier is most likely delivering against, and
 * FIFO keeps later orders open for later deliveries. Scanning in a warehouse, only that warehouse's rows
 * are proposed: goods are received where they are, and a row of another warehouse would be refused at
 * registration (magazzino_diverso). When only other warehouses expect the article, the oldest of their
 * rows is shown apart (`altro_magazzino`), with where and how many, so the operator can switch.
 */
async function firstExpectedRow(db: ModelDb, articolo: { id: number; codice: string }, magazzino: number | undefined): Promise<ScanOutput> {
  const row = await first(db, q.firstExpectedRow(articolo.id, magazzino));
  if (!row)
    return empty(`Nessun ordine aperto attende l'articolo ${articolo.codice}: controllare il documento di trasporto.`, "non_atteso");
  if (magazzino === undefined || row.magazzino_id === magazzino) return oneExpectedRow(db, row, articolo.id, magazzino);
  const [orders, orderRows, arrivals, elsewhere] = await rowsInOrder(
    db,
    q.orderHeaders([row.ordine_id]),
    q.orderRows([row.ordine_id], q.rowIs(row.id)),
    q.standingArrivals([row.id]),
    q.openRowsElsewhere(articolo.id, magazzino),
  );
  const where = elsewhere.map((w) => `${w.codice} (${w.righe} ${w.righe === 1 ? "riga" : "righe"})`).join(", ");
  const totale_righe = elsewhere.reduce((n, w) => n + w.righe, 0);
  return {
    ...empty(`Atteso solo in ${where}: cambiare magazzino per riceverlo lì.`, "altro_magazzino"),
    altro_magazzino: { ordini: expectedOrders(orders, orderRows, arrivals.map(toStanding)), totale_righe },
  };
}

async function searchByBarcode(
  db: ModelDb,
  barcode: string,
  magazzino: number | undefined,
  opts: { timeZone: string },
): Promise<ScanOutput> {
  // An SSCC before any other reading (docs/api.md section 11): a pallet of a shipping notice (section 12).
  const sscc = readSscc(barcode);
  if (sscc !== null) {
    const collo = await palletOf(db, sscc, opts);
    if (!collo)
      return empty(`Il collo ${sscc} non è in nessun avviso di spedizione: ricevere la merce riga per riga.`, "codice_sconosciuto");
    return { ordini: [], totale_ordini: 0, totale_righe: 0, altri: false, cursore: 0, collo };
  }
  const scan = parseScan(barcode);
  if (scan.kind === "illeggibile") return empty(scan.motivo, "codice_sconosciuto");
  if (scan.kind === "etichetta") {
    const row = await first(db, q.labelRow(scan.riga));
    if (!row) return empty(`Etichetta R${scan.riga}: nessuna riga d'ordine con questo numero.`, "codice_sconosciuto");
    if (row.evasa && row.chiusa) {
      const motivo = row.motivo_chiusura === null ? "" : ` (motivo: ${row.motivo_chiusura})`;
      return empty(`La riga R${row.id} dell'ordine ${row.numero} è chiusa: il residuo non è più atteso${motivo}.`, "riga_evasa");
    }
    if (row.evasa) return empty(`La riga R${row.id} dell'ordine ${row.numero} è già stata ricevuta per intero.`, "riga_evasa");
    if (!row.attivo) return empty(inactive(row.codice), "non_atteso");
    // A label names one row, whatever the warehouse: the operator chose it, so it is answered, and flagged.
    const answer = await oneExpectedRow(db, { ordine_id: row.ordine_id, id: row.id }, row.articolo_id, magazzino);
    return magazzino !== undefined && row.magazzino_id !== magazzino ? { ...answer, magazzino_diverso: true } : answer;
  }
  const article = await first(db, q.scannedArticle(scan.kind === "codice" ? { codice: scan.codice } : { ean: eanCandidates(scan.gtin) }));
  const shown = scan.kind === "codice" ? `Il codice ${scan.codice}` : `L'EAN ${scan.gtin}`;
  const lettura = scan.kind === "gs1" ? { lettura: { gtin: scan.gtin, lotto: scan.lotto, scadenza: scan.scadenza } } : {};
  if (!article) return { ...empty(`${shown} non corrisponde a nessun articolo in anagrafica.`, "codice_sconosciuto"), ...lettura };
  if (!article.attivo) return { ...empty(inactive(article.codice), "non_atteso"), ...lettura };
  if (article.ha_varianti) {
    return {
      ...empty(
        `${shown} è del modello ${article.codice}, che si riceve per variante: leggere l'EAN della variante (${article.varianti.join(", ")}).`,
        "non_atteso",
      ),
      ...lettura,
    };
  }
  return { ...(await firstExpectedRow(db, article, magazzino)), ...lettura };
}

/**
 * arrivals.scan: the receiving screen's scan, answered as POST /arrivi/cerca answers a barcode, from the
 * warehouse the screen receives in (proposals and totals of that warehouse only; see firstExpectedRow).
 */
export async function scanExpected(db: ModelDb, input: ScanInput, opts: { timeZone: string }): Promise<ScanOutput> {
  const answer = await searchByBarcode(db, input.barcode, input.magazzino, opts);
  // A proposed row of the warehouse proves it exists: the usual scan saves the check's round trip.
  if (input.magazzino !== undefined && answer.ordini[0]?.magazzino !== input.magazzino)
    await assertWarehouses(db, { magazzino: input.magazzino });
  return answer;
}

export async function searchExpected(db: ModelDb, input: SearchInput, opts: { timeZone: string }): Promise<SearchOutput> {
  // Without a warehouse none of the scan's own answers (altro_magazzino, magazzino_diverso) can arise.
  if (input.barcode !== undefined) return (await searchByBarcode(db, input.barcode, undefined, opts)) as SearchOutput;
  if (input.fornitore !== undefined && !(await db.fornitore.findUnique({ where: { id: input.fornitore }, select: { id: true } }))) {
    throw new DomainError("fornitore_non_trovato", `Il fornitore ${input.fornitore} non esiste.`, { campo: "fornitore" });
  }
  if (input.magazzino !== undefined) await assertWarehouses(db, { magazzino: input.magazzino });
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const rowFilter = q.searchRowFilter(input);
  const orderFilter = q.searchOrderFilter(input);
  const [totals, page] = await rowsInOrder(
    db,
    q.searchTotals(orderFilter, rowFilter),
    q.searchPage(orderFilter, rowFilter, dopo, limite + 1),
  );
  const ids = page.slice(0, limite).map((p) => p.ordine_id);
  const ordini = await loadOrders(db, ids, rowFilter);
  const out: SearchOutput = {
    ordini,
    totale_ordini: totals[0]!.ordini,
    totale_righe: totals[0]!.righe,
    altri: page.length > limite,
    cursore: ids.at(-1) ?? dopo,
  };
  if (ordini.length === 0 && dopo === 0) {
    return { ...out, motivo: "Nessuna merce attesa con questi filtri.", motivo_codice: "non_atteso" };
  }
  return out;
}
