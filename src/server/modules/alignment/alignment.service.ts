import type { Tx } from "../../db/client";
import { businessDate } from "../../lib/dates";
import { canonical, countFromNumber, Decimal } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { checkRows } from "../../lib/rows";
import { assertRole, hasRole, type Actor } from "../auth/actor";
import { loadArticles, resolveArticle } from "../catalogue/articles";
import { type StockIntent, writeStock } from "../ledger/stock-writer";
import { countedLocations, implicitUnits, readCurrent, unitKey, type Unit } from "./alignment-stock";
import { alignRowInput, MAX_ALIGNMENT_ROWS, type AlignInput, type AlignOutput, type AlignRow } from "./alignment.schemas";

/**
 * Inventory alignment (POST /giacenze/allinea): the counted quantity per unit (article, or article and
 * lot; in a warehouse with locations, and location) against the current one, the difference written as
 * `correzione` movements. Set-based outside locations: a fixed number of statements whatever the row
 * count (location stock moves one statement per changed unit, through the ledger's loadLocation /
 * unloadLocation). Atomic: the rows compared are locked before they are read (alignment-stock.ts), so a
 * movement racing the alignment waits for it and lands on top of the count.
 */

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
  const checked = checkRows(input.righe, alignRowInput);
  const wellFormed = checked.rows.map((c) => c.row);
  // A malformed row's article, when its code can be read: a complete count does not zero what it meant to count.
  const malformedCodes = [...checked.refused.keys()].flatMap((i) => {
    const codice = input.righe[i]?.codice;
    return typeof codice === "string" && codice.trim() !== "" ? [codice.trim()] : [];
  });
  // The warehouse's gate with the articles (lock order 1a), then the counted locations' gates (1b).
  const index = await loadArticles(tx, [...wellFormed, ...malformedCodes.map((codice) => ({ codice }))], { warehouses: { magazzino } });
  const where = await countedLocations(tx, index.magazzini, input, wellFormed, write);
  const rows: AlignRow[] = [];
  const units: Unit[] = [];
  // Articles of refused rows counted in the location counted as a whole: not zeroed by it.
  const refusedInWhole = new Set<number>();
  for (const [indice, e] of checked.refused) {
    const raw = input.righe[indice]!;
    const known = typeof raw.codice === "string" ? index.byCode.get(raw.codice.trim()) : undefined;
    if (known && where.whole) refusedInWhole.add(known.id);
    rows[indice] = {
      indice,
      articolo: known ? { id: known.id, codice: known.codice } : null,
      ...(known || typeof raw.codice !== "string" ? {} : { codice: raw.codice }),
      lotto: typeof raw.lotto === "string" ? raw.lotto : null,
      ubicazione: typeof raw.ubicazione === "string" ? raw.ubicazione : (input.ubicazione ?? null),
      attuale: null,
      contato: typeof raw.contato === "number" ? declared(raw.contato) : null,
      delta: null,
      esito: "rifiutata",
      errore: e.toBody(),
    };
  }
  checked.rows.forEach(({ indice, row: r }, i) => {
    const lotto = r.lotto ?? null;
    const ubicazione = where.rows[i]!;
    try {
      const article = resolveArticle(index, { codice: r.codice });
      const contato = countFromNumber(r.contato);
      if (contato === null)
        throw new RowError("quantita_non_valida", `Quantità contata ${r.contato} non valida: zero o più, con al massimo 3 decimali.`);
      if (article.gestione_lotti && lotto === null)
        throw new RowError("lotto_obbligatorio", `L'articolo ${article.codice} è gestito a lotti: contare per lotto e indicare 'lotto'.`);
      if (!article.gestione_lotti && lotto !== null)
        throw new RowError("lotto_non_previsto", `L'articolo ${article.codice} non è gestito a lotti: togliere 'lotto'.`);
      if (ubicazione instanceof RowError) throw ubicazione;
      units.push({ indice, article, lotto, ubicazione, contato });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      const known = index.byCode.get(r.codice);
      if (known && where.whole && !(ubicazione instanceof RowError) && ubicazione?.id === where.whole.id) refusedInWhole.add(known.id);
      rows[indice] = {
        indice,
        articolo: known ? { id: known.id, codice: known.codice } : null,
        ...(known ? {} : { codice: r.codice }),
        lotto,
        ubicazione: r.ubicazione ?? input.ubicazione ?? null,
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
  for (const u of units) occurrences.set(unitKey(u), (occurrences.get(unitKey(u)) ?? 0) + 1);
  const valid = units.filter((u) => {
    if (occurrences.get(unitKey(u))! === 1) return true;
    if (u.ubicazione?.id === where.whole?.id) refusedInWhole.add(u.article.id);
    rows[u.indice] = {
      ...shown(u),
      attuale: null,
      delta: null,
      esito: "rifiutata",
      errore: new RowError(
        "articolo_ripetuto",
        `${u.article.codice}${u.lotto ? ` lotto ${u.lotto}` : ""}${u.ubicazione ? ` nell'ubicazione ${u.ubicazione.codice}` : ""} compare più volte nel conteggio (${occurrences.get(unitKey(u))} righe): indicarlo una volta sola.`,
      ).toBody(),
    };
    return false;
  });

  if (isBlindPreview(actor, input)) {
    // What else a location holds is stock too: a blind preview shows the rows counted, not the units `completa` adds.
    for (const u of valid) rows[u.indice] = { ...shown(u), attuale: null, delta: null, esito: "contata" };
    return { operazione: null, scritte: 0, invariate: 0, rifiutate: rows.length - valid.length, righe: rows };
  }

  const implicit = where.whole ? await implicitUnits(tx, where.whole, valid, refusedInWhole) : [];
  const currentOf = await readCurrent(tx, magazzino, [...valid, ...implicit], write);
  const intents: StockIntent[] = [];
  const ledgerIndex: number[] = [];
  const lotResiduals = new Map<number, Decimal>();
  let next = input.righe.length;
  for (const u of [...valid, ...implicit]) {
    const now = currentOf(u);
    // A unit of the location counted whole that went out meanwhile (read again under its lock) is not reported.
    if (u.implicita && now.attuale.isZero()) continue;
    if (u.implicita) u.indice = next++;
    const delta = new Decimal(u.contato).minus(now.attuale);
    rows[u.indice] = {
      ...shown(u),
      attuale: canonical(now.attuale),
      delta: canonical(delta),
      esito: delta.isZero() ? "invariata" : "scritta",
    };
    if (delta.isZero()) continue;
    // A lot's residual is its stock in the warehouse: with locations, the sum over them, so it moves by the difference.
    if (now.lot) lotResiduals.set(now.lot.id, (lotResiduals.get(now.lot.id) ?? now.lot.residua).plus(delta));
    intents.push({
      natura: delta.isPositive() ? "carico" : "scarico",
      magazzino,
      articolo: u.article.id,
      codice: u.article.codice,
      quantita: delta.toFixed(),
      prezzo: null,
      lotto: now.lot ? { id: now.lot.id, codice: u.lotto! } : null,
      // A unit of a lot that does not exist yet (a preview only: a count creates its lots) moves no location.
      ubicazione: u.ubicazione && (u.lotto === null || now.lot) ? u.ubicazione : null,
    });
    ledgerIndex.push(u.indice);
  }

  let operazione: number | null = null;
  if (write && intents.length > 0) {
    // The location stock rows are already locked by readCurrent; the lots are set to their count in one statement.
    const written = await writeStock(
      tx,
      {
        operazione: "nuova",
        origine: "correzione",
        causale: input.causale ?? "Allineamento inventario",
        data: businessDate(opts.timeZone),
        actor,
      },
      intents,
      // The last statement of the alignment: what follows only reads its answer.
      { countedLots: new Map([...lotResiduals].map(([id, r]) => [id, r.toFixed()])), last: true },
    );
    operazione = written.operazione;
    ledgerIndex.forEach((indice, i) => (rows[indice]!.movimento = written.ids[i]!));
  }
  const count = (esito: AlignRow["esito"]) => rows.filter((r) => r.esito === esito).length;
  return { operazione, scritte: count("scritta"), invariate: count("invariata"), rifiutate: count("rifiutata"), righe: rows };
}

/** A unit's identity and count as every row of the answer shows them. */
function shown(u: Unit): Pick<AlignRow, "indice" | "articolo" | "lotto" | "ubicazione" | "contato" | "implicita"> {
  return {
    indice: u.indice,
    articolo: { id: u.article.id, codice: u.article.codice },
    lotto: u.lotto,
    ubicazione: u.ubicazione?.codice ?? null,
    contato: canonical(u.contato),
    ...(u.implicita ? { implicita: true as const } : {}),
  };
}
