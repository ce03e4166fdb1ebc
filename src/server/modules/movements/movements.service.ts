import { Prisma, type Db, type Tx } from "../../db/client";
import { businessDate, formatDate, formatInstant } from "../../lib/dates";
import { canonical, canonicalOrNull, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { authorColumns, type Actor } from "../auth/actor";
import {
  assertWarehousesFound,
  loadArticles,
  resolveArticle,
  SUGGESTED_PRICE,
  warehouseIds,
  type ArticleInfo,
  type WarehouseFields,
} from "../catalogue/articles";
import { cutPage, syncBound } from "../lists/lists";
import {
  MAX_MOVEMENT_ROWS,
  type ListMovementsInput,
  type MovementOutput,
  type WriteMovementsInput,
  type WriteMovementsOutput,
} from "./movements.schemas";

type Origine = MovementOutput["origine"];

/** One movement to append to the ledger. */
export interface LedgerRow {
  natura: "carico" | "scarico" | "trasferimento";
  magazzino: number;
  articolo: number;
  /** Signed quantity, exact decimal string. */
  quantita: string;
  prezzo: string | null;
  lotto: number | null;
  riferimento?: { tipo: "riga_ordine" | "documento_vendita" | "movimento"; id: number };
  annulla?: number;
}

export interface LedgerContext {
  /** An existing operation, or "nuova": created in the same statement as the movements. */
  operazione: number | "nuova";
  origine: Origine;
  causale: string | null;
  data: string;
  actor: Actor;
}

/**
 * Appends movements and moves the balances with them, in the caller's transaction, in ONE statement:
 * the balance upsert, the operation (when new) and the movements are data-modifying CTEs. The
 * movements are inserted last: the sync gate (see the migrations) is held only from here to commit.
 * Balance keys are sorted so that concurrent writers lock them in one order.
 */
export async function appendToLedger(tx: Tx, ctx: LedgerContext, rows: LedgerRow[]): Promise<{ operazione: number; ids: number[] }> {
  if (rows.length === 0) throw new Error("appendToLedger: nessun movimento da scrivere");
  const deltas = new Map<string, { articolo: number; magazzino: number; delta: Decimal }>();
  for (const r of rows) {
    const key = `${r.articolo}:${r.magazzino}`;
    const d = deltas.get(key) ?? { articolo: r.articolo, magazzino: r.magazzino, delta: new Decimal(0) };
    deltas.set(key, { ...d, delta: d.delta.plus(r.quantita) });
  }
  // Numeric (article, warehouse) order, the order the alignment locks balances in.
  const keys = [...deltas.values()].sort((a, b) => a.articolo - b.articolo || a.magazzino - b.magazzino);
  const author = authorColumns(ctx.actor);
  const nuova = ctx.operazione === "nuova";
  const inserted = await tx.$queryRaw<{ id: number; operazione_id: number }[]>`
    WITH saldi AS (
      INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
      SELECT * FROM unnest(${keys.map((k) => k.articolo)}::int[], ${keys.map((k) => k.magazzino)}::int[],
                           ${keys.map((k) => k.delta.toFixed())}::numeric[])
      ON CONFLICT (articolo_id, magazzino_id) DO UPDATE
        SET quantita = giacenze.quantita + EXCLUDED.quantita, aggiornata_il = now()
    ), op AS (
      INSERT INTO operazioni (origine, chiave_api_id, utente_id)
      SELECT ${ctx.origine}, ${author.chiave_api_id}::int, ${author.utente_id}::int WHERE ${nuova}
      RETURNING id
    )
    INSERT INTO movimenti (operazione_id, data, origine, natura, causale, magazzino_id, articolo_id, quantita,
                           prezzo, lotto_id, riferimento_tipo, riferimento_id, annulla_id, chiave_api_id, utente_id)
    SELECT COALESCE((SELECT id FROM op), ${nuova ? null : ctx.operazione}::int), ${ctx.data}::date, ${ctx.origine}, natura,
           ${ctx.causale}, magazzino, articolo, quantita, prezzo, lotto, rif_tipo, rif_id, annulla,
           ${author.chiave_api_id}::int, ${author.utente_id}::int
      FROM unnest(${rows.map((r) => r.natura)}::text[], ${rows.map((r) => r.magazzino)}::int[],
                  ${rows.map((r) => r.articolo)}::int[], ${rows.map((r) => r.quantita)}::numeric[],
                  ${rows.map((r) => r.prezzo)}::numeric[], ${rows.map((r) => r.lotto)}::int[],
                  ${rows.map((r) => r.riferimento?.tipo ?? null)}::text[], ${rows.map((r) => r.riferimento?.id ?? null)}::int[],
                  ${rows.map((r) => r.annulla ?? null)}::int[])
           WITH ORDINALITY AS t(natura, magazzino, articolo, quantita, prezzo, lotto, rif_tipo, rif_id, annulla, ord)
     ORDER BY ord
    RETURNING id, operazione_id`;
  // One statement in one session draws its ids in insertion order.
  return { operazione: inserted[0]!.operazione_id, ids: inserted.map((r) => r.id).sort((a, b) => a - b) };
}

export async function createOperation(tx: Tx, origine: Origine, actor: Actor): Promise<number> {
  const author = authorColumns(actor);
  const [row] = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO operazioni (origine, chiave_api_id, utente_id)
    VALUES (${origine}, ${author.chiave_api_id}::int, ${author.utente_id}::int) RETURNING id`;
  return row!.id;
}

export async function assertWarehouses(db: Db, fields: WarehouseFields): Promise<void> {
  const found = await db.$queryRaw<{ id: number }[]>`SELECT id FROM magazzini WHERE id = ANY(${warehouseIds(fields)}::int[])`;
  assertWarehousesFound(fields, new Set(found.map((r) => r.id)));
}

/**
 * The one order in which every writer takes lots (movements, sales, arrivals, the alignment): article,
 * then lot code by code points (as SQL's COLLATE "C"), then row; a transfer, which touches the lot in
 * two warehouses, takes the lower warehouse id first. Two requests on the same lots then queue instead
 * of deadlocking, whatever the order of their rows or the direction of their transfers.
 */
export function lotLockOrder(a: { article: { id: number }; lotto?: string | null; indice: number }, b: typeof a): number {
  const x = a.lotto ?? "";
  const y = b.lotto ?? "";
  return a.article.id - b.article.id || (x < y ? -1 : x > y ? 1 : 0) || a.indice - b.indice;
}

/** Takes the lot's row lock, when the lot exists (a transfer's destination sorted before its source). */
async function lockLot(tx: Tx, articolo: number, magazzino: number, codice: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM lotti WHERE articolo_id = ${articolo} AND magazzino_id = ${magazzino} AND codice = ${codice} FOR UPDATE`;
}

/** Lot given back or taken: the lot's residual moves with a guard, so it never goes negative. */
export async function unloadLot(tx: Tx, article: ArticleInfo, magazzino: number, codice: string, quantita: string) {
  const [lot] = await tx.$queryRaw<{ id: number; scadenza: Date | null }[]>`
    UPDATE lotti SET residua = residua - ${quantita}::numeric
     WHERE articolo_id = ${article.id} AND magazzino_id = ${magazzino} AND codice = ${codice}
       AND residua >= ${quantita}::numeric
    RETURNING id, scadenza`;
  if (lot) return lot;
  const [existing] = await tx.$queryRaw<{ residua: Prisma.Decimal }[]>`
    SELECT residua FROM lotti WHERE articolo_id = ${article.id} AND magazzino_id = ${magazzino} AND codice = ${codice}`;
  if (!existing) {
    throw new RowError("lotto_non_trovato", `Il lotto '${codice}' di ${article.codice} non esiste nel magazzino ${magazzino}.`);
  }
  throw new RowError(
    "lotto_insufficiente",
    `Il lotto '${codice}' di ${article.codice} nel magazzino ${magazzino} ha ${canonical(existing.residua)} disponibili: richiesti ${canonical(quantita)}.`,
  );
}

/** Creates the lot, or tops it up; an existing lot keeps its expiry unless it had none. */
export async function loadLot(
  tx: Tx,
  articolo: number,
  magazzino: number,
  codice: string,
  scadenza: string | null,
  quantita: string,
): Promise<number> {
  const [lot] = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO lotti (articolo_id, magazzino_id, codice, scadenza, residua)
    VALUES (${articolo}, ${magazzino}, ${codice}, ${scadenza}::date, ${quantita}::numeric)
    ON CONFLICT (articolo_id, magazzino_id, codice) DO UPDATE
      SET residua = lotti.residua + EXCLUDED.residua, scadenza = COALESCE(lotti.scadenza, EXCLUDED.scadenza)
    RETURNING id`;
  return lot!.id;
}

/** Suggested purchase prices of the given articles (SUGGESTED_PRICE), by article id. */
export async function suggestedPrices(db: Db, articleIds: number[]): Promise<Map<number, string | null>> {
  if (articleIds.length === 0) return new Map();
  const rows = await db.$queryRaw<{ id: number; prezzo: Prisma.Decimal | null }[]>`
    SELECT a.id, ${SUGGESTED_PRICE} AS prezzo FROM articoli a WHERE a.id = ANY(${articleIds}::int[])`;
  return new Map(rows.map((r) => [r.id, canonicalOrNull(r.prezzo)]));
}

interface PlannedRow {
  indice: number;
  article: ArticleInfo;
  quantita: string;
  prezzo: string | undefined;
  lotto: string | undefined;
  scadenza: string | undefined;
}

/** POST /movimenti and the screens' manual movement: loads, unloads, transfers, with per-row outcomes. */
export async function writeMovements(
  tx: Tx,
  actor: Actor,
  input: WriteMovementsInput,
  opts: { timeZone: string; origine: "api" | "schermo" },
): Promise<WriteMovementsOutput> {
  if (input.righe.length > MAX_MOVEMENT_ROWS) {
    throw new DomainError("troppe_righe", `Al massimo ${MAX_MOVEMENT_ROWS} righe per chiamata: ricevute ${input.righe.length}.`, {
      campo: "righe",
    });
  }
  const index = await loadArticles(tx, input.righe, {
    withPrice: input.righe.some((r) => r.prezzo === undefined),
    warehouses: { magazzino: input.magazzino, magazzino_origine: input.magazzino_origine },
  });
  if (input.operazione !== undefined) {
    const [op] = await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM operazioni WHERE id = ${input.operazione} AND origine = ${opts.origine}`;
    if (!op) {
      throw new DomainError(
        "operazione_non_trovata",
        `L'operazione ${input.operazione} non esiste o non è stata scritta da questa interfaccia: ometterla per aprirne una nuova.`,
        { campo: "operazione" },
      );
    }
  }

  const outcomes: WriteMovementsOutput["righe"] = [];
  const planned: PlannedRow[] = [];
  input.righe.forEach((r, indice) => {
    try {
      const article = resolveArticle(index, r);
      const quantita = quantityFromNumber(r.quantita);
      if (quantita === null) {
        throw new RowError("quantita_non_valida", `Quantità ${r.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`);
      }
      let prezzo: string | undefined;
      if (r.prezzo !== undefined) {
        const p = priceFromString(r.prezzo);
        if (p === null) {
          throw new RowError("prezzo_non_valido", `Prezzo '${r.prezzo}' non valido: scrivere un decimale semplice con il punto, al massimo 4 decimali (es. "12.50").`);
        }
        prezzo = p;
      }
      if (article.gestione_lotti && r.lotto === undefined) {
        throw new RowError("lotto_obbligatorio", `L'articolo ${article.codice} è gestito a lotti: indicare 'lotto'.`);
      }
      if (!article.gestione_lotti && (r.lotto !== undefined || r.scadenza !== undefined)) {
        throw new RowError("lotto_non_previsto", `L'articolo ${article.codice} non è gestito a lotti: togliere 'lotto' e 'scadenza'.`);
      }
      planned.push({ indice, article, quantita, prezzo, lotto: r.lotto, scadenza: r.scadenza });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
    }
  });

  // Lots first, in lotLockOrder (a transfer: the lower warehouse id first). The ledger keeps the rows' order.
  const lots = new Map<number, { from: number | null; to: number | null }>();
  const lotted = planned
    .filter((p) => p.lotto !== undefined)
    .sort(lotLockOrder);
  for (const p of lotted) {
    try {
      if (input.natura === "carico") {
        lots.set(p.indice, { from: null, to: await loadLot(tx, p.article.id, input.magazzino, p.lotto!, p.scadenza ?? null, p.quantita) });
      } else if (input.natura === "scarico") {
        lots.set(p.indice, { from: (await unloadLot(tx, p.article, input.magazzino, p.lotto!, p.quantita)).id, to: null });
      } else {
        if (input.magazzino < input.magazzino_origine!) await lockLot(tx, p.article.id, input.magazzino, p.lotto!);
        const source = await unloadLot(tx, p.article, input.magazzino_origine!, p.lotto!, p.quantita);
        const to = await loadLot(tx, p.article.id, input.magazzino, p.lotto!, source.scadenza ? formatDate(source.scadenza) : null, p.quantita);
        lots.set(p.indice, { from: source.id, to });
      }
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      outcomes[p.indice] = { indice: p.indice, esito: "rifiutata", errore: e.toBody() };
    }
  }

  const ledger: LedgerRow[] = [];
  const ledgerOf: { indice: number; first: number; count: number }[] = [];
  for (const p of planned) {
    if (outcomes[p.indice]) continue;
    const lot = lots.get(p.indice) ?? { from: null, to: null };
    const prezzo = p.prezzo ?? canonicalOrNull(p.article.prezzo_suggerito);
    const base = { natura: input.natura, articolo: p.article.id, prezzo } as const;
    const rows: LedgerRow[] =
      input.natura === "carico"
        ? [{ ...base, magazzino: input.magazzino, quantita: p.quantita, lotto: lot.to }]
        : input.natura === "scarico"
          ? [{ ...base, magazzino: input.magazzino, quantita: `-${p.quantita}`, lotto: lot.from }]
          : [
              { ...base, magazzino: input.magazzino_origine!, quantita: `-${p.quantita}`, lotto: lot.from },
              { ...base, magazzino: input.magazzino, quantita: p.quantita, lotto: lot.to },
            ];
    ledgerOf.push({ indice: p.indice, first: ledger.length, count: rows.length });
    ledger.push(...rows);
  }

  let operazione: number | null = null;
  if (ledger.length > 0) {
    const written = await appendToLedger(
      tx,
      { operazione: input.operazione ?? "nuova", origine: opts.origine, causale: input.causale ?? null, data: businessDate(opts.timeZone), actor },
      ledger,
    );
    operazione = written.operazione;
    const ids = written.ids;
    for (const w of ledgerOf) {
      outcomes[w.indice] =
        w.count === 2
          ? { indice: w.indice, esito: "scritta", movimento: ids[w.first + 1]!, movimento_origine: ids[w.first]!, operazione }
          : { indice: w.indice, esito: "scritta", movimento: ids[w.first]!, operazione };
    }
  }
  const scritte = outcomes.filter((o) => o.esito === "scritta").length;
  return { operazione, scritte, rifiutate: outcomes.length - scritte, righe: outcomes };
}

