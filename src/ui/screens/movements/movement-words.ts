import type { WriteMovementsOutput } from "@/server/modules/movements/movements.schemas";
import type { DescribedError } from "../../errors";
import { day, qty } from "../../format";

export type Natura = "carico" | "scarico" | "trasferimento";

/** One row as it was sent, in the screen's terms: what the messages name. */
export interface SentRow {
  /** What the operator typed or scanned. */
  letto: string;
  /** The article's code, once known. */
  codice: string | null;
  quantita: number;
  lotto?: string;
  scadenza?: string;
}

/** The warehouses of the movement, by code: where the goods go, where they come from. */
export interface Places {
  magazzino: string;
  origine: string | null;
}

const DONE: Record<Natura, string> = { carico: "Carico", scarico: "Scarico", trasferimento: "Trasferimento" };

/** Where a row's goods went, as a warehouse person says it. */
function where(natura: Natura, places: Places): string {
  if (natura === "carico") return `in ${places.magazzino}`;
  if (natura === "scarico") return `da ${places.magazzino}`;
  return `da ${places.origine} a ${places.magazzino}`;
}

/** "5 × ART-1, lotto L1, scadenza 31/12/2027, in M1": one written row. */
export function writtenLine(natura: Natura, row: SentRow, places: Places): string {
  const lot = row.lotto ? `, lotto ${row.lotto}${row.scadenza ? `, scadenza ${day(row.scadenza)}` : ""}` : "";
  return `${qty(row.quantita)} × ${row.codice ?? row.letto}${lot}, ${where(natura, places)}`;
}

/** The result's heading: what was registered, under which operation number. */
export function resultTitle(natura: Natura, out: WriteMovementsOutput): string {
  const n = out.righe.length;
  if (out.scritte === 0) return n === 1 ? "Riga non registrata" : "Nessuna riga registrata";
  if (out.rifiutate === 0) return `${DONE[natura]} registrato: operazione ${out.operazione}`;
  return `${DONE[natura]} registrato in parte: operazione ${out.operazione}, ${out.scritte} ${out.scritte === 1 ? "riga" : "righe"} su ${n}`;
}

/**
 * A row the service refused, in a warehouse person's words with what to do (the service's own message
 * speaks to integrators: field names, codes). A code the screen has no words for keeps the service's.
 */
export function rowRefusal(natura: Natura, error: { codice: string; messaggio: string }, row: SentRow, places: Places): string {
  const art = row.codice ?? row.letto;
  const lot = row.lotto ?? "";
  const from = natura === "trasferimento" ? places.origine : places.magazzino;
  switch (error.codice) {
    case "articolo_non_trovato":
      return `Nessun articolo con codice o EAN ${row.letto}: controllare quanto scritto o leggere di nuovo l'etichetta.`;
    case "articolo_ambiguo":
      return `${row.letto} indica due articoli diversi: scrivere il codice dell'articolo.`;
    case "articolo_con_varianti":
      return `${art} è un modello con varianti: indicare la variante da movimentare (per esempio la taglia o il colore).`;
    case "quantita_non_valida":
      return "Quantità non valida: scrivere un numero maggiore di zero, con al massimo 3 decimali.";
    case "prezzo_non_valido":
      return "Prezzo non valido: scrivere un numero con al massimo 4 decimali, per esempio 12,50.";
    case "lotto_obbligatorio":
      return natura === "carico"
        ? `${art} è gestito a lotti: scrivere il lotto (e la scadenza, se c'è).`
        : `${art} è gestito a lotti: scegliere il lotto da cui prelevare.`;
    case "lotto_non_previsto":
      return `${art} non è gestito a lotti: togliere lotto e scadenza.`;
    case "lotto_non_trovato":
      return `In ${from} non c'è il lotto ${lot} di ${art}: scegliere un lotto dall'elenco.`;
    case "lotto_insufficiente":
      return `Nel lotto ${lot} di ${art} in ${from} ne restano meno di ${qty(row.quantita)}: ridurre la quantità, oppure dividerla su più righe con lotti diversi.`;
    case "scadenza_diversa":
      return `Il lotto ${lot} di ${art} è già in ${places.magazzino} con un'altra scadenza: correggere la scadenza, o scrivere un altro lotto.`;
    default:
      return error.messaggio;
  }
}

/** A refusal of the whole movement (nothing written), in the screen's words when it has them. */
export function movementRefusal(d: DescribedError): string | undefined {
  switch (d.codice) {
    case "magazzino_non_trovato":
      return "Uno dei magazzini scelti non esiste più: ricaricare la pagina e sceglierlo di nuovo.";
    case "troppe_righe":
      return "Troppe righe per un solo movimento: al massimo 500. Dividerlo in più movimenti.";
    case "richiesta_non_valida":
      return "Il movimento non è stato registrato: controllare magazzini, quantità, lotti e scadenze, poi premere di nuovo Registra.";
    default:
      return undefined;
  }
}
