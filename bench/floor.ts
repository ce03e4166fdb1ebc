import type pg from "pg";
import type { Query } from "../src/server/db/sql";
import * as alignmentQueries from "../src/server/modules/ledger/count.queries";
import { eanCandidates } from "../src/lib/barcode";
import * as availabilityQueries from "../src/server/modules/availability/availability.queries";
import * as locationStockQueries from "../src/server/modules/locations/locations-stock.queries";
import { authorColumns, type Actor } from "../src/server/modules/auth/actor";
import { ledgerAppend, lotLockOrder, type LedgerRow } from "../src/server/modules/ledger/ledger.service";
import { SYNC_TABLES } from "../src/server/db/advisory-locks";
import { cutPage } from "../src/server/modules/lists/lists";
import * as listsQueries from "../src/server/modules/lists/lists.queries";
import * as movementsQueries from "../src/server/modules/movements/movements.queries";
import * as arrivals from "../src/server/modules/arrivals/arrivals.queries";
import { canonical, canonicalOrNull, Decimal } from "../src/server/lib/decimal";
import * as masterData from "../src/server/modules/catalogue/master-data.queries";
import * as ledger from "../src/server/modules/ledger/ledger.queries";
import * as locations from "../src/server/modules/ledger/location-balances.queries";
import * as pallets from "../src/server/modules/arrivals/pallets.queries";

/**
 * The floor: the database work of each endpoint, done directly with `pg` (named prepared statements).
 * The statements are the services' own, taken from their modules' `*.queries.ts` (run), in the same
 * order and transactions, without our HTTP, tRPC, authentication, validation and JSON layers.
 * What the floor leaves out on purpose is listed at each function: that difference is "ours".
 */

// ---------------------------------------------------------------- lists

/**
 * Runs a service's statement (its module's `*.queries.ts`) as a named prepared statement: the very
 * text and values the service sends. Through `pg` numeric and bigint columns arrive as strings, not as
 * the Row type's Decimal and bigint: the floor reads them only through Number(), toString() or Decimal.
 */
function run<Row>(c: pg.ClientBase, name: string, statement: Query<Row>) {
  return c.query<Row & pg.QueryResultRow>({ name, text: statement.sql.text, values: statement.sql.values });
}

/** lists.ts syncBound: the highest id a page may show. */
export async function syncBound(c: pg.ClientBase, tag: number, seq: string): Promise<number> {
  const r = await run(c, `bound_${tag}`, listsQueries.syncBound(tag, seq));
  return Number(r.rows[0]?.b ?? 0);
}

/** A page as the scenarios read it. */
type Page = { rows: { id: number }[]; altri: boolean; cursore: number };

/** GET /movimenti page (movements.service.ts listMovements, no filters): bound, then the page. */
export async function movementsPage(c: pg.ClientBase, dopo: number, limite: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.movimenti.tag, SYNC_TABLES.movimenti.seq);
  const r = await run(c, "movements_page", movementsQueries.movementsPage(dopo, {}, limite + 1));
  return cutPage(r.rows, limite, bound, dopo);
}

/** GET /disponibilita page (availability.service.ts listAvailability, no filters): bound, then the page. */
export async function availabilityPage(c: pg.ClientBase, dopo: number, limite: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.articoli.tag, SYNC_TABLES.articoli.seq);
  const r = await run(c, "availability_page", availabilityQueries.availabilityPage(dopo, limite + 1, null, {}));
  return cutPage(
    r.rows.filter((x): x is typeof x & { id: number } => x.id !== null),
    limite,
    bound,
    dopo,
  );
}

/** GET /giacenze-ubicazioni page (locations-stock.service.ts listLocationStock, no filters): bound, then the page. */
export async function locationStockPage(c: pg.ClientBase, magazzino: number, dopo: number, limite: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.giacenze_ubicazioni.tag, SYNC_TABLES.giacenze_ubicazioni.seq);
  const r = await run(c, "location_stock_page", locationStockQueries.locationStockPage(magazzino, dopo, {}, limite + 1));
  return cutPage(
    r.rows.filter((x): x is typeof x & { id: number } => x.id !== null),
    limite,
    bound,
    dopo,
  );
}

