import { canonical, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
import { RowError } from "../../lib/errors";
import type { OrderUpsertInput } from "./orders.schemas";
import type * as q from "./purchase-orders.queries";

/**
 * The upsert's checks and row diffing (orders-upsert.service.ts says the rules): what a request's order
 * wants, checked against the references, and what changes on an order that exists. Nothing here writes.
 */

export interface Refs {
  fornitori: Map<string, number>;
  magazzini: Map<string, number>;
  articoli: Map<string, { id: number; attivo: boolean; ha_varianti: boolean }>;
}

/** A row as the request wants it: ids resolved, decimals canonical. */
export interface WantedRow {
  at: string;
  numero_riga: number;
  articolo: number;
  codice: string;
  attivo: boolean;
  ordinata: string;
  prezzo: string;
}

/** An order whose request passed the checks that need no database state. */
export interface Checked {
  indice: number;
  input: OrderUpsertInput;
  fornitore: number;
  magazzino: number;
  rows: WantedRow[];
}

/** What to write for an existing order. */
export interface Change {
  c: Checked;
  id: number;
  header: boolean;
  update: { id: number; articolo: number; ordinata: string; prezzo: string; riapri: boolean }[];
  insert: WantedRow[];
  remove: number[];
}

export const key = (fornitore: number, numero: string) => `${fornitore}/${numero}`;

/** The checks that need no order state: references, line numbers, quantities and prices. */
export function checkOrder(indice: number, o: OrderUpsertInput, refs: Refs): Checked {
  const fornitore = refs.fornitori.get(o.fornitore);
  if (fornitore === undefined) {
    throw new RowError(
      "fornitore_non_trovato",
      `Ordine ${o.numero} (ordini[${indice}]): il fornitore '${o.fornitore}' non esiste: crearlo prima con POST /fornitori.`,
    );
  }
  const magazzino = refs.magazzini.get(o.magazzino);
  if (magazzino === undefined) {
    throw new RowError(
      "magazzino_non_trovato",
      `Ordine ${o.numero} (ordini[${indice}]): il magazzino '${o.magazzino}' non esiste: crearlo prima con POST /magazzini.`,
    );
  }
  const seen = new Set<number>();
  const wanted = o.righe.map((r, i): WantedRow => {
    const at = `Ordine ${o.numero}, riga ${r.numero_riga} (ordini[${indice}].righe[${i}])`;
    if (seen.has(r.numero_riga))
      throw new RowError("numero_riga_ripetuto", `${at}: il numero di riga ${r.numero_riga} compare più volte nell'ordine.`);
    seen.add(r.numero_riga);
    const a = refs.articoli.get(r.articolo);
    if (!a) throw new RowError("articolo_non_trovato", `${at}: l'articolo '${r.articolo}' non esiste: crearlo prima con POST /articoli.`);
    if (a.ha_varianti)
      throw new RowError("articolo_con_varianti", `${at}: l'articolo '${r.articolo}' è un modello con varianti: ordinare una variante.`);
    const ordinata = quantityFromNumber(r.quantita);
    if (ordinata === null) {
      throw new RowError(
        "quantita_non_valida",
        `${at}: quantità ${r.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`,
      );
    }
    const prezzo = priceFromString(r.prezzo);
    if (prezzo === null)
      throw new RowError(
        "prezzo_non_valido",
        `${at}: prezzo '${r.prezzo}' non valido: decimale semplice con il punto, al massimo 4 decimali.`,
      );
    return {
      at,
      numero_riga: r.numero_riga,
      articolo: a.id,
      codice: r.articolo,
      attivo: a.attivo,
      ordinata: canonical(ordinata),
      prezzo: canonical(prezzo),
    };
  });
  return { indice, input: o, fornitore, magazzino, rows: wanted };
}

export const inactive = (r: WantedRow) =>
  new RowError("articolo_non_attivo", `${r.at}: l'articolo '${r.codice}' non è attivo e non si ordina: riattivarlo o togliere la riga.`);

/** A row announced by a shipping notice not yet received keeps its place and its article (docs/api.md section 12). */
const announced = (c: Checked, r: q.LockedOrderRow) =>
  new RowError(
    "riga_in_avviso",
    `Ordine ${c.input.numero}, riga ${r.numero_riga} (R${r.id}, ${r.codice}): è annunciata dall'avviso di spedizione ${r.in_avviso}, non ancora ricevuto; non si toglie né cambia articolo finché l'avviso la annuncia.`,
  );

/** What changes on an existing order, or null when the request says what the order already is. */
export function planChange(c: Checked, known: q.ExistingOrderRow, current: q.LockedOrderRow[]): Change | null {
  const byNumber = new Map(current.map((r) => [r.numero_riga, r]));
  const change: Change = {
    c,
    id: known.id,
    header: known.data !== c.input.data || known.magazzino_id !== c.magazzino,
    update: [],
    insert: [],
    remove: [],
  };
  // The notice was checked against the order's warehouse (magazzino_diverso) and its pallets land there: while
  // one not yet received announces a row, the order keeps its warehouse (the contract's rule, by its reason).
  const held = known.magazzino_id !== c.magazzino ? current.find((r) => r.in_avviso !== null) : undefined;
  if (held)
    throw new RowError(
      "riga_in_avviso",
      `Ordine ${c.input.numero}: la riga ${held.numero_riga} (R${held.id}, ${held.codice}) è annunciata dall'avviso di spedizione ${held.in_avviso}, non ancora ricevuto, nel magazzino attuale dell'ordine; il magazzino non cambia finché l'avviso la annuncia (riceverlo, o sostituire l'avviso senza la riga).`,
    );
  for (const w of c.rows) {
    const r = byNumber.get(w.numero_riga);
    if (!r) {
      if (!w.attivo) throw inactive(w);
      change.insert.push(w);
      continue;
    }
    const ordinata = new Decimal(w.ordinata);
    const sameQuantity = ordinata.eq(r.ordinata);
    if (r.articolo_id === w.articolo && sameQuantity && new Decimal(w.prezzo).eq(r.prezzo)) continue;
    if (r.articolo_id !== w.articolo && r.movimentata) {
      throw new RowError(
        "riga_con_arrivi",
        `${w.at}: la riga R${r.id} ha arrivi registrati per l'articolo '${r.codice}' e non può passare a '${w.codice}': chiuderla e aggiungere una riga nuova.`,
      );
    }
    if (r.articolo_id !== w.articolo && r.in_avviso !== null) throw announced(c, r);
    if (ordinata.lt(r.arrivata)) {
      throw new RowError(
        "quantita_sotto_arrivata",
        `${w.at}: quantità ${w.ordinata} inferiore a quella già arrivata sulla riga R${r.id} (${canonical(r.arrivata)}).`,
      );
    }
    if (!w.attivo && (r.articolo_id !== w.articolo || ordinata.gt(r.ordinata))) throw inactive(w);
    change.update.push({
      id: r.id,
      articolo: w.articolo,
      ordinata: w.ordinata,
      prezzo: w.prezzo,
      riapri: !sameQuantity && !new Decimal(r.chiusa).isZero(),
    });
  }
  const wanted = new Set(c.rows.map((w) => w.numero_riga));
  for (const r of current) {
    if (wanted.has(r.numero_riga)) continue;
    if (r.movimentata) {
      throw new RowError(
        "riga_con_arrivi",
        `Ordine ${c.input.numero}, riga ${r.numero_riga} (R${r.id}, ${r.codice}): ha arrivi registrati e non può essere tolta; per non attenderne altri, chiuderla con POST /ordini-acquisto/${known.id}/chiudi.`,
      );
    }
    if (r.in_avviso !== null) throw announced(c, r);
    change.remove.push(r.id);
  }
  if (!change.header && change.update.length === 0 && change.insert.length === 0 && change.remove.length === 0) return null;
  if (known.stato === "evaso") {
    throw new RowError(
      "ordine_evaso",
      `Ordine ${c.input.numero} (ordini[${c.indice}]): è evaso (tutto arrivato o chiuso) e non si modifica più: per altra merce creare un ordine nuovo.`,
    );
  }
  return change;
}
