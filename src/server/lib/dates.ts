/** Business dates and instants in the service time zone (API.md section 1). */

const dateFormatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(timeZone: string, at: Date) {
  let f = dateFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    dateFormatters.set(timeZone, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(at)) p[part.type] = part.value;
  return p as Record<"year" | "month" | "day" | "hour" | "minute" | "second", string>;
}

/** The calendar date (YYYY-MM-DD) of an instant in the given zone. */
export function businessDate(timeZone: string, at: Date = new Date()): string {
  const p = partsIn(timeZone, at);
  return `${p.year}-${p.month}-${p.day}`;
}

const QUARTER_HOUR_MS = 15 * 60_000;
const offsets = new Map<string, number>();

/**
 * The zone's UTC offset in minutes at an instant. Offsets change only on quarter hours, so one Intl
 * call per zone and quarter hour serves every instant in it: a page of 100 movements costs one call,
 * not 100 (Intl formatting was the largest single cost of GET /movimenti).
 */
function offsetMinutes(timeZone: string, at: Date): number {
  const key = `${timeZone}|${Math.floor(at.getTime() / QUARTER_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const p = partsIn(timeZone, at);
    const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
    offset = Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60000);
    if (offsets.size > 10_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** ISO 8601 with milliseconds and the zone's offset, e.g. 2026-11-21T10:15:02.120+01:00. */
export function formatInstant(timeZone: string, at: Date): string {
  const offsetMin = offsetMinutes(timeZone, at);
  const l = new Date(at.getTime() + offsetMin * 60_000);
  const p = {
    year: pad(l.getUTCFullYear(), 4),
    month: pad(l.getUTCMonth() + 1),
    day: pad(l.getUTCDate()),
    hour: pad(l.getUTCHours()),
    minute: pad(l.getUTCMinutes()),
    second: pad(l.getUTCSeconds()),
  };
  const sign = offsetMin < 0 ? "-" : "+";
  const abs = Math.abs(offsetMin);
  const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  const ms = String(at.getUTCMilliseconds()).padStart(3, "0");
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${ms}${off}`;
}

/** A DATE column as Prisma returns it (midnight UTC) → YYYY-MM-DD. */
export function formatDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function formatDateOrNull(d: Date | null | undefined): string | null {
  return d ? formatDate(d) : null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD (2026-02-30 is not). */
export function isIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

/** YYYY-MM-DD → Date at midnight UTC, the form Prisma expects for DATE columns. */
export function dateFromIso(s: string): Date {
  return new Date(`${s}T00:00:00.000Z`);
}
