/** Numbers as an Italian reader expects them: decimal comma, no thousands dots on quantities. */
export function qty(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  return String(value).replace(".", ",");
}

/** One formatter for every amount: `toLocaleString` with options builds a new one per call. */
const euro = new Intl.NumberFormat("it-IT", { style: "currency", currency: "EUR", minimumFractionDigits: 2, maximumFractionDigits: 4 });

export function money(value: string | null | undefined): string {
  if (value === null || value === undefined) return "—";
  const n = Number(value);
  return Number.isFinite(n) ? euro.format(n) : value;
}

/** A warehouse as every list and screen names it: "BO-CENTRALE — Magazzino Bologna". */
export function warehouseLabel(m: { codice: string; nome: string }): string {
  return m.nome && m.nome !== m.codice ? `${m.codice} — ${m.nome}` : m.codice;
}

/** YYYY-MM-DD → GG/MM/AAAA. */
export function day(iso: string | null | undefined): string {
  if (!iso) return "—";
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : iso;
}

/**
 * The zone instants are shown in: the service's (SERVICE_TIME_ZONE, set by the root layout through
 * DisplayTimeZone), not the process's or the browser's. The page is rendered on the server and then
 * hydrated in the browser; formatted in either's own zone, the two texts differ whenever their zones do
 * (a server in UTC, a browser in Rome) and React throws the page's render away (error #418).
 */
let displayZone = "Europe/Rome";

export function setDisplayTimeZone(zone: string): void {
  displayZone = zone;
}

const SHOWN = {
  date: { day: "2-digit", month: "2-digit", year: "numeric" },
  time: { hour: "2-digit", minute: "2-digit" },
  seconds: { hour: "2-digit", minute: "2-digit", second: "2-digit" },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

/**
 * By part shown and zone: `toLocale*String` with a zone builds a formatter per call, which costs far more
 * than formatting, and a list formats an instant or two per row.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function shownIn(part: keyof typeof SHOWN, at: Date): string {
  const key = `${part} ${displayZone}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("it-IT", { ...SHOWN[part], timeZone: displayZone });
    formatters.set(key, f);
  }
  return f.format(at);
}

const dateIn = (at: Date) => shownIn("date", at);
const timeIn = (at: Date) => shownIn("time", at);

/** gg/mm/aaaa hh:mm, as every date of the screens. */
export function instant(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "—" : `${dateIn(at)} ${timeIn(at)}`;
}

/** gg/mm/aaaa hh:mm:ss, where events follow each other within seconds (a webhook's attempts). */
export function instantToSecond(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "—" : `${dateIn(at)} ${shownIn("seconds", at)}`;
}

/**
 * When a movement was written, beside its business date: "ore 14:32" on that same day (the usual case),
 * the whole instant otherwise (a movement dated in the past, or written after midnight for the day before).
 */
export function registeredNote(data: string, registratoIl: string): string {
  const at = new Date(registratoIl);
  if (Number.isNaN(at.getTime())) return "";
  return dateIn(at) === day(data) ? `ore ${timeIn(at)}` : `registrato ${instant(registratoIl)}`;
}

/** "12,5" or "12.5" typed by a person → 12.5; null when it is not a number. */
export function parseDecimal(text: string): number | null {
  const t = text.trim().replace(",", ".");
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

/** "1 riga", "2 righe": a count with its noun in the right number. */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
