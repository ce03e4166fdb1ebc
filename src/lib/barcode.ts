import { parseBarcode } from "gs1-barcode-parser-mod";
import { isValidGtin, isValidSscc } from "./gtin";

/**
 * What a scanner typed into the search field. GS1 element strings are taken apart by gs1-barcode-parser-mod
 * (a maintained parser of the General Specifications' AI table, plain JavaScript without dependencies, so the
 * same code runs in the handheld's browser and in the service); what is ours is only what the dock makes of
 * the elements: the GTIN's check digit, the expiry as a calendar date (the library rolls an impossible date
 * such as month 13 over into the next year, so YYMMDD is read again here and refused), a lot of no
 * characters taken as no lot. A keyboard-wedge scanner sends the symbology identifier
 * (`]C1` GS1-128, `]d2` GS1 DataMatrix, `]Q3` GS1 QR, `]e0` GS1 DataBar) when configured to, and FNC1
 * as the GS character (0x1D) between variable-length fields; people type the bracketed form.
 */
export type Scan =
  | { kind: "ean"; gtin: string }
  | { kind: "etichetta"; riga: number }
  | { kind: "gs1"; gtin: string; lotto: string | null; scadenza: string | null }
  | { kind: "codice"; codice: string }
  | { kind: "illeggibile"; motivo: string };

const GS = "\x1d";
const SYMBOLOGY = /^\](C1|d2|Q3|e0|J1)/;
const LEADING_GS = new RegExp(`^${GS}+`);

/** YYMMDD → YYYY-MM-DD; the century follows GS1's sliding window; day 00 is the month's last day. */
export function gs1Date(yymmdd: string, today = new Date()): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const mm = Number(yymmdd.slice(2, 4));
  let dd = Number(yymmdd.slice(4, 6));
  if (mm < 1 || mm > 12) return null;
  const current = today.getUTCFullYear();
  const century = Math.floor(current / 100) * 100;
  let year = century + yy;
  const diff = yy - (current % 100);
  if (diff >= 51) year -= 100;
  else if (diff <= -50) year += 100;
  const last = new Date(Date.UTC(year, mm, 0)).getUTCDate();
  if (dd === 0) dd = last;
  if (dd > last) return null;
  return `${year}-${String(mm).padStart(2, "0")}-${String(dd).padStart(2, "0")}`;
}

/**
 * The element string taken apart by gs1-barcode-parser-mod (the AI table, fixed and variable lengths, FNC1,
 * the bracketed form and the symbology identifiers are the library's), as AI → the element's text as scanned.
 * Null when it is not a GS1 element string.
 */
function parseElements(input: string): Map<string, string> | null {
  let parsed: ReturnType<typeof parseBarcode>;
  // Some scanners send FNC1 in first position as a GS too: it says "GS1", not a separator.
  const symbology = SYMBOLOGY.exec(input)?.[0] ?? "";
  try {
    parsed = parseBarcode(symbology + input.slice(symbology.length).replace(LEADING_GS, ""));
  } catch {
    return null;
  }
  const out = new Map<string, string>();
  for (const e of parsed.parsedCodeItems) out.set(e.ai, e.raw ?? (typeof e.data === "string" ? e.data : String(e.data)));
  return out.size > 0 ? out : null;
}

/** A GS1 string: a symbology identifier, the bracketed form, a group separator, or (01) and a GTIN-14 first. */
const looksGs1 = (text: string) => SYMBOLOGY.test(text) || text.startsWith("(") || text.includes(GS) || /^01\d{14}/.test(text);

export function parseScan(raw: string, today = new Date()): Scan {
  const text = raw.replace(/[\r\n]+$/g, "").trim();
  const label = /^R(\d{1,10})$/i.exec(text);
  if (label) return { kind: "etichetta", riga: Number(label[1]) };

  if (looksGs1(text)) {
    const elements = parseElements(text);
    const gtin = elements?.get("01") ?? elements?.get("02");
    if (!elements || !gtin) return { kind: "illeggibile", motivo: "Codice GS1 senza GTIN (01) leggibile: rileggere l'etichetta." };
    if (!isValidGtin(gtin))
      return { kind: "illeggibile", motivo: `GTIN ${gtin} con cifra di controllo errata: lettura sbagliata, rileggere.` };
    const rawDate = elements.get("17");
    const scadenza = rawDate === undefined ? null : gs1Date(rawDate, today);
    if (rawDate !== undefined && scadenza === null)
      return { kind: "illeggibile", motivo: `Scadenza (17) '${rawDate}' non valida: rileggere l'etichetta.` };
    // A lot bracketed with nothing after it, `(10)`, is no lot.
    return { kind: "gs1", gtin, lotto: elements.get("10") || null, scadenza };
  }

  if (/^\d+$/.test(text)) {
    // 18 digits is a pallet's SSCC (a valid one never gets here): a misread, not a code of unknown kind.
    if (text.length === 18 && !isValidSscc(text))
      return {
        kind: "illeggibile",
        motivo: `SSCC ${text} con cifra di controllo errata: lettura sbagliata, rileggere l'etichetta del collo.`,
      };
    if (![8, 12, 13, 14].includes(text.length))
      return { kind: "illeggibile", motivo: `Codice numerico di ${text.length} cifre: non è un EAN (8, 12, 13 o 14 cifre).` };
    if (!isValidGtin(text))
      return { kind: "illeggibile", motivo: `EAN ${text} con cifra di controllo errata: lettura sbagliata, rileggere.` };
    return { kind: "ean", gtin: text };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character (GS, CR) in a typed code means a misread scan
  if (text.length === 0 || text.length > 64 || /[\x00-\x1f]/.test(text))
    return { kind: "illeggibile", motivo: "Codice non riconosciuto: rileggere." };
  // Typed by hand: an article code.
  return { kind: "codice", codice: text };
}

/** The EANs a GTIN can be stored as in the catalogue: GTIN-14 with leading zeros is an EAN-13, UPC-A or EAN-8. */
export function eanCandidates(gtin: string): string[] {
  const g14 = gtin.padStart(14, "0");
  const out = new Set([gtin, g14]);
  if (g14.startsWith("0")) out.add(g14.slice(1));
  if (g14.startsWith("00")) out.add(g14.slice(2));
  if (g14.startsWith("000000")) out.add(g14.slice(6));
  return [...out];
}

/**
 * Why a location code cannot be a location's code (docs/api.md section 11, "Codes"), or null when it can: a location's
 * code is what its label's barcode reads, so it must not read as goods. Refused: what parseScan reads as an EAN,
 * a GS1 string or an `R<riga>` label, and an SSCC (18 digits with a valid check digit, bare or after its AI 00),
 * which a scan reads before anything else.
 */
export function locationCodeProblem(code: string): string | null {
  const text = code.trim();
  if (isValidSscc(text) || (/^(\(00\)|00)\d{18}$/.test(text) && isValidSscc(text.slice(-18))))
    return `'${code}' si legge come l'SSCC di un pallet`;
  const scan = parseScan(text);
  if (scan.kind === "ean") return `'${code}' si legge come un EAN (cifra di controllo valida)`;
  if (scan.kind === "gs1") return `'${code}' si legge come un codice GS1`;
  if (scan.kind === "etichetta" || /^R\d+$/i.test(text))
    return `'${code}' si legge come l'etichetta di una riga d'ordine (R seguito da cifre)`;
  if (looksGs1(text)) return `'${code}' si legge come un codice GS1`;
  return null;
}
