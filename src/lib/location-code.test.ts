import { describe, expect, test } from "vitest";
import { locationCodeProblem } from "./barcode";
import { isValidSscc } from "./gtin";

/** A location's code is what its label reads: never something a scan would read as goods (docs/api.md section 11, "Codes"). */
describe("locationCodeProblem", () => {
  test.each([
    ["EAN-13", "8001234567897", "EAN"],
    ["EAN-8", "96385074", "EAN"],
    ["UPC-A", "036000291452", "EAN"],
    ["GTIN-14", "18001234567894", "EAN"],
    ["SSCC", "376104250021234569", "SSCC"],
    ["SSCC with its AI, bare", "00376104250021234569", "SSCC"],
    ["SSCC with its AI, bracketed", "(00)376104250021234569", "SSCC"],
    ["GS1 bracketed", "(01)08001234567897(10)L1", "GS1"],
    ["GS1 bracketed, unreadable", "(10)ABC", "GS1"],
    ["GS1 with a symbology identifier", "]C1010800123456789710L1", "GS1"],
    ["GS1 element string", "010800123456789710L1", "GS1"],
    ["order-row label", "R1042", "etichetta"],
    ["order-row label, lower case", "r7", "etichetta"],
  ])("refused: %s", (_n, code, word) => {
    expect(locationCodeProblem(code)).toContain(word);
  });

  test.each([
    ["a shelf", "A-01-02"],
    ["a bay", "RAMPA-3"],
    ["18 digits, wrong SSCC check digit", "376104250021234560"],
    ["13 digits, wrong EAN check digit", "8001234567890"],
    ["a short number", "0104"],
    ["R and letters", "RIC"],
  ])("accepted: %s", (_n, code) => {
    expect(locationCodeProblem(code)).toBeNull();
  });
});

test("isValidSscc: 18 digits, GS1 check digit", () => {
  expect(isValidSscc("376104250021234569")).toBe(true);
  expect(isValidSscc("376104250021234560")).toBe(false);
  expect(isValidSscc("37610425002123456")).toBe(false);
});
