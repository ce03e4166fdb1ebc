import { canonical, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { RowError } from "../../lib/errors";
import type { loadArticles } from "../catalogue/articles";
import { resolveArticle } from "../catalogue/articles";
import type { ReservationInput } from "./reservations.schemas";
import type * as q from "./reservations.queries";

/** The checks of POST /prenotazioni that need no stock (reservations-upsert.service.ts): references, rows, lots, prices. */

export interface WantedRow {
  at: string;
  numero_riga: number;
  articolo: number;
  codice: string;
  lotto: string | null;
  richiesta: Decimal;
  prezzo: string | null;
}

export interface Checked {
  indice: number;
  input: ReservationInput;
  magazzino: number;
  cliente: number;
  scade_il: string | null;
  rows: WantedRow[];
}

export interface Refs {
  magazzini: Map<string, number>;
  clienti: Map<string, number>;
  index: Awaited<ReturnType<typeof loadArticles>>;
}

/** The checks that need no reservation state: references, line numbers, quantities, lots and prices. */
export function checkReservation(indice: number, p: ReservationInput, refs: Refs): Checked {
  const at = `Prenotazione ${p.riferimento} (prenotazioni[${indice}])`;
  const cliente = refs.clienti.get(p.cliente);
  if (cliente === undefined)
    throw new RowError("cliente_non_trovato", `${at}: il cliente '${p.cliente}' non esiste: crearlo prima con POST /clienti.`);
  const magazzino = refs.magazzini.get(p.magazzino);
  if (magazzino === undefined)
    throw new RowError("magazzino_non_trovato", `${at}: il magazzino '${p.magazzino}' non esiste: crearlo prima con POST /magazzini.`);
  const seen = new Set<number>();
  const wanted = p.righe.map((r, i): WantedRow => {
    const rowAt = `${at}, riga ${r.numero_riga} (righe[${i}])`;
    if (seen.has(r.numero_riga))
      throw new RowError("numero_riga_ripetuto", `${rowAt}: il numero di riga ${r.numero_riga} compare più volte nella prenotazione.`);
    seen.add(r.numero_riga);
    if (r.codice === undefined && r.ean === undefined)
      throw new RowError("campo_non_valido", `${rowAt}: indicare l'articolo con 'codice' o 'ean'.`, `righe[${i}].codice`);
    let article: ReturnType<typeof resolveArticle>;
    try {
      article = resolveArticle(refs.index, { codice: r.codice, ean: r.ean });
    } catch (e) {
      if (e instanceof RowError) throw new RowError(e.codice, `${rowAt}: ${e.message}`);
      throw e;
    }
    if (!article.attivo)
      throw new RowError("articolo_non_attivo", `${rowAt}: l'articolo '${article.codice}' non è attivo e non si prenota.`);
    const richiesta = quantityFromNumber(r.quantita);
    if (richiesta === null)
      throw new RowError("quantita_non_valida", `${rowAt}: quantità ${r.quantita} non valida: maggiore di zero, al massimo 3 decimali.`);
    if (r.lotto !== undefined && !article.gestione_lotti)
      throw new RowError("lotto_non_previsto", `${rowAt}: l'articolo '${article.codice}' non è gestito a lotti: togliere 'lotto'.`);
    let prezzo: string | null = null;
    if (r.prezzo !== undefined) {
      const parsed = priceFromString(r.prezzo);
      if (parsed === null)
        throw new RowError(
          "prezzo_non_valido",
          `${rowAt}: prezzo '${r.prezzo}' non valido: decimale semplice con il punto, al massimo 4 decimali.`,
        );
      prezzo = canonical(parsed);
    }
    return {
      at: rowAt,
      numero_riga: r.numero_riga,
      articolo: article.id,
      codice: article.codice,
      lotto: r.lotto ?? null,
      richiesta: new Decimal(richiesta),
      prezzo,
    };
  });
  return {
    indice,
    input: p,
    magazzino,
    cliente, // To the millisecond, as the column keeps it: the same instant sent again compares equal.
    scade_il: p.scade_il === undefined ? null : new Date(p.scade_il).toISOString(),
    rows: wanted,
  };
}

/** The request says what the reservation already is, and holds what it already holds. */
export function sameAsStored(
  c: Checked,
  known: q.LockedReservation,
  mine: q.ReservationRowRow[],
  held: Decimal[],
  lotIds: (number | null)[],
): boolean {
  const scade = c.scade_il === null ? null : new Date(c.scade_il).getTime();
  if (known.magazzino_id !== c.magazzino || known.cliente_id !== c.cliente || known.parziale !== (c.input.parziale ?? false)) return false;
  if ((known.scade_ms === null ? null : Number(known.scade_ms)) !== scade) return false;
  if (mine.length !== c.rows.length) return false;
  const byNumber = new Map(mine.map((r) => [r.numero_riga, r]));
  return c.rows.every((w, i) => {
    const r = byNumber.get(w.numero_riga);
    return (
      r !== undefined &&
      r.articolo_id === w.articolo &&
      r.lotto_id === lotIds[i] &&
      w.richiesta.eq(r.richiesta) &&
      held[i]!.eq(r.prenotata) &&
      (r.prezzo === null ? w.prezzo === null : w.prezzo !== null && new Decimal(w.prezzo).eq(r.prezzo))
    );
  });
}
