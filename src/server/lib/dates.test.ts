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
