import type pg from "pg";
import { canonical, canonicalOrNull, Decimal } from "../src/server/lib/decimal";
import * as arrivals from "../src/server/modules/arrivals/arrivals.queries";
import { eanCandidates } from "../src/server/modules/arrivals/barcode";
import * as masterData from "../src/server/modules/catalogue/master-data.queries";
import * as ledger from "../src/server/modules/ledger/ledger.queries";

/**
 * The floor: the database work of each endpoint, done directly with `pg` (named prepared statements)
 * in plain SQL. The statements are the ones the services run (src/server/modules/…/…service.ts), in
 * the same order and transactions, without our HTTP, tRPC, authentication, validation and JSON layers.
 * What the floor leaves out on purpose is listed at each function: that difference is "ours".
 */

// ---------------------------------------------------------------- lists

/** lists.ts syncBound: the highest id a page may show. */
export async function syncBound(c: pg.ClientBase, tag: number, seq: string): Promise<number> {
  const r = await c.query<{ b: string | null }>({
    name: `bound_${tag}`,
    text: "SELECT banchina_limite_sync($1, $2::regclass) AS b",
    values: [tag, seq],
  });
  return Number(r.rows[0]?.b ?? 0);
}

/** lists.ts cutPage. */
function cut<T extends { id: number }>(rows: T[], limite: number, bound: number, dopo: number) {
  const visible = rows.filter((r) => r.id <= bound);
  const page = visible.slice(0, limite);
  return { rows: page, altri: rows.length > page.length, cursore: page.at(-1)?.id ?? dopo };
}

const MOVEMENTS_PAGE = `
  SELECT m.id, m.operazione_id, to_char(m.data, 'YYYY-MM-DD') AS data,
         floor(extract(epoch FROM m.registrato_il) * 1000)::float8 AS registrato_ms, m.origine, m.natura, m.causale,
         m.magazzino_id, m.articolo_id, a.codice AS articolo_codice, trim_scale(m.quantita)::text AS quantita,
         trim_scale(m.prezzo)::text AS prezzo, l.codice AS lotto, m.riferimento_tipo, m.riferimento_id, m.annulla_id
    FROM movimenti m
    JOIN articoli a ON a.id = m.articolo_id
    LEFT JOIN lotti l ON l.id = m.lotto_id
   WHERE m.id > $1
   ORDER BY m.id
   LIMIT $2`;

/** GET /movimenti page (movements.service.ts listMovements, no filters): bound, then the page. */
export async function movementsPage(c: pg.ClientBase, dopo: number, limite: number) {
  const bound = await syncBound(c, 1, "movimenti_id_seq");
  const r = await c.query<{ id: number }>({ name: "movements_page", text: MOVEMENTS_PAGE, values: [dopo, limite + 1] });
  return cut(r.rows, limite, bound, dopo);
}

const AVAILABILITY_PAGE = `
  WITH pagina AS (
    SELECT a.id, a.codice, a.descrizione
      FROM articoli a
     WHERE a.id > $1 AND NOT a.ha_varianti
     ORDER BY a.id
     LIMIT $2
  ),
  limiti AS (SELECT $1::int AS primo_escluso, coalesce(max(id), $1) AS ultimo FROM pagina),
  saldi AS (
    SELECT g.articolo_id, g.magazzino_id, g.quantita
      FROM giacenze g, limiti l
     WHERE g.articolo_id > l.primo_escluso AND g.articolo_id <= l.ultimo
  ),
  giacenze_pagina AS (
    SELECT p.id, p.codice, p.descrizione, coalesce(sum(s.quantita), 0) AS giacenza,
           array_agg(w.id ORDER BY w.id) FILTER (WHERE w.id IS NOT NULL) AS magazzini,
           array_agg(trim_scale(coalesce(s.quantita, 0))::text ORDER BY w.id) FILTER (WHERE w.id IS NOT NULL) AS giacenze_magazzini
      FROM pagina p
      LEFT JOIN magazzini w ON true
      LEFT JOIN saldi s ON s.articolo_id = p.id AND s.magazzino_id = w.id
     GROUP BY p.id, p.codice, p.descrizione
  ),
  arrivi AS (
    SELECT r.articolo_id, sum(greatest(r.ordinata - r.arrivata, 0)) AS in_arrivo
      FROM righe_ordine r
      JOIN ordini_acquisto o ON o.id = r.ordine_id
      CROSS JOIN limiti l
     WHERE r.articolo_id > l.primo_escluso AND r.articolo_id <= l.ultimo AND o.stato <> 'evaso'
     GROUP BY r.articolo_id
  )
  SELECT f.magazzino_trovato, g.id, g.codice, g.descrizione, trim_scale(g.giacenza)::text AS giacenza,
         trim_scale(coalesce(r.in_arrivo, 0))::text AS in_arrivo, g.magazzini, g.giacenze_magazzini
    FROM (SELECT $3::int IS NULL OR EXISTS (SELECT 1 FROM magazzini WHERE id = $3::int) AS magazzino_trovato) f
    LEFT JOIN giacenze_pagina g ON f.magazzino_trovato
    LEFT JOIN arrivi r ON r.articolo_id = g.id
   ORDER BY g.id`;

