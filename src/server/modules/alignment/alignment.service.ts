import type { Tx } from "../../db/client";
import { execute, rows as all } from "../../db/sql";
import { businessDate } from "../../lib/dates";
import { canonical, countFromNumber, Decimal } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { assertRole, hasRole, type Actor } from "../auth/actor";
import { loadArticles, resolveArticle, type ArticleInfo } from "../catalogue/articles";
import { appendToLedger, lotLockOrder, type LedgerRow } from "../ledger/ledger.service";
import * as q from "./alignment.queries";
import { MAX_ALIGNMENT_ROWS, type AlignInput, type AlignOutput, type AlignRow } from "./alignment.schemas";

/**
 * Inventory alignment (POST /giacenze/allinea): the counted quantity per unit (article, or article and
 * lot) against the current one, the difference written as `correzione` movements. Set-based: a fixed
 * number of statements whatever the row count. Atomic: the balance rows (and lots) are locked before
 * they are read, so a movement racing the alignment waits for it and lands on top of the count.
 */

interface Unit {
  indice: number;
  article: ArticleInfo;
  lotto: string | null;
  contato: string;
}

const unitKey = (articolo: number, lotto: string | null) => `${articolo}\u0000${lotto ?? ""}`;

/**
 * The count as declared, echoed on refused rows too: the JSON number as a canonical decimal string (its
 * shortest round-trip form, so 0.1 stays "0.1", -2 is "-2", 1e21 is written out), even when it is not a
 * valid count; null only for a number with no decimal form (not finite: JSON cannot carry one).
 */
function declared(n: number): string | null {
  return Number.isFinite(n) ? canonical(String(n)) : null;
}

/** Operators count and preview (`simula`); writing the corrections is a manager's decision. */
export function assertMayAlign(actor: Actor, input: Pick<AlignInput, "simula">): void {
  if (!input.simula) assertRole(actor, "responsabile", "La conferma dell'allineamento");
}

/**
 * Blind counts: an operator may not read stock (availability is a manager's screen), so an operator's
 * preview says what it can without it: each row's article, lot and repetition problems, and `contata`
 * for a valid row, with `attuale` and `delta` null (whether a count matches would tell the figure).
 * Managers, administrators and API keys (governed by their scopes) see everything.
 */
export function isBlindPreview(actor: Actor, input: Pick<AlignInput, "simula">): boolean {
  return input.simula === true && !hasRole(actor, "responsabile");
}

