import { isValidGtin, isValidSscc } from "./gtin";

/**
 * What a scanner typed into the search field. A keyboard-wedge scanner sends the symbology identifier
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

/** Length of the AI that starts at `s` (GS1 General Specifications, AI table by leading digits). */
function aiLength(s: string): number {
  const two = Number(s.slice(0, 2));
  if (two === 23 || two === 24 || two === 25 || (two >= 40 && two <= 49)) return 3;
  if ((two >= 31 && two <= 36) || two === 39 || (two >= 70 && two <= 89)) return 4;
  return 2;
}

/** Fixed data lengths by the AI's first two digits; every other AI is variable and ends at GS. */
const FIXED: Record<string, number> = {
  "00": 18,
  "01": 14,
  "02": 14,
  "03": 14,
  "04": 16,
  "11": 6,
  "12": 6,
  "13": 6,
  "14": 6,
  "15": 6,
  "16": 6,
  "17": 6,
  "18": 6,
  "19": 6,
  "20": 2,
  "31": 6,
  "32": 6,
  "33": 6,
  "34": 6,
  "35": 6,
  "36": 6,
  "41": 13,
};

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

function parseElements(input: string): Map<string, string> | null {
  const out = new Map<string, string>();
  if (input.startsWith("(")) {
    const re = /\((\d{2,4})\)([^(]*)/g;
    let consumed = 0;
    for (let m = re.exec(input); m; m = re.exec(input)) {
      if (m.index !== consumed) return null;
      out.set(m[1]!, m[2]!.replace(new RegExp(GS, "g"), ""));
      consumed = re.lastIndex;
    }
    return consumed === input.length && out.size > 0 ? out : null;
  }
  let s = input;
  while (s.length > 0) {
    if (s.startsWith(GS)) {
      s = s.slice(1);
      continue;
    }
    if (!/^\d{2}/.test(s)) return null;
    const ai = s.slice(0, aiLength(s));
    const fixed = FIXED[ai.slice(0, 2)];
    let value: string;
    if (fixed !== undefined) {
      value = s.slice(ai.length, ai.length + fixed);
      if (value.length !== fixed) return null;
      s = s.slice(ai.length + fixed);
    } else {
      const end = s.indexOf(GS, ai.length);
      value = end === -1 ? s.slice(ai.length) : s.slice(ai.length, end);
      s = end === -1 ? "" : s.slice(end + 1);
    }
    out.set(ai, value);
  }
  return out.size > 0 ? out : null;
}

export function parseScan(raw: string, today = new Date()): Scan {
  const text = raw.replace(/[\r\n]+$/g, "").trim();
  const label = /^R(\d{1,10})$/i.exec(text);
  if (label) return { kind: "etichetta", riga: Number(label[1]) };

  const symbology = SYMBOLOGY.exec(text);
  const isGs1 = symbology !== null || text.startsWith("(") || text.includes(GS) || /^01\d{14}./.test(text);
  if (isGs1) {
    const elements = parseElements(symbology ? text.slice(3) : text);
    const gtin = elements?.get("01") ?? elements?.get("02");
    if (!elements || !gtin) return { kind: "illeggibile", motivo: "Codice GS1 senza GTIN (01) leggibile: rileggere l'etichetta." };
    if (!isValidGtin(gtin))
      return { kind: "illeggibile", motivo: `GTIN ${gtin} con cifra di controllo errata: lettura sbagliata, rileggere.` };
    const rawDate = elements.get("17");
    const scadenza = rawDate === undefined ? null : gs1Date(rawDate, today);
    if (rawDate !== undefined && scadenza === null)
      return { kind: "illeggibile", motivo: `Scadenza (17) '${rawDate}' non valida: rileggere l'etichetta.` };
    return { kind: "gs1", gtin, lotto: elements.get("10") ?? null, scadenza };
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
 * Why a location code cannot be a location's code (API.md section 11, "Codes"), or null when it can: a location's
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
  if (/^\](C1|d2|Q3|e0|J1)/.test(text) || text.startsWith("(") || text.includes("\x1d") || /^01\d{14}./.test(text))
    return `'${code}' si legge come un codice GS1`;
  return null;
}
