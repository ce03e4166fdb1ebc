import { describe, expect, it } from "vitest";
import { looksLikeScanCode } from "./scan-code";

describe("looksLikeScanCode", () => {
  it("recognises EANs with their check digit, GS1 strings and order-row labels", () => {
    expect(looksLikeScanCode("8059990020019")).toBe(true);
    expect(looksLikeScanCode("96385074")).toBe(true);
    expect(looksLikeScanCode("(01)08059990020019(10)L1")).toBe(true);
    expect(looksLikeScanCode("]C10108059990020019")).toBe(true);
    expect(looksLikeScanCode("r123")).toBe(true);
  });
  it("takes anything else for a lot", () => {
    expect(looksLikeScanCode("8059990020018")).toBe(false);
    expect(looksLikeScanCode("L2611A")).toBe(false);
    expect(looksLikeScanCode("P2612-01")).toBe(false);
    expect(looksLikeScanCode("12345")).toBe(false);
    expect(looksLikeScanCode("")).toBe(false);
  });
});
