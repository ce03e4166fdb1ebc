/**
 * A date as an Italian operator types it — 30/11/2027, 30-11-27, 30.11.2027, 30112027, 301127 — or as
 * a scanner or the API writes it (2027-11-30), to the contract's `AAAA-MM-GG`; null when it is no date.
 * A two-digit year is of this century.
 */
export function parseItalianDate(text: string): string | null {
  const t = text.trim();
  let parts: [string, string, string] | null = null;
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t);
  if (m) parts = [m[3]!, m[2]!, m[1]!];
  if (!parts) {
    m = /^(\d{1,2})[/.\-\s](\d{1,2})[/.\-\s](\d{2}|\d{4})$/.exec(t) ?? /^(\d{2})(\d{2})(\d{4}|\d{2})$/.exec(t);
    if (m) parts = [m[1]!, m[2]!, m[3]!];
  }
  if (!parts) return null;
  const [d, mo, y] = parts.map(Number) as [number, number, number];
  const year = y < 100 ? 2000 + y : y;
  const date = new Date(Date.UTC(year, mo - 1, d));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${String(year).padStart(4, "0")}-${String(mo).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}
