/**
 * CSV cells for the spreadsheets the service's files are opened in (`;`-separated, Italian decimal
 * comma), shared by the server's exports and the screens' downloads: plain functions, no imports.
 *
 * Formula injection (OWASP, "CSV Injection"): a spreadsheet runs a cell that begins with `=`, `+`, `-`,
 * `@`, a tab or a carriage return as a formula, so a description such as `=HYPERLINK(...)` written by
 * anyone who can edit master data would run on the machine of whoever opens the export. Such a text
 * cell gets a leading `'`, which spreadsheets show as text and do not evaluate. Numbers are not text:
 * a plain number (`-3,5`, `12`, `0.25`) is left as it is, so negative quantities stay numbers.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as we write them (decimal comma or point, optional minus): nothing a spreadsheet would run. */
const PLAIN_NUMBER = /^-?\d+(?:[.,]\d+)?$/;

/** A text cell: neutralised when it would start a formula, quoted when it holds the separator, a quote or a line break. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let s = String(value);
  if (typeof value !== "number" && !PLAIN_NUMBER.test(s) && FORMULA_START.test(s)) s = `'${s}`;
  return /[;"\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A decimal of the contract (`-3.125`) written with the Italian decimal comma; anything else is a text cell. */
export function csvDecimal(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  return PLAIN_NUMBER.test(value) ? value.replace(".", ",") : csvCell(value);
}
