import { describe, expect, test } from "vitest";
import { csvCell, csvDecimal } from "./csv";

describe("CSV cells (formula injection, OWASP)", () => {
  test.each([
    ['=HYPERLINK("http://evil.example","clic")', '"\'=HYPERLINK(""http://evil.example"",""clic"")"'],
    ["=1+1", "'=1+1"],
    ["+39 051 123", "'+39 051 123"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ["@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"],
    ["\t=1+1", "'\t=1+1"],
    ["\r=1+1", '"\'\r=1+1"'],
    ["-", "'-"],
    ["=", "'="],
  ])("%j is written as text: %s", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  test.each([
    ["Vite TE M6x40", "Vite TE M6x40"],
    ["VITE-TE-M6X40", "VITE-TE-M6X40"],
    ['Vite "M6"; zincata', '"Vite ""M6""; zincata"'],
    ["riga\nnuova", '"riga\nnuova"'],
    ["a=b", "a=b"],
    ["", ""],
  ])("ordinary text %j stays as it is (quoted when needed)", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  test("numbers we write stay numbers: negative quantities with a decimal comma are not neutralised", () => {
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(12)).toBe("12");
    expect(csvCell("-3,5")).toBe("-3,5");
    expect(csvCell("-0,125")).toBe("-0,125");
    expect(csvDecimal("-3.125")).toBe("-3,125");
    expect(csvDecimal("10")).toBe("10");
    expect(csvDecimal(null)).toBe("");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
  });

  test("something that only looks like a number at first is text", () => {
    expect(csvCell("-3,5+1")).toBe("'-3,5+1");
    expect(csvDecimal("=1+1")).toBe("'=1+1");
    expect(csvCell("-1e3")).toBe("'-1e3");
  });
});
