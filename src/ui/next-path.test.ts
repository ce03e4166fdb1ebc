import { describe, expect, test } from "vitest";
import { HOME_PATH, safeNextPath } from "./next-path";

describe("safeNextPath: only a known screen of this service", () => {
  test.each([
    ["/ricevimento", "/ricevimento"],
    ["/ricevimento/fornitore", "/ricevimento/fornitore"],
    ["/movimenti?articolo=3&da=2026-11-01", "/movimenti?articolo=3&da=2026-11-01"],
    ["/ordini/42/etichette", "/ordini/42/etichette"],
    ["/chiavi-api", "/chiavi-api"],
    ["/", "/"],
    ["/ricevimento#riga", "/ricevimento"],
  ])("%s → %s", (dopo, expected) => {
    expect(safeNextPath(dopo)).toBe(expected);
  });

  const hostile = [
    "//evil.example",
    "//evil.example/ricevimento",
    "/\\evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "/%5Cevil.example",
    "/%5cevil.example",
    "/%2F%2Fevil.example",
    "/%2fevil.example",
    "/%09/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    " //evil.example",
    "http://evil.example",
    "https://evil.example/ricevimento",
    "HTTP://evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox",
    "///evil.example",
    "/.//evil.example",
    "/ricevimento/../../evil.example",
    "/accesso",
    "/accesso?dopo=//evil.example",
    "/api/v1/movimenti",
    "/non-esiste",
    "/ordini/abc/etichette",
    "/ricevimento@evil.example",
    "//user:pass@evil.example",
    "evil.example",
    "ricevimento",
    "",
    "/\u0000",
    "/\u2028evil.example",
  ];
  test.each(hostile)("%j goes home", (dopo) => {
    expect(safeNextPath(dopo)).toBe(HOME_PATH);
  });

  test("a repeated parameter: the first counts; nothing at all goes home", () => {
    expect(safeNextPath(["//evil.example", "/ricevimento"])).toBe(HOME_PATH);
    expect(safeNextPath(["/inventario", "//evil.example"])).toBe("/inventario");
    expect(safeNextPath(undefined)).toBe(HOME_PATH);
    expect(safeNextPath(null)).toBe(HOME_PATH);
  });

  test("whatever it returns, the browser resolves it onto our origin", () => {
    for (const dopo of hostile) {
      const base = "https://banchina.example";
      expect(new URL(safeNextPath(dopo), base).origin).toBe(base);
    }
  });
});