// ---------------------------------------------------------------- writes

async function inTransaction<T>(c: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await c.query("BEGIN");
  try {
    const out = await work();
    await c.query("COMMIT");
    return out;
  } catch (e) {
    await c.query("ROLLBACK").catch(() => {});
    throw e;
  }
}

/** Who the floor's writes are authored by: the bench's API key (authorColumns reads kind and id only). */
const benchKey = (id: number): Actor => ({ kind: "chiave", id, nome: "bench", permessi: ["scrittura"] });

/**
 * POST /movimenti, one row without lot (movements.service.ts writeMovements): BEGIN; the ledger's one
 * statement (operation, balance, movement: ledger.service.ts appendToLedger); COMMIT.
 * Left out (ours): the key's authentication and rate-limit statement, the article lookup by code with
 * the warehouse check (the floor is given the id), Prisma's interactive-transaction round trips.
 */
export async function writeMovement(
  c: pg.ClientBase,
  m: { natura: "carico" | "scarico"; magazzino: number; articolo: number; quantita: string; prezzo: string; data: string; chiave: number },
): Promise<number> {
  return inTransaction(c, async () => {
    const signed = m.natura === "carico" ? m.quantita : `-${m.quantita}`;
    const written = await run(
      c,
      "append_ledger",
      ledgerAppend({ operazione: "nuova", origine: "api", causale: null, data: m.data, actor: benchKey(m.chiave) }, [
        { natura: m.natura, magazzino: m.magazzino, articolo: m.articolo, quantita: signed, prezzo: m.prezzo, lotto: null },
      ]),
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
    const written = await run(
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
    );
    return written.rows[0]!.id;
  });
}

/**
 * POST /arrivi, one row (arrivals/register.service.ts registerArrivals), the statements of
 * arrivals.queries.ts and ledger.queries.ts in the service's order: lock the order row, move its arrived
 * quantity, the lot when the article has lots, the delivery note's operation, balance and movement in
 * one statement (appendLedger), the article's last price, then lock and recompute the order. Left out
 * (ours): authentication, the warehouse check, Prisma's transaction round trips.
 */
export async function registerArrival(
  c: pg.ClientBase,
  a: { riga: number; magazzino: number; ddt: string; quantita: string; lotto: string | null; data: string; chiave: number },
): Promise<number> {
  return inTransaction(c, async () => {
    const row = (await run(c, "arrivals.lockOrderRows", arrivals.lockOrderRows([a.riga]))).rows[0];
    if (!row) throw new Error(`riga ${a.riga} inesistente`);
    const moved = await run(c, "arrivals.moveArrived", arrivals.moveArrived(row.id, a.quantita));
    if (moved.rowCount !== 1) throw new Error(`riga ${a.riga}: quantità oltre il residuo`);
    let lotto: number | null = null;
    if (row.gestione_lotti) {
      lotto = (await run(c, "ledger.loadLot", ledger.loadLot(row.articolo_id, a.magazzino, a.lotto ?? "BENCH", null, a.quantita, true)))
        .rows[0]!.id;
    }
    const actor = benchKey(a.chiave);
    const op = (await run(c, "ledger.deliveryNoteOperation", ledger.deliveryNoteOperation(row.fornitore_id, a.ddt, authorColumns(actor))))
      .rows[0]!.id;
    const prezzo = canonical(row.prezzo);
    const mov = await run(
      c,
      "append_ledger",
      ledgerAppend({ operazione: op, origine: "arrivo", causale: `DDT ${a.ddt}`, data: a.data, actor }, [
        {
          natura: "carico",
          magazzino: a.magazzino,
          articolo: row.articolo_id,
          quantita: a.quantita,
          prezzo,
          lotto,
          riferimento: { tipo: "riga_ordine", id: row.id },
        },
      ]),
    );
    await run(c, "arrivals.setLastArrivalPrice", arrivals.setLastArrivalPrice([row.articolo_id], [prezzo]));
    await run(c, "arrivals.lockOrders", arrivals.lockOrders([row.ordine_id]));
    await run(c, "arrivals.recomputeOrders", arrivals.recomputeOrders([row.ordine_id]));
    return mov.rows[0]!.id;
  });
}

/**
 * POST /giacenze/allinea (alignment.service.ts alignStock, writing): the same set-based statements in the
 * same order: articles by code; missing lots created, then the lots locked and read in lot lock order;
 * missing balances created, then locked and read; counted lots set; the ledger's one statement.
 * Left out (ours): authentication, the warehouse check (the service's article lookup does it in the
 * same statement), validation of 10,000 rows, the response of 10,000 rows.
 */
export async function align(
  c: pg.ClientBase,
  input: { magazzino: number; righe: { codice: string; contato: number; lotto?: string }[]; data: string; chiave: number },
): Promise<{ scritte: number; invariate: number }> {
  const magazzino = input.magazzino;
  return inTransaction(c, async () => {
    const codici = [...new Set(input.righe.map((r) => r.codice))];
    const arts = await c.query<{ id: number; codice: string; gestione_lotti: boolean }>({
      name: "load_articles",
      text: `SELECT id, codice, ean, descrizione, gestione_lotti, ha_varianti FROM articoli WHERE codice = ANY($1::text[]) OR ean = ANY($2::text[])`,
      values: [codici, []],
    });
    const byCode = new Map(arts.rows.map((a) => [a.codice, a]));
    const units = input.righe.map((r, indice) => ({
      indice,
      article: byCode.get(r.codice)!,
      lotto: r.lotto ?? null,
      contato: String(r.contato),
    }));
    const plain = units.filter((u) => u.lotto === null);
    const lotted = units.filter((u) => u.lotto !== null).sort(lotLockOrder);
    const articleIds = [...new Set(units.map((u) => u.article.id))].sort((a, b) => a - b);
    const current = new Map<string, { quantita: string; lotId?: number }>();
    const key = (a: number, l: string | null) => `${a}\u0000${l ?? ""}`;
    if (lotted.length > 0) {
      const articoli = lotted.map((u) => u.article.id);
      const lotti = lotted.map((u) => u.lotto!);
      await run(c, "align_missing_lots", alignmentQueries.createMissingLots(magazzino, articoli, lotti));
      const lots = await run(c, "align_lock_lots", alignmentQueries.lots(magazzino, articoli, lotti, true));
      for (const l of lots.rows) current.set(key(l.articolo_id, l.codice), { quantita: l.residua.toString(), lotId: l.id });
    }
    if (articleIds.length > 0) {
      await run(c, "align_missing_balances", alignmentQueries.createMissingBalances(magazzino, articleIds));
    }
    if (plain.length > 0 || articleIds.length > 0) {
      const balances = await run(c, "align_lock_balances", alignmentQueries.balances(magazzino, articleIds, true));
      for (const b of balances.rows)
        if (!current.has(key(b.articolo_id, null))) current.set(key(b.articolo_id, null), { quantita: b.quantita.toString() });
    }

    const ledger: LedgerRow[] = [];
    const lotUpdates: { id: number; residua: string }[] = [];
    let invariate = 0;
    for (const u of units) {
      const now = current.get(key(u.article.id, u.lotto));
      const delta = new Decimal(u.contato).minus(now?.quantita ?? 0);
      if (delta.isZero()) {
        invariate++;
        continue;
      }
      if (now?.lotId !== undefined) lotUpdates.push({ id: now.lotId, residua: u.contato });
      ledger.push({
        natura: delta.isPositive() ? "carico" : "scarico",
        magazzino,
        articolo: u.article.id,
        quantita: delta.toFixed(),
        prezzo: null,
        lotto: now?.lotId ?? null,
      });
    }
    if (ledger.length > 0) {
      if (lotUpdates.length > 0) {
        await run(
          c,
          "align_set_lots",
          alignmentQueries.setLotResiduals(
            lotUpdates.map((l) => l.id),
            lotUpdates.map((l) => l.residua),
          ),
        );
      }
      await run(
        c,
        "append_ledger",
        ledgerAppend(
          {
            operazione: "nuova",
            origine: "correzione",
            causale: "Allineamento inventario",
            data: input.data,
            actor: benchKey(input.chiave),
          },
          ledger,
        ),
      );
    }
    return { scritte: ledger.length, invariate };
  });
}

// ---------------------------------------------------------------- search

/**
 * POST /arrivi/cerca by EAN (arrivals/search.service.ts searchByBarcode → firstExpectedRow → loadOrders →
 * withArticleTotals): the same six statements of arrivals.queries.ts. Left out (ours): authentication,
 * validation, JSON. Returns whether an expected row was found.
 */
export async function searchByEan(c: pg.ClientBase, ean: string): Promise<boolean> {
  const article = (await run(c, "arrivals.scannedArticle.ean", arrivals.scannedArticle({ ean: eanCandidates(ean) }))).rows[0];
  if (!article || article.ha_varianti) return false;
  const first = (await run(c, "arrivals.firstExpectedRow", arrivals.firstExpectedRow(article.id))).rows[0];
  if (!first) return false;
  await run(c, "arrivals.orderHeaders", arrivals.orderHeaders([first.ordine_id]));
  const rows = await run(c, "arrivals.orderRows.rowIs", arrivals.orderRows([first.ordine_id], arrivals.rowIs(first.id)));
  await run(c, "arrivals.standingArrivals", arrivals.standingArrivals(rows.rows.map((r) => r.id)));
  await run(c, "arrivals.articleOpenTotals", arrivals.articleOpenTotals(article.id));
  return true;
}

// ---------------------------------------------------------------- master data

/**
 * POST /articoli, plain articles (catalogue/master-data-upsert.service.ts upsertArticleRows, writer
 * master-data.service.ts writeArticles), the statements of master-data.queries.ts in the service's
 * order: the table's advisory lock, the load by code and EAN, the row locks and one UPDATE of the rows
 * that differ, one INSERT of the new ones. Left out (ours): authentication, the row checks (codes,
 * fields, EAN owners, lots, templates), Prisma's transaction round trips, the JSON of 500 outcomes.
 */
export async function upsertArticles(
  c: pg.ClientBase,
  rows: { codice: string; descrizione: string; ean: string | null; costo: string | null }[],
): Promise<{ creati: number; aggiornati: number }> {
  const run = <R extends pg.QueryResultRow>(name: string, q: { sql: { text: string; values: unknown[] } }) =>
    c.query<R>({ name, text: q.sql.text, values: q.sql.values });
  return inTransaction(c, async () => {
    await run("md_lock", masterData.lockMasterData("articoli"));
    const codes = rows.map((r) => r.codice);
    const eans = rows.flatMap((r) => (r.ean ? [r.ean] : []));
    const loaded = await run<masterData.KnownArticle>("md_load", masterData.articlesByCodeOrEan(codes, eans));
    const known = new Map(loaded.rows.map((a) => [a.codice, a]));
    const fresh = rows.filter((r) => !known.has(r.codice));
    const changed = rows.filter((r) => {
      const k = known.get(r.codice);
      return k !== undefined && (k.descrizione !== r.descrizione || k.ean !== r.ean || canonicalOrNull(k.costo_standard) !== r.costo);
    });
    const cols = (batch: typeof rows) => ({
      descrizione: batch.map((r) => r.descrizione),
      ean: batch.map((r) => r.ean),
      unita: batch.map((r) => known.get(r.codice)?.unita ?? "PZ"),
      gestione_lotti: batch.map((r) => known.get(r.codice)?.gestione_lotti ?? false),
      costo_standard: batch.map((r) => r.costo),
      modello_id: batch.map((r) => known.get(r.codice)?.modello_id ?? null),
      ha_varianti: batch.map((r) => known.get(r.codice)?.ha_varianti ?? false),
      attivo: batch.map((r) => known.get(r.codice)?.attivo ?? true),
      confezione: batch.map((r) => known.get(r.codice)?.confezione ?? "1"),
    });
    if (changed.length > 0) {
      const ids = changed.map((r) => known.get(r.codice)!.id);
      await run("md_lock_rows", masterData.lockArticles(ids));
      await run(
        "md_update",
        masterData.updateArticles(
          ids,
          cols(changed),
          ids.map(() => false),
        ),
      );
    }
    if (fresh.length > 0) await run("md_insert", masterData.insertArticles({ ...cols(fresh), codice: fresh.map((r) => r.codice) }));
    return { creati: fresh.length, aggiornati: changed.length };
  });
}

// ---------------------------------------------------------------- pallets (docs/api.md section 12)

/**
 * POST /colli/{sscc}/ricevi of a pallet without differences: the pallet and its notice locked, its rows, the
 * order rows locked and moved, one delivery-note operation and one append of every row, the last prices, the
 * orders' states, the receipt record. Left out: the per-row checks in JavaScript (lots, expiries, inactive
 * articles) and the warehouse and location gates (the bench's warehouses do not manage locations).
 */
export async function receivePallet(c: pg.ClientBase, p: { sscc: string; ddt: string; data: string; chiave: number }): Promise<void> {
  await inTransaction(c, async () => {
    const pallet = (await run(c, "notices.lockPallet", pallets.lockPallet(p.sscc))).rows[0];
    if (!pallet || pallet.ricevimento_id !== null) throw new Error(`collo ${p.sscc} non ricevibile`);
    const righe = (await run(c, "notices.palletRows", pallets.palletRows(pallet.id))).rows;
    const locked = new Map(
      (
        await run(c, "arrivals.lockOrderRows", arrivals.lockOrderRows([...new Set(righe.map((r) => r.riga))].sort((a, b) => a - b)))
      ).rows.map((r) => [r.id, r]),
    );
    for (const r of righe) {
      const moved = await run(c, "arrivals.moveArrived", arrivals.moveArrived(r.riga, r.quantita));
      if (moved.rowCount !== 1) throw new Error(`riga ${r.riga}: quantità oltre il residuo`);
    }
    const actor = benchKey(p.chiave);
    const op = (
      await run(c, "ledger.deliveryNoteOperation", ledger.deliveryNoteOperation(pallet.fornitore_id, p.ddt, authorColumns(actor)))
    ).rows[0]!.id;
    const rows: LedgerRow[] = righe.map((r) => ({
      natura: "carico",
      magazzino: pallet.magazzino_id,
      articolo: r.articolo_id,
      quantita: r.quantita,
      prezzo: canonical(locked.get(r.riga)!.prezzo),
      lotto: null,
      riferimento: { tipo: "riga_ordine", id: r.riga },
    }));
    const movimenti = (
      await run(
        c,
        "append_ledger_collo",
        ledgerAppend({ operazione: op, origine: "arrivo", causale: `DDT ${p.ddt}`, data: p.data, actor }, rows),
      )
    ).rows.map((m) => m.id);
    const prices = new Map(rows.map((r) => [r.articolo, r.prezzo!]));
    const articles = [...prices.keys()].sort((a, b) => a - b);
    await run(
      c,
      "arrivals.setLastArrivalPrice",
      arrivals.setLastArrivalPrice(
        articles,
        articles.map((a) => prices.get(a)!),
      ),
    );
    const orders = [...new Set([...locked.values()].map((r) => r.ordine_id))].sort((a, b) => a - b);
    await run(c, "arrivals.lockOrders", arrivals.lockOrders(orders));
    await run(c, "arrivals.recomputeOrders", arrivals.recomputeOrders(orders));
    const receipt = (
      await run(
        c,
        "notices.insertReceipt",
        pallets.insertReceipt({ collo: pallet.id, operazione: op, ddt: p.ddt, movimenti, author: authorColumns(actor) }),
      )
    ).rows[0]!.id;
    await run(c, "notices.markReceived", pallets.markReceived(pallet.id, receipt));
    await run(c, "notices.touchNotice", pallets.touchNotice(pallet.avviso_id));
  });
}
