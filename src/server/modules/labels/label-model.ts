import { isValidGtin } from "../../../lib/gtin";

/**
 * What a label says, apart from how it is drawn: its barcodes (as GS1 element strings or plain text)
 * and its lines of words. The PDF and ZPL renderers draw the same model, and the decode test renders
 * the same symbols with bwip-js, so what is tested is what prints.
 */

export const SIZES = ["100x50", "100x150", "50x25"] as const;
export type Size = (typeof SIZES)[number];
export type SheetSize = Size | "a4";

/** One GS1 element: its AI and its data, e.g. { ai: "10", data: "L24-118" }. */
export interface Gs1Element {
  ai: string;
  data: string;
}

export type LabelSymbol = { kind: "gs1-128"; elements: Gs1Element[] } | { kind: "code128"; text: string } | { kind: "ean"; digits: string };

export interface LabelLine {
  text: string;
  big?: boolean;
}

export interface Label {
  lines: LabelLine[];
  symbols: LabelSymbol[];
  /** A notice for the caller (`lotto_non_gs1`): the label was drawn, but not as the request asked. */
  avviso?: "lotto_non_gs1";
}

/** AI (10) holds up to 20 characters of GS1's character set 82 (General Specifications, 7.11). */
const CSET82 = /^[!"%&'()*+,\-./0-9:;<=>?A-Z_a-z]{1,20}$/;
export const fitsGs1Lot = (lot: string) => CSET82.test(lot);

/** The article's EAN as the GTIN-14 of AI (01) / (02), or null when it is none. */
export function gtin14(ean: string | null): string | null {
  return ean !== null && isValidGtin(ean) ? ean.padStart(14, "0") : null;
}

/** YYYY-MM-DD → YYMMDD (AI 17). */
const yymmdd = (date: string) => date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);

/** A quantity goes into (30)/(37) only when whole (they carry a count, not a measure), up to 8 digits. */
const wholeCount = (q: string | null) => (q !== null && /^\d{1,8}$/.test(q) && Number(q) > 0 ? String(Number(q)) : null);

const dayWords = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;

export interface LotLabelData {
  articolo: { codice: string; descrizione: string; ean: string | null };
  lotto: string;
  scadenza: string | null;
  quantita: string | null;
}

export function lotLabel(d: LotLabelData): Label {
  const gtin = gtin14(d.articolo.ean);
  const lines: LabelLine[] = [
    { text: d.articolo.codice, big: true },
    { text: d.articolo.descrizione },
    { text: `Lotto ${d.lotto}${d.scadenza ? ` · Scad. ${dayWords(d.scadenza)}` : ""}${d.quantita ? ` · Q.tà ${d.quantita}` : ""}` },
  ];
  if (gtin === null) {
    // Scans back to the article by its code; lot and expiry are read from the words.
    return { lines, symbols: [{ kind: "code128", text: d.articolo.codice }] };
  }
  const lotFits = fitsGs1Lot(d.lotto);
  const elements: Gs1Element[] = [{ ai: "01", data: gtin }];
  if (d.scadenza) elements.push({ ai: "17", data: yymmdd(d.scadenza) });
  const count = wholeCount(d.quantita);
  if (count !== null) elements.push({ ai: "30", data: count });
  // The variable-length lot goes last: no FNC1 needed after it.
  if (lotFits) elements.push({ ai: "10", data: d.lotto });
  const symbols: LabelSymbol[] = [{ kind: "gs1-128", elements }];
  if (!lotFits) symbols.push({ kind: "code128", text: d.lotto });
  return { lines, symbols, ...(lotFits ? {} : { avviso: "lotto_non_gs1" as const }) };
}

export interface LocationLabelData {
  magazzino: { codice: string };
  codice: string;
  descrizione: string | null;
}

export function locationLabel(d: LocationLabelData): Label {
  const lines: LabelLine[] = [{ text: d.codice, big: true }, { text: `Magazzino ${d.magazzino.codice}` }];
  if (d.descrizione) lines.push({ text: d.descrizione });
  return { lines, symbols: [{ kind: "code128", text: d.codice }] };
}

export interface RowLabelData {
  riga: number;
  posizione: number;
  ordine: string;
  fornitore: string;
  articolo: { codice: string; descrizione: string; ean: string | null; unita: string };
  ordinata: string;
}

/** The `R<riga>` label of an order row (what parseScan reads as that row), with the article's EAN. */
export function rowLabel(d: RowLabelData): Label {
  const symbols: LabelSymbol[] = [{ kind: "code128", text: `R${d.riga}` }];
  if (d.articolo.ean !== null && isValidGtin(d.articolo.ean) && d.articolo.ean.length !== 14)
    symbols.push({ kind: "ean", digits: d.articolo.ean });
  return {
    lines: [
      { text: d.articolo.codice, big: true },
      { text: d.articolo.descrizione },
      { text: `Ordine ${d.ordine} · riga ${d.posizione} · ${d.fornitore}` },
      { text: `Ordinata ${d.ordinata} ${d.articolo.unita}` },
    ],
    symbols,
  };
}

export interface PalletLabelData {
  sscc: string;
  fornitore: { codice: string; nome: string };
  avviso: string;
  /** Present when the pallet holds one article (one GTIN, one lot). */
  contenuto: {
    codice: string;
    descrizione: string;
    ean: string | null;
    quantita: string;
    lotto: string | null;
    scadenza: string | null;
  } | null;
}

/** The GS1 logistic label: (00) SSCC always; (02) (37) (10) (17) when the pallet holds one article. */
export function palletLabel(d: PalletLabelData): Label {
  const lines: LabelLine[] = [
    { text: d.fornitore.nome, big: true },
    { text: `Avviso ${d.avviso} · fornitore ${d.fornitore.codice}` },
    { text: `SSCC ${d.sscc}` },
  ];
  // The SSCC first: the one symbol a small label keeps.
  const symbols: LabelSymbol[] = [{ kind: "gs1-128", elements: [{ ai: "00", data: d.sscc }] }];
  const c = d.contenuto;
  if (c) {
    lines.push({ text: `${c.codice} ${c.descrizione}` });
    lines.push({
      text: `Q.tà ${c.quantita}${c.lotto ? ` · Lotto ${c.lotto}` : ""}${c.scadenza ? ` · Scad. ${dayWords(c.scadenza)}` : ""}`,
    });
    const gtin = gtin14(c.ean);
    if (gtin !== null) {
      const elements: Gs1Element[] = [{ ai: "02", data: gtin }];
      if (c.scadenza) elements.push({ ai: "17", data: yymmdd(c.scadenza) });
      const count = wholeCount(c.quantita);
      if (count !== null) elements.push({ ai: "37", data: count });
      if (c.lotto !== null && fitsGs1Lot(c.lotto)) elements.push({ ai: "10", data: c.lotto });
      symbols.push({ kind: "gs1-128", elements });
    }
  }
  return { lines, symbols };
}

/** Variable-length AIs among those we print: followed by another element, they end with FNC1. */
export const VARIABLE_AIS = new Set(["10", "30", "37"]);

/** The bracketed form, `(01)…(10)…`: what bwip-js takes and what people read under the bars. */
export const bracketed = (elements: Gs1Element[]) => elements.map((e) => `(${e.ai})${e.data}`).join("");
