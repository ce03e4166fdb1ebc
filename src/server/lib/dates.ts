/** Business dates and instants in the service time zone (docs/api.md section 1). */

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

/**
 * The calendar date (YYYY-MM-DD) of an instant in the given zone. Through the cached offsets below
 * (formatInstant), not an Intl call: every write asks for today's date, and formatToParts was a
 * visible share of the CPU a one-row POST /movimenti takes in the service.
 */
export function businessDate(timeZone: string, at: Date = new Date()): string {
  return formatInstant(timeZone, at).slice(0, 10);
}

const QUARTER_HOUR_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

/** The zone's exact UTC offset in minutes at an instant (one Intl call). */
function exactOffset(timeZone: string, atMs: number): number {
  const p = partsIn(timeZone, new Date(atMs));
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return Math.round((asUtc - Math.floor(atMs / 1000) * 1000) / 60000);
}

/**
 * A zone's offsets: by UTC day, the offset when it holds the whole day (null on a day with a change); by
 * quarter hour on days with a change (offsets change only on quarter hours). Numeric keys in a map per
 * zone: a page formats one instant per row, and building a string key per row cost a third of the time.
 */
interface ZoneOffsets {
  days: Map<number, number | null>;
  quarters: Map<number, number>;
}
const zones = new Map<string, ZoneOffsets>();

function remember<V>(map: Map<number, V>, key: number, value: V): V {
  if (map.size > 10_000) map.clear();
  map.set(key, value);
  return value;
}

/**
 * The zone's UTC offset in minutes at an instant. A day's offset is looked up once (at its first and
 * last second: equal means no change that day, since no zone changes twice in one day), so a page of
 * movements spread over months costs a few Intl calls, not one per row: Intl formatting was the
 * largest single cost of GET /movimenti.
 */
function offsetMinutes(timeZone: string, atMs: number): number {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    zone = { days: new Map(), quarters: new Map() };
    zones.set(timeZone, zone);
  }
  const day = Math.floor(atMs / DAY_MS);
  let whole = zone.days.get(day);
  if (whole === undefined) {
    const first = exactOffset(timeZone, day * DAY_MS);
    whole = remember(zone.days, day, first === exactOffset(timeZone, (day + 1) * DAY_MS - 1000) ? first : null);
  }
  if (whole !== null) return whole;
  const quarter = Math.floor(atMs / QUARTER_HOUR_MS);
  return zone.quarters.get(quarter) ?? remember(zone.quarters, quarter, exactOffset(timeZone, atMs));
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Proleptic Gregorian date of a count of days since 1970-01-01 (H. Hinnant's civil_from_days). */
function civilFromDays(days: number): { y: number; m: number; d: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d: doy - Math.floor((153 * mp + 2) / 5) + 1 };
}

/**
 * ISO 8601 with milliseconds and the zone's offset, e.g. 2026-11-21T10:15:02.120+01:00. Plain
 * arithmetic on the epoch: no Date object per call (a list formats one per row; it may pass epoch
 * milliseconds straight from SQL).
 */
export function formatInstant(timeZone: string, at: Date | number): string {
  const atMs = typeof at === "number" ? at : at.getTime();
  const offsetMin = offsetMinutes(timeZone, atMs);
  const local = atMs + offsetMin * 60_000;
  const days = Math.floor(local / DAY_MS);
  const { y, m, d } = civilFromDays(days);
  const msOfDay = local - days * DAY_MS;
  const ms = msOfDay % 1000;
  const secs = (msOfDay - ms) / 1000;
  const abs = Math.abs(offsetMin);
  const off = `${offsetMin < 0 ? "-" : "+"}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
  return `${String(y).padStart(4, "0")}-${pad2(m)}-${pad2(d)}T${pad2(Math.floor(secs / 3600))}:${pad2(Math.floor(secs / 60) % 60)}:${pad2(secs % 60)}.${String(ms).padStart(3, "0")}${off}`;
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
