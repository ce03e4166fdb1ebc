/**
 * Inventory counts from a CSV file or a paste: `codice;contato[;lotto]`, header optional, `;` or `,`
 * (or a tab, as a spreadsheet pastes) between fields, decimal comma or point. Pure and synchronous
 * per chunk, so the screen can parse a large file in slices and show its progress.
 */

export interface CountRow {
  /** 1-based line number in the file, for messages. */
  riga: number;
  codice: string;
  contato: number;
  lotto?: string;
}

export interface ParseProblem {
  riga: number;
  messaggio: string;
}

export interface ParsedCounts {
  rows: CountRow[];
  problems: ParseProblem[];
  separator: string;
  header: boolean;
}

export const MAX_COUNT_ROWS = 10_000;

/** Splits one line on the separator, honouring "quoted; fields" with "" for a quote. */
export function splitLine(line: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"' && cur.trim() === "") {
      quoted = true;
      cur = "";
    } else if (c === sep) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out.map((f) => f.trim());
}

export function detectSeparator(firstLine: string): string {
  if (firstLine.includes("\t")) return "\t";
  if (firstLine.includes(";")) return ";";
  if (firstLine.includes(",")) return ",";
  return ";";
}

/** "12,5", "12.5", "12" → number; an Italian thousands separator is refused rather than guessed. */
export function parseCount(text: string): number | string {
  const t = text.trim();
  if (t === "") return "quantità contata mancante";
  if (t.includes(",") && t.includes(".")) return `quantità '${t}': usare un solo separatore decimale, senza separatore delle migliaia`;
  const normal = t.replace(",", ".");
  if (/^-/.test(normal) && /^-\d+(\.\d+)?$/.test(normal)) return `quantità '${t}' negativa: si conta da zero in su`;
  if (!/^\d+(\.\d+)?$/.test(normal)) return `quantità '${t}' non è un numero`;
  const decimals = normal.split(".")[1]?.length ?? 0;
  if (decimals > 3) return `quantità '${t}' con più di 3 decimali`;
  return Number(normal);
}

const HEADER_WORDS = /^(codice|articolo|cod\.?|sku)$/i;

export function parseCountLines(lines: string[], firstLineNumber: number, sep: string, allowHeader: boolean): ParsedCounts {
  const rows: CountRow[] = [];
  const problems: ParseProblem[] = [];
  let header = false;
  lines.forEach((raw, i) => {
    const riga = firstLineNumber + i;
    const line = raw.replace(/^\uFEFF/, "");
    if (line.trim() === "") return;
    const fields = splitLine(line, sep);
    while (fields.length > 2 && fields.at(-1) === "") fields.pop();
    if (
      allowHeader &&
      !header &&
      rows.length === 0 &&
      problems.length === 0 &&
      (HEADER_WORDS.test(fields[0] ?? "") || typeof parseCount(fields[1] ?? "") === "string") &&
      !/\d/.test(fields[1] ?? "")
    ) {
      header = true;
      return;
    }
    if (fields.length < 2) {
      problems.push({ riga, messaggio: `attesi almeno 2 campi (codice${sep === "\t" ? " TAB " : sep}contato), trovato ${fields.length}` });
      return;
    }
    if (fields.length > 3) {
      problems.push({
        riga,
        messaggio: `troppi campi (${fields.length}): il formato è codice${sep}contato${sep}lotto${sep === "," ? " (con la virgola decimale, racchiudere la quantità tra virgolette)" : ""}`,
      });
      return;
    }
    const [codice, contatoText, lotto] = fields as [string, string, string | undefined];
    if (codice === "") return void problems.push({ riga, messaggio: "codice articolo mancante" });
    if (codice.length > 64) return void problems.push({ riga, messaggio: "codice articolo oltre 64 caratteri" });
    const contato = parseCount(contatoText);
    if (typeof contato === "string") return void problems.push({ riga, messaggio: contato });
    if (lotto !== undefined && lotto.length > 64) return void problems.push({ riga, messaggio: "lotto oltre 64 caratteri" });
    rows.push({ riga, codice, contato, ...(lotto ? { lotto } : {}) });
  });
  return { rows, problems, separator: sep, header };
}

/** The whole text at once (tests, small pastes). */
export function parseCounts(text: string): ParsedCounts {
  const lines = text.split(/\r?\n/);
  const first = lines.find((l) => l.trim() !== "") ?? "";
  const result = parseCountLines(lines, 1, detectSeparator(first.replace(/^\uFEFF/, "")), true);
  if (result.rows.length > MAX_COUNT_ROWS) {
    result.problems.unshift({
      riga: 0,
      messaggio: `${result.rows.length} righe: al massimo ${MAX_COUNT_ROWS} per allineamento, dividere il file`,
    });
  }
  return result;
}

/** The same in slices, yielding to the browser between them so a progress bar can move. */
export async function parseCountsInSlices(
  text: string,
  onProgress: (done: number, total: number) => void,
  slice = 2_000,
): Promise<ParsedCounts> {
  const lines = text.split(/\r?\n/);
  const first = lines.find((l) => l.trim() !== "") ?? "";
  const sep = detectSeparator(first.replace(/^\uFEFF/, ""));
  const all: ParsedCounts = { rows: [], problems: [], separator: sep, header: false };
  for (let at = 0; at < lines.length; at += slice) {
    const part = parseCountLines(lines.slice(at, at + slice), at + 1, sep, at === 0);
    all.rows.push(...part.rows);
    all.problems.push(...part.problems);
    all.header ||= part.header;
    onProgress(Math.min(at + slice, lines.length), lines.length);
    await new Promise((r) => setTimeout(r, 0));
  }
  if (all.rows.length > MAX_COUNT_ROWS) {
    all.problems.unshift({
      riga: 0,
      messaggio: `${all.rows.length} righe: al massimo ${MAX_COUNT_ROWS} per allineamento, dividere il file`,
    });
  }
  return all;
}

/** One CSV field for Italian spreadsheets (`;`-separated): quoted when it needs to be. */
export function csvField(value: string | number | null | undefined): string {
  const s = value === null || value === undefined ? "" : String(value);
  return /[;"\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A decimal string in the contract's form, written with the Italian decimal comma. */
export function csvDecimal(value: string | null | undefined): string {
  return value === null || value === undefined ? "" : value.replace(".", ",");
}