/** GET /disponibilita page (availability.service.ts listAvailability, no filters): bound, then the page. */
export async function availabilityPage(c: pg.ClientBase, dopo: number, limite: number) {
  const bound = await syncBound(c, 4, "articoli_id_seq");
  const r = await c.query<{ id: number | null }>({ name: "availability_page", text: AVAILABILITY_PAGE, values: [dopo, limite + 1, null] });
  return cut(
    r.rows.filter((x): x is { id: number } => x.id !== null),
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

const UPSERT_BALANCE = `
  INSERT INTO giacenze (articolo_id, magazzino_id, quantita) VALUES ($1, $2, $3)
  ON CONFLICT (articolo_id, magazzino_id) DO UPDATE SET quantita = giacenze.quantita + EXCLUDED.quantita, aggiornata_il = now()`;

const INSERT_MOVEMENT = `
  INSERT INTO movimenti (operazione_id, data, origine, natura, causale, magazzino_id, articolo_id, quantita, prezzo, lotto_id,
                         riferimento_tipo, riferimento_id, chiave_api_id)
  VALUES ($1, $2::date, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
  RETURNING id`;

/**
 * POST /movimenti, one row without lot: BEGIN; insert operation; upsert balance; insert movement; COMMIT.
 * Left out (ours): the key's authentication and rate-limit statement, the warehouse check, the article
 * lookup by code (the floor is given the id), Prisma's interactive-transaction round trips.
 */
export async function writeMovement(
  c: pg.ClientBase,
  m: { natura: "carico" | "scarico"; magazzino: number; articolo: number; quantita: string; prezzo: string; data: string; chiave: number },
): Promise<number> {
  return inTransaction(c, async () => {
    const op = await c.query<{ id: number }>({
      name: "insert_operation",
      text: "INSERT INTO operazioni (origine, chiave_api_id, utente_id) VALUES ($1, $2::int, $3::int) RETURNING id",
      values: ["api", m.chiave, null],
    });
    const signed = m.natura === "carico" ? m.quantita : `-${m.quantita}`;
    await c.query({ name: "upsert_balance", text: UPSERT_BALANCE, values: [m.articolo, m.magazzino, signed] });
    const mov = await c.query<{ id: number }>({
      name: "insert_movement",
      text: INSERT_MOVEMENT,
      values: [op.rows[0]!.id, m.data, "api", m.natura, null, m.magazzino, m.articolo, signed, m.prezzo, null, null, null, m.chiave],
    });
    return mov.rows[0]!.id;
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
    const lock = arrivals.lockOrderRows([a.riga]).sql;
    const row = (
      await c.query<{ id: number; ordine_id: number; fornitore_id: number; articolo_id: number; gestione_lotti: boolean; prezzo: string }>({
        name: "arrivals.lockOrderRows",
        text: lock.text,
        values: lock.values,
      })
    ).rows[0];
    if (!row) throw new Error(`riga ${a.riga} inesistente`);
    const move = arrivals.moveArrived(row.id, a.quantita).sql;
    const moved = await c.query({ name: "arrivals.moveArrived", text: move.text, values: move.values });
    if (moved.rowCount !== 1) throw new Error(`riga ${a.riga}: quantità oltre il residuo`);
    let lotto: number | null = null;
    if (row.gestione_lotti) {
      const load = ledger.loadLot(row.articolo_id, a.magazzino, a.lotto ?? "BENCH", null, a.quantita).sql;
      lotto = (await c.query<{ id: number }>({ name: "ledger.loadLot", text: load.text, values: load.values })).rows[0]!.id;
    }
    const author = { chiave_api_id: a.chiave, utente_id: null };
    const note = ledger.deliveryNoteOperation(row.fornitore_id, a.ddt, author).sql;
    const op = (await c.query<{ id: number }>({ name: "ledger.deliveryNoteOperation", text: note.text, values: note.values })).rows[0]!.id;
    const prezzo = canonical(row.prezzo);
    const append = ledger.appendLedger(
      { articolo: [row.articolo_id], magazzino: [a.magazzino], delta: [new Decimal(0).plus(a.quantita).toFixed()] },
      { nuova: false, id: op, origine: "arrivo", causale: `DDT ${a.ddt}`, data: a.data, author },
      {
        natura: ["carico"],
        magazzino: [a.magazzino],
        articolo: [row.articolo_id],
        quantita: [a.quantita],
        prezzo: [prezzo],
        lotto: [lotto],
        rif_tipo: ["riga_ordine"],
        rif_id: [row.id],
        annulla: [null],
      },
    ).sql;
    const mov = await c.query<{ id: number }>({ name: "ledger.appendLedger", text: append.text, values: append.values });
    const price = arrivals.setLastArrivalPrice([row.articolo_id], [prezzo]).sql;
    await c.query({ name: "arrivals.setLastArrivalPrice", text: price.text, values: price.values });
    const lockOrders = arrivals.lockOrders([row.ordine_id]).sql;
    await c.query({ name: "arrivals.lockOrders", text: lockOrders.text, values: lockOrders.values });
    const recompute = arrivals.recomputeOrders([row.ordine_id]).sql;
    await c.query({ name: "arrivals.recomputeOrders", text: recompute.text, values: recompute.values });
    return mov.rows[0]!.id;
  });
}

/**
 * POST /giacenze/allinea (alignment.service.ts alignStock): the same set-based statements: articles by
 * code, missing balance and lot rows created, lots then balances locked and read, lots set, one
 * operation, balances moved, the corrections inserted. Left out (ours): authentication, the warehouse
 * check, validation of 10,000 rows, the response of 10,000 rows.
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
    const units = input.righe.map((r) => ({ article: byCode.get(r.codice)!, lotto: r.lotto ?? null, contato: String(r.contato) }));
    const plain = units.filter((u) => u.lotto === null);
    const lotted = units.filter((u) => u.lotto !== null);
    const articleIds = [...new Set(units.map((u) => u.article.id))].sort((a, b) => a - b);
    await c.query({
      name: "align_missing_balances",
      text: `INSERT INTO giacenze (articolo_id, magazzino_id, quantita) SELECT id, $1, 0 FROM unnest($2::int[]) AS id ON CONFLICT DO NOTHING`,
      values: [magazzino, articleIds],
    });
    const current = new Map<string, { quantita: string; lotId?: number }>();
    const key = (a: number, l: string | null) => `${a}\u0000${l ?? ""}`;
    if (lotted.length > 0) {
      await c.query({
        name: "align_missing_lots",
        text: `INSERT INTO lotti (articolo_id, magazzino_id, codice, residua)
               SELECT a, $1, c, 0 FROM unnest($2::int[], $3::text[]) AS t(a, c) ON CONFLICT DO NOTHING`,
        values: [magazzino, lotted.map((u) => u.article.id), lotted.map((u) => u.lotto!)],
      });
      const lots = await c.query<{ id: number; articolo_id: number; codice: string; residua: string }>({
        name: "align_lock_lots",
        text: `SELECT l.id, l.articolo_id, l.codice, l.residua FROM lotti l
                 JOIN unnest($2::int[], $3::text[]) AS t(a, c) ON l.articolo_id = t.a AND l.codice = t.c
                WHERE l.magazzino_id = $1
                ORDER BY l.id
                FOR UPDATE OF l`,
        values: [magazzino, lotted.map((u) => u.article.id), lotted.map((u) => u.lotto!)],
      });
      for (const l of lots.rows) current.set(key(l.articolo_id, l.codice), { quantita: l.residua, lotId: l.id });
    }
    const balances = await c.query<{ articolo_id: number; quantita: string }>({
      name: "align_lock_balances",
      text: `SELECT articolo_id, quantita FROM giacenze WHERE magazzino_id = $1 AND articolo_id = ANY($2::int[]) ORDER BY articolo_id FOR UPDATE`,
      values: [magazzino, articleIds],
    });
    for (const b of balances.rows)
      if (!current.has(key(b.articolo_id, null))) current.set(key(b.articolo_id, null), { quantita: b.quantita });

    const ledger: { natura: string; articolo: number; quantita: string; lotto: number | null }[] = [];
    const lotUpdates: { id: number; residua: string }[] = [];
    let invariate = 0;
    for (const u of [...plain, ...lotted]) {
      const now = current.get(key(u.article.id, u.lotto));
      const delta = new Decimal(u.contato).minus(now?.quantita ?? 0);
      if (delta.isZero()) {
        invariate++;
        continue;
      }
      if (now?.lotId !== undefined) lotUpdates.push({ id: now.lotId, residua: u.contato });
      ledger.push({
        natura: delta.isPositive() ? "carico" : "scarico",
        articolo: u.article.id,
        quantita: delta.toFixed(),
        lotto: now?.lotId ?? null,
      });
    }
    if (ledger.length > 0) {
      if (lotUpdates.length > 0) {
        await c.query({
          name: "align_set_lots",
          text: `UPDATE lotti l SET residua = v.residua FROM unnest($1::int[], $2::numeric[]) AS v(id, residua) WHERE l.id = v.id`,
          values: [lotUpdates.map((l) => l.id), lotUpdates.map((l) => l.residua)],
        });
      }
      const op = await c.query<{ id: number }>({
        name: "insert_operation",
        text: "INSERT INTO operazioni (origine, chiave_api_id, utente_id) VALUES ($1, $2::int, $3::int) RETURNING id",
        values: ["correzione", input.chiave, null],
      });
      // movements.service.ts appendToLedger: balances in key order, then the movements in one statement.
      const deltas = new Map<string, Decimal>();
      for (const r of ledger) {
        const k = `${r.articolo}:${magazzino}`;
        deltas.set(k, (deltas.get(k) ?? new Decimal(0)).plus(r.quantita));
      }
      const keys = [...deltas.keys()].sort();
      await c.query({
        name: "append_balances",
        text: `INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
               SELECT * FROM unnest($1::int[], $2::int[], $3::numeric[])
               ON CONFLICT (articolo_id, magazzino_id) DO UPDATE
                 SET quantita = giacenze.quantita + EXCLUDED.quantita, aggiornata_il = now()`,
        values: [
          keys.map((k) => Number(k.split(":")[0])),
          keys.map((k) => Number(k.split(":")[1])),
          keys.map((k) => deltas.get(k)!.toFixed()),
        ],
      });
      await c.query({
        name: "append_movements",
        text: `INSERT INTO movimenti (operazione_id, data, origine, natura, causale, magazzino_id, articolo_id, quantita,
                                      prezzo, lotto_id, riferimento_tipo, riferimento_id, annulla_id, chiave_api_id, utente_id)
               SELECT $1, $2::date, $3, natura, $4, $5, articolo, quantita, NULL, lotto, NULL, NULL, NULL, $6::int, NULL::int
                 FROM unnest($7::text[], $8::int[], $9::numeric[], $10::int[]) WITH ORDINALITY AS t(natura, articolo, quantita, lotto, ord)
                ORDER BY ord
               RETURNING id`,
        values: [
          op.rows[0]!.id,
          input.data,
          "correzione",
          "Allineamento inventario",
          magazzino,
          input.chiave,
          ledger.map((l) => l.natura),
          ledger.map((l) => l.articolo),
          ledger.map((l) => l.quantita),
          ledger.map((l) => l.lotto),
        ],
      });
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
  const scanned = arrivals.scannedArticle({ ean: eanCandidates(ean) }).sql;
  const article = (
    await c.query<{ id: number; codice: string; ha_varianti: boolean }>({
      name: "arrivals.scannedArticle.ean",
      text: scanned.text,
      values: scanned.values,
    })
  ).rows[0];
  if (!article || article.ha_varianti) return false;
  const expected = arrivals.firstExpectedRow(article.id).sql;
  const first = (
    await c.query<{ ordine_id: number; id: number }>({ name: "arrivals.firstExpectedRow", text: expected.text, values: expected.values })
  ).rows[0];
  if (!first) return false;
  const orders = arrivals.orderHeaders([first.ordine_id]).sql;
  await c.query({ name: "arrivals.orderHeaders", text: orders.text, values: orders.values });
  const orderRows = arrivals.orderRows([first.ordine_id], arrivals.rowIs(first.id)).sql;
  const rows = await c.query<{ id: number }>({ name: "arrivals.orderRows.rowIs", text: orderRows.text, values: orderRows.values });
  const standing = arrivals.standingArrivals(rows.rows.map((r) => r.id)).sql;
  await c.query({ name: "arrivals.standingArrivals", text: standing.text, values: standing.values });
  const totals = arrivals.articleOpenTotals(article.id).sql;
  await c.query({ name: "arrivals.articleOpenTotals", text: totals.text, values: totals.values });
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
    });
    if (changed.length > 0) {
      const ids = changed.map((r) => known.get(r.codice)!.id);
      await run("md_lock_rows", masterData.lockArticles(ids));
      await run("md_update", masterData.updateArticles(ids, cols(changed)));
    }
    if (fresh.length > 0) await run("md_insert", masterData.insertArticles({ ...cols(fresh), codice: fresh.map((r) => r.codice) }));
    return { creati: fresh.length, aggiornati: changed.length };
  });
}