export async function alignStock(tx: Tx, actor: Actor, input: AlignInput, opts: { timeZone: string }): Promise<AlignOutput> {
  if (input.righe.length > MAX_ALIGNMENT_ROWS) {
    throw new DomainError(
      "troppe_righe",
      `Al massimo ${MAX_ALIGNMENT_ROWS} righe per chiamata: ricevute ${input.righe.length}. Dividere il conteggio.`,
      {
        campo: "righe",
      },
    );
  }
  const magazzino = input.magazzino;
  const write = input.simula !== true;

  const index = await loadArticles(tx, input.righe, { warehouses: { magazzino } });
  const rows: AlignRow[] = [];
  const units: Unit[] = [];
  input.righe.forEach((r, indice) => {
    const lotto = r.lotto ?? null;
    try {
      const article = resolveArticle(index, { codice: r.codice });
      const contato = countFromNumber(r.contato);
      if (contato === null)
        throw new RowError("quantita_non_valida", `Quantità contata ${r.contato} non valida: zero o più, con al massimo 3 decimali.`);
      if (article.gestione_lotti && lotto === null)
        throw new RowError("lotto_obbligatorio", `L'articolo ${article.codice} è gestito a lotti: contare per lotto e indicare 'lotto'.`);
      if (!article.gestione_lotti && lotto !== null)
        throw new RowError("lotto_non_previsto", `L'articolo ${article.codice} non è gestito a lotti: togliere 'lotto'.`);
      units.push({ indice, article, lotto, contato });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      const known = index.byCode.get(r.codice);
      rows[indice] = {
        indice,
        articolo: known ? { id: known.id, codice: known.codice } : null,
        ...(known ? {} : { codice: r.codice }),
        lotto,
        attuale: null,
        contato: declared(r.contato),
        delta: null,
        esito: "rifiutata",
        errore: e.toBody(),
      };
    }
  });

  // Every occurrence of a repeated unit is refused: which of two counts is right is for a person to say.
  const occurrences = new Map<string, number>();
  for (const u of units) occurrences.set(unitKey(u.article.id, u.lotto), (occurrences.get(unitKey(u.article.id, u.lotto)) ?? 0) + 1);
  const valid = units.filter((u) => {
    if (occurrences.get(unitKey(u.article.id, u.lotto))! === 1) return true;
    rows[u.indice] = {
      indice: u.indice,
      articolo: { id: u.article.id, codice: u.article.codice },
      lotto: u.lotto,
      attuale: null,
      contato: canonical(u.contato),
      delta: null,
      esito: "rifiutata",
      errore: new RowError(
        "articolo_ripetuto",
        `${u.article.codice}${u.lotto ? ` lotto ${u.lotto}` : ""} compare più volte nel conteggio (${occurrences.get(unitKey(u.article.id, u.lotto))} righe): indicarlo una volta sola.`,
      ).toBody(),
    };
    return false;
  });

  if (isBlindPreview(actor, input)) {
    for (const u of valid) {
      rows[u.indice] = {
        indice: u.indice,
        articolo: { id: u.article.id, codice: u.article.codice },
        lotto: u.lotto,
        attuale: null,
        contato: canonical(u.contato),
        delta: null,
        esito: "contata",
      };
    }
    return { operazione: null, scritte: 0, invariate: 0, rifiutate: rows.length - valid.length, righe: rows };
  }

  const plain = valid.filter((u) => u.lotto === null);
  // In lotLockOrder, the order the lock statement below takes them in too.
  const lotted = valid.filter((u) => u.lotto !== null).sort(lotLockOrder);
  const current = new Map<string, { quantita: string; lotId?: number }>();
  const articleIds = [...new Set(valid.map((u) => u.article.id))].sort((a, b) => a - b);

  // Lots before balances, as every writer locks them (a movement takes its lot, then its balances).
  // That includes creating missing rows: a new balance row is held until commit, so creating balances
  // before locking the lots would deadlock with a movement that holds a lot and waits for a balance.
  if (lotted.length > 0) {
    const articoli = lotted.map((u) => u.article.id);
    const codici = lotted.map((u) => u.lotto!);
    // Lots that do not exist yet are created, so that they can be locked like the others.
    if (write) await execute(tx, q.createMissingLots(magazzino, articoli, codici));
    const lots = await all(tx, q.lots(magazzino, articoli, codici, write));
    for (const l of lots) current.set(unitKey(l.articolo_id, l.codice), { quantita: l.residua.toString(), lotId: l.id });
  }
  if (write && articleIds.length > 0) {
    // Likewise the balances that do not exist yet.
    await execute(tx, q.createMissingBalances(magazzino, articleIds));
  }
  if (plain.length > 0 || (write && articleIds.length > 0)) {
    const balances = await all(tx, q.balances(magazzino, write ? articleIds : plain.map((u) => u.article.id), write));
    for (const b of balances)
      if (!current.has(unitKey(b.articolo_id, null))) current.set(unitKey(b.articolo_id, null), { quantita: b.quantita.toString() });
  }

  const ledger: LedgerRow[] = [];
  const ledgerIndex: number[] = [];
  const lotUpdates: { id: number; residua: string }[] = [];
  for (const u of valid) {
    const now = current.get(unitKey(u.article.id, u.lotto));
    const attuale = new Decimal(now?.quantita ?? 0);
    const delta = new Decimal(u.contato).minus(attuale);
    rows[u.indice] = {
      indice: u.indice,
      articolo: { id: u.article.id, codice: u.article.codice },
      lotto: u.lotto,
      attuale: canonical(attuale),
      contato: canonical(u.contato),
      delta: canonical(delta),
      esito: delta.isZero() ? "invariata" : "scritta",
    };
    if (delta.isZero()) continue;
    if (now?.lotId !== undefined) lotUpdates.push({ id: now.lotId, residua: u.contato });
    ledger.push({
      natura: delta.isPositive() ? "carico" : "scarico",
      magazzino,
      articolo: u.article.id,
      quantita: delta.toFixed(),
      prezzo: null,
      lotto: now?.lotId ?? null,
    });
    ledgerIndex.push(u.indice);
  }

  let operazione: number | null = null;
  if (write && ledger.length > 0) {
    if (lotUpdates.length > 0) {
      await execute(
        tx,
        q.setLotResiduals(
          lotUpdates.map((l) => l.id),
          lotUpdates.map((l) => l.residua),
        ),
      );
    }
    const written = await appendToLedger(
      tx,
      {
        operazione: "nuova",
        origine: "correzione",
        causale: input.causale ?? "Allineamento inventario",
        data: businessDate(opts.timeZone),
        actor,
      },
      ledger,
      // The last statement of the alignment: what follows only reads its answer.
      { last: true },
    );
    operazione = written.operazione;
    ledgerIndex.forEach((indice, i) => (rows[indice]!.movimento = written.ids[i]!));
  }
  const count = (esito: AlignRow["esito"]) => rows.filter((r) => r.esito === esito).length;
  return { operazione, scritte: count("scritta"), invariate: count("invariata"), rifiutate: count("rifiutata"), righe: rows };
}
