import { Prisma, type Db, type Tx } from "../../db/client";
import { businessDate, formatDate } from "../../lib/dates";
import { canonical, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { assertWarehouses } from "../catalogue/articles";
import { appendToLedger, deliveryNoteOperation, loadLot, lotLockOrder, takeBackFromLot, type LedgerRow } from "../ledger/ledger.service";
import type { WriteResult } from "../idempotency/idempotency.service";
import { eanCandidates, parseScan } from "./barcode";
import {
  MAX_ARRIVAL_ROWS,
  type ArrivalRowInput,
  type ExpectedOrder,
  type RegisterInput,
  type RegisterOutput,
  type SearchInput,
  type SearchOutput,
} from "./arrivals.schemas";

type OrderState = ExpectedOrder["stato"];

// ---------------------------------------------------------------- search

interface RowRecord {
  id: number;
  ordine_id: number;
  articolo_id: number;
  codice: string;
  descrizione: string;
  ordinata: Prisma.Decimal;
  arrivata: Prisma.Decimal;
  prezzo: Prisma.Decimal;
  gestione_lotti: boolean;
}

/** Orders with the given rows, each row with the arrivals still standing on it (cancelled ones leave). */
async function loadOrders(db: Db, orderIds: number[], rowFilter: Prisma.Sql): Promise<ExpectedOrder[]> {
  if (orderIds.length === 0) return [];
  const orders = await db.$queryRaw<
    { id: number; numero: string; data: Date; stato: OrderState; magazzino_id: number; fornitore_id: number; fornitore_nome: string }[]
  >`
    SELECT o.id, o.numero, o.data, o.stato, o.magazzino_id, f.id AS fornitore_id, f.nome AS fornitore_nome
      FROM ordini_acquisto o JOIN fornitori f ON f.id = o.fornitore_id
     WHERE o.id = ANY(${orderIds}::int[]) ORDER BY o.id`;
  const rows = await db.$queryRaw<RowRecord[]>`
    SELECT r.id, r.ordine_id, r.articolo_id, a.codice, a.descrizione, r.ordinata, r.arrivata, r.prezzo, a.gestione_lotti
      FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id
     WHERE r.ordine_id = ANY(${orderIds}::int[]) AND ${rowFilter}
     ORDER BY r.ordine_id, r.posizione`;
  const arrivals = await db.$queryRaw<{ id: number; data: Date; quantita: Prisma.Decimal; riga: number }[]>`
    SELECT m.id, m.data, m.quantita, m.riferimento_id AS riga FROM movimenti m
     WHERE m.origine = 'arrivo' AND m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = ANY(${rows.map((r) => r.id)}::int[])
       AND NOT EXISTS (SELECT 1 FROM movimenti c WHERE c.annulla_id = m.id)
     ORDER BY m.id`;
  return orders.map((o) => ({
    id: o.id,
    numero: o.numero,
    data: formatDate(o.data),
    stato: o.stato,
    fornitore: { id: o.fornitore_id, nome: o.fornitore_nome },
    magazzino: o.magazzino_id,
    righe: rows
      .filter((r) => r.ordine_id === o.id)
      .map((r) => ({
        riga: r.id,
        etichetta: `R${r.id}`,
        articolo: { id: r.articolo_id, codice: r.codice },
        descrizione: r.descrizione,
        ordinata: canonical(r.ordinata),
        arrivata: canonical(r.arrivata),
        residua: canonical(new Decimal(r.ordinata.toString()).minus(r.arrivata.toString())),
        prezzo_proposto: canonical(r.prezzo),
        chiede_lotto: r.gestione_lotti,
        registrati: arrivals
          .filter((m) => m.riga === r.id)
          .map((m) => ({ movimento: m.id, data: formatDate(m.data), quantita: canonical(m.quantita) })),
      })),
  }));
}

const OPEN_ROW = Prisma.sql`r.arrivata < r.ordinata`;

function empty(motivo: string, motivo_codice: SearchOutput["motivo_codice"], dopo = 0): SearchOutput {
  return { ordini: [], totale_ordini: 0, totale_righe: 0, altri: false, cursore: dopo, motivo, motivo_codice };
}

/**
 * The first expected row of an article: the oldest order first (by order date, then order id, then
 * row position). The oldest commitment is the one the supplier is most likely delivering against, and
 * FIFO keeps later orders open for later deliveries.
 */
async function firstExpectedRow(db: Db, articolo: { id: number; codice: string }): Promise<SearchOutput> {
  const [first] = await db.$queryRaw<{ ordine_id: number; id: number }[]>`
    SELECT r.ordine_id, r.id FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
     WHERE r.articolo_id = ${articolo.id} AND ${OPEN_ROW}
     ORDER BY o.data, o.id, r.posizione LIMIT 1`;
  if (!first) return empty(`Nessun ordine aperto attende l'articolo ${articolo.codice}: controllare il documento di trasporto.`, "non_atteso");
  return withArticleTotals(db, articolo.id, await loadOrders(db, [first.ordine_id], Prisma.sql`r.id = ${first.id}`));
}

async function withArticleTotals(db: Db, articoloId: number, ordini: ExpectedOrder[]): Promise<SearchOutput> {
  const [totals] = await db.$queryRaw<{ ordini: number; righe: number }[]>`
    SELECT count(DISTINCT r.ordine_id)::int AS ordini, count(*)::int AS righe FROM righe_ordine r
     WHERE r.articolo_id = ${articoloId} AND ${OPEN_ROW}`;
  return { ordini, totale_ordini: totals!.ordini, totale_righe: totals!.righe, altri: false, cursore: ordini[0]?.id ?? 0 };
}

async function searchByBarcode(db: Db, barcode: string): Promise<SearchOutput> {
  const scan = parseScan(barcode);
  if (scan.kind === "illeggibile") return empty(scan.motivo, "codice_sconosciuto");
  if (scan.kind === "etichetta") {
    const [row] = await db.$queryRaw<{ id: number; ordine_id: number; articolo_id: number; evasa: boolean; numero: string }[]>`
      SELECT r.id, r.ordine_id, r.articolo_id, r.arrivata >= r.ordinata AS evasa, o.numero
        FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = ${scan.riga}`;
    if (!row) return empty(`Etichetta R${scan.riga}: nessuna riga d'ordine con questo numero.`, "codice_sconosciuto");
    if (row.evasa) return empty(`La riga R${row.id} dell'ordine ${row.numero} è già stata ricevuta per intero.`, "riga_evasa");
    return withArticleTotals(db, row.articolo_id, await loadOrders(db, [row.ordine_id], Prisma.sql`r.id = ${row.id}`));
  }
  const lookup =
    scan.kind === "codice"
      ? Prisma.sql`a.codice = ${scan.codice}`
      : Prisma.sql`a.ean = ANY(${eanCandidates(scan.gtin)}::text[])`;
  const [article] = await db.$queryRaw<{ id: number; codice: string; ha_varianti: boolean; varianti: string[] }[]>`
    SELECT a.id, a.codice, a.ha_varianti,
           ARRAY(SELECT v.codice FROM articoli v WHERE v.modello_id = a.id ORDER BY v.codice) AS varianti
      FROM articoli a WHERE ${lookup} LIMIT 1`;
  const shown = scan.kind === "codice" ? `Il codice ${scan.codice}` : `L'EAN ${scan.gtin}`;
  const lettura = scan.kind === "gs1" ? { lettura: { gtin: scan.gtin, lotto: scan.lotto, scadenza: scan.scadenza } } : {};
  if (!article) return { ...empty(`${shown} non corrisponde a nessun articolo in anagrafica.`, "codice_sconosciuto"), ...lettura };
  if (article.ha_varianti) {
    return {
      ...empty(`${shown} è del modello ${article.codice}, che si riceve per variante: leggere l'EAN della variante (${article.varianti.join(", ")}).`, "non_atteso"),
      ...lettura,
    };
  }
  return { ...(await firstExpectedRow(db, article)), ...lettura };
}

export async function searchExpected(db: Db, input: SearchInput): Promise<SearchOutput> {
  if (input.barcode !== undefined) return searchByBarcode(db, input.barcode);
  if (input.fornitore !== undefined && !(await db.fornitore.findUnique({ where: { id: input.fornitore }, select: { id: true } }))) {
    throw new DomainError("fornitore_non_trovato", `Il fornitore ${input.fornitore} non esiste.`, { campo: "fornitore" });
  }
  if (input.magazzino !== undefined) await assertWarehouses(db, { magazzino: input.magazzino });
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const rowFilters: Prisma.Sql[] = [input.includi_evase ? Prisma.sql`TRUE` : OPEN_ROW];
  if (input.articolo !== undefined) rowFilters.push(Prisma.sql`r.articolo_id = ${input.articolo}`);
  if (input.codice !== undefined) rowFilters.push(Prisma.sql`r.articolo_id = (SELECT id FROM articoli WHERE codice = ${input.codice})`);
  const rowFilter = Prisma.join(rowFilters, " AND ");
  const orderFilters: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (input.fornitore !== undefined) orderFilters.push(Prisma.sql`o.fornitore_id = ${input.fornitore}`);
  if (input.ordine !== undefined) orderFilters.push(Prisma.sql`o.id = ${input.ordine}`);
  if (input.magazzino !== undefined) orderFilters.push(Prisma.sql`o.magazzino_id = ${input.magazzino}`);
  if (input.da !== undefined) orderFilters.push(Prisma.sql`o.data >= ${input.da}::date`);
  if (input.a !== undefined) orderFilters.push(Prisma.sql`o.data <= ${input.a}::date`);
  const matching = Prisma.sql`
    SELECT r.ordine_id FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
     WHERE ${Prisma.join(orderFilters, " AND ")} AND ${rowFilter}`;
  const [totals] = await db.$queryRaw<{ ordini: number; righe: number }[]>`
    SELECT count(DISTINCT ordine_id)::int AS ordini, count(*)::int AS righe FROM (${matching}) m`;
  const page = await db.$queryRaw<{ ordine_id: number }[]>`
    SELECT DISTINCT ordine_id FROM (${matching}) m WHERE ordine_id > ${dopo} ORDER BY ordine_id LIMIT ${limite + 1}`;
  const ids = page.slice(0, limite).map((p) => p.ordine_id);
  const ordini = await loadOrders(db, ids, rowFilter);
  const out: SearchOutput = {
    ordini,
    totale_ordini: totals!.ordini,
    totale_righe: totals!.righe,
    altri: page.length > limite,
    cursore: ids.at(-1) ?? dopo,
  };
  if (ordini.length === 0 && dopo === 0) {
    return { ...out, motivo: "Nessuna merce attesa con questi filtri.", motivo_codice: "non_atteso" };
  }
  return out;
}

// ---------------------------------------------------------------- register

interface LockedRow {
  id: number;
  ordine_id: number;
  numero: string;
  fornitore_id: number;
  articolo_id: number;
  codice: string;
  gestione_lotti: boolean;
  ordinata: Prisma.Decimal;
  arrivata: Prisma.Decimal;
  prezzo: Prisma.Decimal;
}

/**
 * The row lock serialises every arrival and cancellation on one order row, across instances. A
 * request's rows are locked in one statement, in id order (ORDER BY sorts before FOR UPDATE locks), so two
 * multi-row arrivals naming the same rows in different orders queue instead of deadlocking.
 */
async function lockOrderRows(tx: Tx, righe: number[]): Promise<Map<number, LockedRow>> {
  const ids = [...new Set(righe)].sort((a, b) => a - b);
  const rows = await tx.$queryRaw<LockedRow[]>`
    SELECT r.id, r.ordine_id, o.numero, o.fornitore_id, r.articolo_id, a.codice, a.gestione_lotti, r.ordinata, r.arrivata, r.prezzo
      FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id
     WHERE r.id = ANY(${ids}::int[])
     ORDER BY r.id
       FOR UPDATE OF r`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** Moves a row's arrived quantity; the guard and the CHECK make over-receipt impossible even if a lock were missed. */
async function moveArrived(tx: Tx, riga: number, delta: string) {
  const [row] = await tx.$queryRaw<{ arrivata: Prisma.Decimal; ordinata: Prisma.Decimal }[]>`
    UPDATE righe_ordine
       SET arrivata = arrivata + ${delta}::numeric,
           stato = CASE WHEN arrivata + ${delta}::numeric = ordinata THEN 'evasa'
                        WHEN arrivata + ${delta}::numeric = 0 THEN 'aperta' ELSE 'parziale' END
     WHERE id = ${riga} AND arrivata + ${delta}::numeric BETWEEN 0 AND ordinata
    RETURNING arrivata, ordinata`;
  if (!row) throw new Error(`riga ${riga}: aggiornamento della quantità arrivata non applicabile`);
  return { arrivata: canonical(row.arrivata), residua: canonical(new Decimal(row.ordinata.toString()).minus(row.arrivata.toString())) };
}

/** Recomputes order states after their rows moved; the order lock makes concurrent writers see each other. */
async function recomputeOrders(tx: Tx, orderIds: number[]): Promise<Map<number, OrderState>> {
  const ids = [...new Set(orderIds)].sort((a, b) => a - b);
  await tx.$queryRaw`SELECT id FROM ordini_acquisto WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
  const rows = await tx.$queryRaw<{ id: number; stato: OrderState }[]>`
    UPDATE ordini_acquisto o SET stato = s.stato
      FROM (SELECT ordine_id,
                   CASE WHEN bool_and(arrivata = ordinata) THEN 'evaso'
                        WHEN bool_and(arrivata = 0) THEN 'aperto' ELSE 'parziale' END AS stato
              FROM righe_ordine WHERE ordine_id = ANY(${ids}::int[]) GROUP BY ordine_id) s
     WHERE o.id = s.ordine_id
    RETURNING o.id, o.stato`;
  return new Map(rows.map((r) => [r.id, r.stato]));
}

interface Accepted {
  indice: number;
  row: LockedRow;
  quantita: string;
  prezzo: string;
  /** The lot's code as given; its id once the lot is loaded. */
  lottoCodice: string | undefined;
  scadenza: string | undefined;
  lotto: number | null;
  arrivata: string;
  residua: string;
}

/** Checks one row against its locked order row and moves its arrived quantity (the lot comes later, in lot order). */
async function acceptRow(tx: Tx, row: LockedRow | undefined, input: ArrivalRowInput, indice: number): Promise<Accepted> {
  if (!row) throw new RowError("riga_non_trovata", `La riga d'ordine ${input.riga} non esiste: controllare l'etichetta R${input.riga}.`);
  const residua = new Decimal(row.ordinata.toString()).minus(row.arrivata.toString());
  // "The whole remaining quantity" of a complete row is nothing: riga_evasa. An explicit quantity on
  // it is over the remaining quantity like any other: quantita_eccessiva.
  if (residua.isZero() && input.quantita === undefined)
    throw new RowError("riga_evasa", `La riga R${row.id} dell'ordine ${row.numero} è già stata ricevuta per intero.`);
  let quantita = residua.toFixed();
  if (input.quantita !== undefined) {
    const q = quantityFromNumber(input.quantita);
    if (q === null) throw new RowError("quantita_non_valida", `Quantità ${input.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`);
    if (new Decimal(q).gt(residua)) {
      throw new RowError(
        "quantita_eccessiva",
        `Quantità ${canonical(q)} oltre il residuo della riga R${row.id} (${row.codice}, ordine ${row.numero}): ne restano ${canonical(residua)}.`,
      );
    }
    quantita = q;
  }
  if (row.gestione_lotti && input.lotto === undefined)
    throw new RowError("lotto_obbligatorio", `L'articolo ${row.codice} è gestito a lotti: indicare il lotto (e la scadenza, se c'è).`);
  if (!row.gestione_lotti && (input.lotto !== undefined || input.scadenza !== undefined))
    throw new RowError("lotto_non_previsto", `L'articolo ${row.codice} non è gestito a lotti: togliere lotto e scadenza.`);
  let prezzo = canonical(row.prezzo);
  if (input.prezzo !== undefined) {
    const p = priceFromString(input.prezzo);
    if (p === null) throw new RowError("prezzo_non_valido", `Prezzo '${input.prezzo}' non valido: decimale semplice con il punto, al massimo 4 decimali.`);
    prezzo = p;
  }
  const moved = await moveArrived(tx, row.id, quantita);
  // A later row of the same request on the same order row sees this one's quantity.
  row.arrivata = new Prisma.Decimal(moved.arrivata);
  return { indice, row, quantita, prezzo, lottoCodice: input.lotto, scadenza: input.scadenza, lotto: null, ...moved };
}

export async function registerArrivals(
  tx: Tx,
  actor: Actor,
  input: RegisterInput,
  opts: { timeZone: string },
): Promise<WriteResult<RegisterOutput>> {
  const single = input.righe === undefined;
  const rows: ArrivalRowInput[] = input.righe ?? [
    { riga: input.riga!, quantita: input.quantita, lotto: input.lotto, scadenza: input.scadenza, prezzo: input.prezzo },
  ];
  if (rows.length > MAX_ARRIVAL_ROWS) {
    throw new DomainError("troppe_righe", `Al massimo ${MAX_ARRIVAL_ROWS} righe per chiamata: ricevute ${rows.length}.`, { campo: "righe" });
  }
  await assertWarehouses(tx, { magazzino: input.magazzino });
  // Order rows, then lots (lotLockOrder), then balances and orders: the order every writer takes them in.
  const locked = await lockOrderRows(tx, rows.map((r) => r.riga));
  const accepted: Accepted[] = [];
  const refused = new Map<number, RowError>();
  for (const [indice, r] of rows.entries()) {
    try {
      accepted.push(await acceptRow(tx, locked.get(r.riga), r, indice));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      if (single) throw new DomainError(e.codice, e.message, { campo: "riga" });
      refused.set(indice, e);
    }
  }
  const lotted = accepted
    .filter((a) => a.lottoCodice !== undefined)
    .map((a) => ({ a, article: { id: a.row.articolo_id }, lotto: a.lottoCodice, indice: a.indice }))
    .sort(lotLockOrder);
  for (const { a } of lotted) a.lotto = await loadLot(tx, a.row.articolo_id, input.magazzino, a.lottoCodice!, a.scadenza ?? null, a.quantita);

  let operazione: number | null = null;
  let movementIds: number[] = [];
  let states = new Map<number, OrderState>();
  if (accepted.length > 0) {
    operazione = await deliveryNoteOperation(tx, accepted[0]!.row.fornitore_id, input.ddt, actor);
    const ledger: LedgerRow[] = accepted.map((a) => ({
      natura: "carico",
      magazzino: input.magazzino,
      articolo: a.row.articolo_id,
      quantita: a.quantita,
      prezzo: a.prezzo,
      lotto: a.lotto,
      riferimento: { tipo: "riga_ordine", id: a.row.id },
    }));
    ({ ids: movementIds } = await appendToLedger(
      tx,
      { operazione, origine: "arrivo", causale: `DDT ${input.ddt}`, data: businessDate(opts.timeZone), actor },
      ledger,
    ));
    // The arrival price becomes the article's last purchase price (suggested price of POST /movimenti).
    const lastPrice = new Map(accepted.map((a) => [a.row.articolo_id, a.prezzo]));
    const articles = [...lastPrice.keys()].sort((a, b) => a - b);
    await tx.$executeRaw`
      UPDATE articoli a SET ultimo_prezzo_arrivo = p.prezzo
        FROM unnest(${articles}::int[], ${articles.map((id) => lastPrice.get(id)!)}::numeric[]) AS p(id, prezzo)
       WHERE a.id = p.id`;
    states = await recomputeOrders(tx, accepted.map((a) => a.row.ordine_id));
  }

  if (single) {
    const a = accepted[0]!;
    return {
      status: 201,
      body: {
        movimento: movementIds[0]!,
        operazione: operazione!,
        riga: a.row.id,
        arrivata: a.arrivata,
        residua: a.residua,
        ordine: { id: a.row.ordine_id, stato: states.get(a.row.ordine_id)! },
      },
    };
  }
  const byIndex = new Map(accepted.map((a, i) => [a.indice, { a, movimento: movementIds[i]! }]));
  return {
    status: 200,
    body: {
      operazione,
      registrate: accepted.length,
      rifiutate: refused.size,
      righe: rows.map((r, indice) => {
        const ok = byIndex.get(indice);
        if (ok) return { indice, riga: r.riga, esito: "registrata" as const, movimento: ok.movimento, arrivata: ok.a.arrivata, residua: ok.a.residua };
        return { indice, riga: r.riga, esito: "rifiutata" as const, errore: refused.get(indice)!.toBody() };
      }),
    },
  };
}

// ---------------------------------------------------------------- cancel

export async function cancelArrival(tx: Tx, actor: Actor, id: number, opts: { timeZone: string }) {
  const [m] = await tx.$queryRaw<
    { id: number; origine: string; riferimento_tipo: string | null; riferimento_id: number | null; articolo_id: number; magazzino_id: number; quantita: Prisma.Decimal; prezzo: Prisma.Decimal | null; lotto_id: number | null; lotto: string | null; codice: string; utente_id: number | null; data: Date }[]
  >`
    SELECT m.id, m.origine, m.riferimento_tipo, m.riferimento_id, m.articolo_id, m.magazzino_id, m.quantita, m.prezzo,
           m.lotto_id, l.codice AS lotto, a.codice, m.utente_id, m.data
      FROM movimenti m JOIN articoli a ON a.id = m.articolo_id LEFT JOIN lotti l ON l.id = m.lotto_id
     WHERE m.id = ${id}`;
  if (!m || m.origine !== "arrivo" || m.riferimento_tipo !== "riga_ordine" || m.riferimento_id === null) {
    throw new DomainError("non_trovato", `Il movimento ${id} non è un arrivo registrato: indicare l'id del movimento di arrivo.`);
  }
  // An operator corrects their own mistakes of the day; anything older or someone else's is a manager's call.
  if (actor.kind === "utente" && actor.ruolo === "operatore" && (m.utente_id !== actor.id || formatDate(m.data) !== businessDate(opts.timeZone))) {
    throw new DomainError(
      "permesso_negato",
      m.utente_id !== actor.id
        ? `L'arrivo ${id} è stato registrato da un altro utente: può annullarlo solo un responsabile.`
        : `L'arrivo ${id} non è di oggi: un operatore annulla solo i propri arrivi del giorno, chiedere a un responsabile.`,
    );
  }
  const row = (await lockOrderRows(tx, [m.riferimento_id])).get(m.riferimento_id)!;
  const [already] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM movimenti WHERE annulla_id = ${id}`;
  if (already) {
    throw new DomainError("arrivo_gia_annullato", `L'arrivo ${id} è già stato annullato (movimento ${already.id}).`);
  }
  const quantita = canonical(m.quantita);
  if (m.lotto_id !== null) {
    const given = await takeBackFromLot(tx, m.lotto_id, quantita);
    if (!given.ok) {
      throw new DomainError(
        "lotto_consumato",
        `Il lotto '${m.lotto}' di ${m.codice} ha ${given.residua} disponibili: non può restituire i ${quantita} arrivati. Annullare prima gli scarichi o rettificare l'inventario.`,
      );
    }
  }
  const moved = await moveArrived(tx, row.id, `-${quantita}`);
  const {
    ids: [movimento],
  } = await appendToLedger(
    tx,
    { operazione: "nuova", origine: "annullamento", causale: `Annullamento arrivo ${id}`, data: businessDate(opts.timeZone), actor },
    [
      {
        natura: "scarico",
        magazzino: m.magazzino_id,
        articolo: m.articolo_id,
        quantita: `-${quantita}`,
        prezzo: m.prezzo === null ? null : canonical(m.prezzo),
        lotto: m.lotto_id,
        riferimento: { tipo: "riga_ordine", id: row.id },
        annulla: id,
      },
    ],
  );
  const states = await recomputeOrders(tx, [row.ordine_id]);
  return {
    annullato: id,
    movimento: movimento!,
    riga: { riga: row.id, arrivata: moved.arrivata, residua: moved.residua },
    ordine: { id: row.ordine_id, stato: states.get(row.ordine_id)! },
  };
}
