import { describe, expect, it } from "vitest";
import { gtinCheckDigit, isValidGtin } from "./gtin";

// Published codes: GS1's own EAN-13 example, a retail EAN-13, an ISBN-13, Wikipedia's EAN-8 and UPC-A
// examples, and GTIN-14 (GS1's example, and the UPC-A above with packaging indicator 1).
const REAL = ["5901234123457", "4006381333931", "9780306406157", "96385074", "036000291452", "00012345600012", "10036000291459"];

describe("isValidGtin", () => {
  it.each(REAL)("accepts %s", (code) => {
    expect(isValidGtin(code)).toBe(true);
  });

  it.each(REAL)("refuses every one-digit misread of %s", (code) => {
    for (let i = 0; i < code.length; i++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === code[i]) continue;
        const misread = `${code.slice(0, i)}${d}${code.slice(i + 1)}`;
        expect(isValidGtin(misread), misread).toBe(false);
      }
    }
  });

  it("refuses a swap of two adjacent digits that differ by other than 5", () => {
    expect(isValidGtin("5091234123457")).toBe(false);
  });

  it.each([
    "",
    "1234567",
    "59012341234577",
    "590123412345",
    "590123412345a",
    " 5901234123457",
    "5901234123457 ",
    "+901234123457",
    "590123412345.7",
  ])("refuses a malformed code %j", (code) => {
    expect(isValidGtin(code)).toBe(false);
  });

  it("computes the check digit of a code body", () => {
    expect(gtinCheckDigit("590123412345")).toBe(7);
    expect(gtinCheckDigit("9638507")).toBe(4);
    expect(gtinCheckDigit("0001234560001")).toBe(2);
  });
});