/** A movement as the list reads it: decimals and the date leave the database in the contract's form. */
interface MovementRow {
  id: number;
  operazione_id: number;
  /** YYYY-MM-DD. */
  data: string;
  /** Milliseconds since the epoch: formatted in the service zone without a Date per row. */
  registrato_ms: number;
  origine: MovementOutput["origine"];
  natura: MovementOutput["natura"];
  causale: string | null;
  magazzino_id: number;
  articolo_id: number;
  articolo_codice: string;
  /** Canonical decimals (`trim_scale(…)::text`, as in availability.service.ts). */
  quantita: string;
  prezzo: string | null;
  lotto: string | null;
  riferimento_tipo: "riga_ordine" | "documento_vendita" | "movimento" | null;
  riferimento_id: number | null;
  annulla_id: number | null;
}

function toMovementOutput(r: MovementRow, timeZone: string): MovementOutput {
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
    riferimento: r.riferimento_tipo && r.riferimento_id !== null ? { tipo: r.riferimento_tipo, id: r.riferimento_id } : null,
    annulla: r.annulla_id,
  };
}

/** GET /movimenti: every movement, any channel, in id order, complete under concurrent writers. */
export async function listMovements(db: Db, input: ListMovementsInput, timeZone: string) {
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const bound = await syncBound(db, "movimenti");
  const filters: Prisma.Sql[] = [Prisma.sql`m.id > ${dopo}`];
  if (input.da) filters.push(Prisma.sql`m.data >= ${input.da}::date`);
  if (input.a) filters.push(Prisma.sql`m.data <= ${input.a}::date`);
  if (input.articolo !== undefined) filters.push(Prisma.sql`m.articolo_id = ${input.articolo}`);
  if (input.magazzino !== undefined) filters.push(Prisma.sql`m.magazzino_id = ${input.magazzino}`);
  if (input.origine !== undefined) filters.push(Prisma.sql`m.origine = ${input.origine}`);
  if (input.operazione !== undefined) filters.push(Prisma.sql`m.operazione_id = ${input.operazione}`);
  const rows = await db.$queryRaw<MovementRow[]>`
    SELECT m.id, m.operazione_id, to_char(m.data, 'YYYY-MM-DD') AS data,
           floor(extract(epoch FROM m.registrato_il) * 1000)::float8 AS registrato_ms, m.origine, m.natura, m.causale,
           m.magazzino_id, m.articolo_id, a.codice AS articolo_codice, trim_scale(m.quantita)::text AS quantita,
           trim_scale(m.prezzo)::text AS prezzo, l.codice AS lotto, m.riferimento_tipo, m.riferimento_id, m.annulla_id
      FROM movimenti m
      JOIN articoli a ON a.id = m.articolo_id
      LEFT JOIN lotti l ON l.id = m.lotto_id
     WHERE ${Prisma.join(filters, " AND ")}
     ORDER BY m.id
     LIMIT ${limite + 1}`;
  const cut = cutPage(rows, limite, bound, dopo);
  return { movimenti: cut.rows.map((r) => toMovementOutput(r, timeZone)), altri: cut.altri, cursore: cut.cursore };
}
