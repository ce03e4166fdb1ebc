import { describe, expect, test } from "vitest";
import { isValidSscc, readSscc } from "./sscc";

describe("SSCC", () => {
  // Extension 3, company prefix 0614141, serial 123456789, check digit 1.
  const sscc = "306141411234567891";
  test("the check digit", () => {
    expect(isValidSscc(sscc)).toBe(true);
    expect(isValidSscc("306141411234567892")).toBe(false);
    expect(isValidSscc("30614141123456789")).toBe(false);
  });
  test("a scan: bare, bracketed, with AI and symbology identifier; anything else is not an SSCC", () => {
    expect(readSscc(sscc)).toBe(sscc);
    expect(readSscc(`(00)${sscc}`)).toBe(sscc);
    expect(readSscc(`00${sscc}`)).toBe(sscc);
    expect(readSscc(`]C100${sscc}\r\n`)).toBe(sscc);
    expect(readSscc("306141411234567892")).toBeNull();
    expect(readSscc("8001234567895")).toBeNull();
    expect(readSscc("R1042")).toBeNull();
  });
});
