import { Prisma, type Db, type Tx } from "../../db/client";
import { businessDate, formatDate, formatInstant } from "../../lib/dates";
import { canonical, canonicalOrNull, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { loadArticles, resolveArticle, SUGGESTED_PRICE, type ArticleInfo } from "../catalogue/articles";
import { appendToLedger, loadLot, lockLot, lotLockOrder, operationExists, unloadLot, type LedgerRow } from "../ledger/ledger.service";
import { cutPage, syncBound } from "../lists/lists";
import {
  MAX_MOVEMENT_ROWS,
  type ListMovementsInput,
  type MovementOutput,
  type WriteMovementsInput,
  type WriteMovementsOutput,
} from "./movements.schemas";

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
    if (!(await operationExists(tx, input.operazione, opts.origine))) {
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
      planned.push({ indice, article, quantita, prezzo, lotto: r.lotto, scadenza: r.scadenza });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      outcomes[indice] = { indice, esito: "rifiutata", errore: e.toBody() };
    }
  });

  // Lots first, in lotLockOrder (a transfer: the lower warehouse id first). The ledger keeps the rows' order.
  const lots = new Map<number, { from: number | null; to: number | null }>();
  const lotted = planned.filter((p) => p.lotto !== undefined).sort(lotLockOrder);
  for (const p of lotted) {
    try {
      if (input.natura === "carico") {
        lots.set(p.indice, { from: null, to: await loadLot(tx, p.article.id, input.magazzino, p.lotto!, p.scadenza ?? null, p.quantita) });
      } else if (input.natura === "scarico") {
        lots.set(p.indice, { from: (await unloadLot(tx, p.article, input.magazzino, p.lotto!, p.quantita)).id, to: null });
      } else {
        if (input.magazzino < input.magazzino_origine!) await lockLot(tx, p.article.id, input.magazzino, p.lotto!);
        const source = await unloadLot(tx, p.article, input.magazzino_origine!, p.lotto!, p.quantita);
        const to = await loadLot(
          tx,
          p.article.id,
          input.magazzino,
          p.lotto!,
          source.scadenza ? formatDate(source.scadenza) : null,
          p.quantita,
        );
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
      {
        operazione: input.operazione ?? "nuova",
        origine: opts.origine,
        causale: input.causale ?? null,
        data: businessDate(opts.timeZone),
        actor,
      },
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
