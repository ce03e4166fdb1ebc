/**
 * Inventory counts from a CSV file or a paste: `codice;contato[;lotto]`, header optional, `;` or `,`
 * (or a tab, as a spreadsheet pastes) between fields, decimal comma or point. Pure and synchronous
 * per chunk, so the screen can parse a large file in slices and show its progress.
 */
import Papa from "papaparse";

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

const PAPA = { quoteChar: '"', escapeChar: '"', newline: "\n" } as const;

/** Splits one line on the separator with papaparse: "quoted; fields" with "" for a quote, each field trimmed. */
export function splitLine(line: string, sep: string): string[] {
  const fields = Papa.parse<string[]>(line, { ...PAPA, delimiter: sep }).data[0] ?? [""];
  return fields.map((f) => f.trim());
}

/**
 * The fields of every line, one papaparse call for the slice. A quoted field across a line break, or an
 * unclosed quote, would join lines and shift every line number after it: then line by line instead, so a
 * stray quote spoils only its own line.
 */
function splitLines(lines: string[], sep: string): string[][] {
  const parsed = Papa.parse<string[]>(lines.join("\n"), { ...PAPA, delimiter: sep });
  if (parsed.errors.length === 0 && parsed.data.length === lines.length) return parsed.data.map((fields) => fields.map((f) => f.trim()));
  return lines.map((line) => splitLine(line, sep));
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
  const clean = lines.map((raw) => raw.replace(/^\uFEFF/, ""));
  const table = splitLines(clean, sep);
  clean.forEach((line, i) => {
    const riga = firstLineNumber + i;
    if (line.trim() === "") return;
    const fields = table[i]!;
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
