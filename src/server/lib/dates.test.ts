import { describe, expect, test } from "vitest";
import { businessDate, formatInstant, isIsoDate } from "./dates";

describe("formatInstant", () => {
  test.each([
    ["winter", "2026-11-21T09:15:02.120Z", "2026-11-21T10:15:02.120+01:00"],
    ["summer", "2026-07-01T22:30:00.005Z", "2026-07-02T00:30:00.005+02:00"],
    ["last instant before the spring change", "2026-03-29T00:59:59.999Z", "2026-03-29T01:59:59.999+01:00"],
    ["first instant after it", "2026-03-29T01:00:00.000Z", "2026-03-29T03:00:00.000+02:00"],
    ["autumn change, first 02:30", "2026-10-25T00:30:00.000Z", "2026-10-25T02:30:00.000+02:00"],
    ["autumn change, second 02:30", "2026-10-25T01:30:00.000Z", "2026-10-25T02:30:00.000+01:00"],
  ])("Europe/Rome, %s", (_n, utc, expected) => {
    expect(formatInstant("Europe/Rome", new Date(utc))).toBe(expected);
  });

  /** Reference: the same instant formatted by Intl alone, one call per instant. */
  const formatters = new Map<string, Intl.DateTimeFormat>();
  function reference(timeZone: string, at: Date): string {
    const p: Record<string, string> = {};
    const f =
      formatters.get(timeZone) ??
      new Intl.DateTimeFormat("en-CA", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
        timeZoneName: "longOffset",
      });
    formatters.set(timeZone, f);
    for (const part of f.formatToParts(at)) p[part.type] = part.value;
    const off = p.timeZoneName === "GMT" ? "+00:00" : p.timeZoneName!.slice(3);
    return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${String(at.getUTCMilliseconds()).padStart(3, "0")}${off}`;
  }

  // The cache keeps one offset per day and falls back per quarter hour on days with a change: every
  // instant of two years, 16 min 43.457 s apart (so every minute and millisecond pattern comes round),
  // must read as Intl reads it, in zones with 30-minute changes, odd offsets and both hemispheres.
  test.each(["Europe/Rome", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/Santiago", "UTC"])(
    "%s: two years of instants agree with Intl",
    (zone) => {
      const from = Date.UTC(2025, 0, 1);
      const to = Date.UTC(2027, 0, 1);
      let mismatches = 0;
      let first = "";
      for (let t = from; t < to; t += 1_003_457) {
        const at = new Date(t);
        const got = formatInstant(zone, at);
        const want = reference(zone, at);
        if (got !== want && mismatches++ === 0) first = `${at.toISOString()}: ${got} ≠ ${want}`;
      }
      expect(first).toBe("");
      expect(mismatches).toBe(0);
    },
  );

  test("years before 1970 and after 2100", () => {
    expect(formatInstant("UTC", new Date("1969-12-31T23:59:59.999Z"))).toBe("1969-12-31T23:59:59.999+00:00");
    expect(formatInstant("Europe/Rome", new Date("2104-02-29T12:00:00.000Z"))).toBe("2104-02-29T13:00:00.000+01:00");
  });

  test("zones with half-hour offsets and west of UTC", () => {
    expect(formatInstant("Asia/Kolkata", new Date("2026-01-01T00:00:00Z"))).toBe("2026-01-01T05:30:00.000+05:30");
    expect(formatInstant("America/New_York", new Date("2026-01-01T03:00:00Z"))).toBe("2025-12-31T22:00:00.000-05:00");
  });
});

test("business dates follow the service time zone, not UTC", () => {
  expect(businessDate("Europe/Rome", new Date("2026-11-21T23:30:00Z"))).toBe("2026-11-22");
  expect(isIsoDate("2026-02-29")).toBe(false);
  expect(isIsoDate("2028-02-29")).toBe(true);
});
