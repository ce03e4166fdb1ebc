import { describe, expect, it } from "vitest";
import { parseItalianDate } from "./dates";

describe("parseItalianDate", () => {
  it("reads the ways an Italian operator types a date", () => {
    for (const t of ["30/11/2027", "30-11-27", "30.11.2027", "30112027", "301127", " 30/11/27 ", "2027-11-30"])
      expect(parseItalianDate(t), t).toBe("2027-11-30");
    expect(parseItalianDate("1/2/2026")).toBe("2026-02-01");
  });
  it("refuses what is no date", () => {
    for (const t of ["", "31/11/2027", "29/02/2027", "30/13/2027", "3011", "abc", "2027-11-31", "11/30/2027"])
      expect(parseItalianDate(t), t).toBeNull();
    expect(parseItalianDate("29/02/2028")).toBe("2028-02-29");
  });
});
