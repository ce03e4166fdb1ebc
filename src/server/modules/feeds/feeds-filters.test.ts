import { describe, expect } from "vitest";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { get, LISTS, seedFeedsBeforeAll } from "./feeds-testing";

/** GET /articoli, /fornitori, /magazzini, /ordini-acquisto (docs/api.md section 9): every bad parameter refused, the OpenAPI parameters, a key required. */

seedFeedsBeforeAll();

describe("422 filtro_non_valido: every bad parameter, on every list", () => {
  const common: [string, string, string][] = [
    ["unknown parameter", "pagina=2", "pagina"],
    ["repeated parameter", "limite=5&limite=6", "limite"],
    ["limite 0", "limite=0", "limite"],
    ["limite over 100", "limite=101", "limite"],
    ["limite decimal", "limite=1.5", "limite"],
    ["limite empty", "limite=", "limite"],
    ["dopo negative", "dopo=-1", "dopo"],
    ["dopo not a number", "dopo=abc", "dopo"],
    ["modificati_dopo negative", "modificati_dopo=-1", "modificati_dopo"],
    ["modificati_dopo not a number", "modificati_dopo=uno", "modificati_dopo"],
    ["modificati_dopo empty", "modificati_dopo=", "modificati_dopo"],
    ["modificati_dopo decimal", "modificati_dopo=1.5", "modificati_dopo"],
    ["modificati_dopo beyond 2^53", "modificati_dopo=9007199254740992", "modificati_dopo"],
    ["modificati_dopo repeated", "modificati_dopo=1&modificati_dopo=2", "modificati_dopo"],
    ["dopo with modificati_dopo", "dopo=0&modificati_dopo=0", "modificati_dopo"],
    ["dopo with modificati_dopo, both set", "dopo=3&modificati_dopo=5", "modificati_dopo"],
    ["cerca empty", "cerca=", "cerca"],
    ["cerca blank", "cerca=%20%20", "cerca"],
    ["cerca over 100 characters", `cerca=${"x".repeat(101)}`, "cerca"],
    ["cerca repeated", "cerca=a&cerca=b", "cerca"],
  ];
  const masterData: [string, string, string][] = [
    ["attivo not a boolean", "attivo=si", "attivo"],
    ["attivo 1", "attivo=1", "attivo"],
    ["fornitore (orders only)", "fornitore=1", "fornitore"],
    ["da (orders only)", "da=2026-11-01", "da"],
  ];
  const orders: [string, string, string][] = [
    ["attivo (master data only)", "attivo=true", "attivo"],
    ["fornitore not a number", "fornitore=FA", "fornitore"],
    ["fornitore 0", "fornitore=0", "fornitore"],
    ["stato unknown", "stato=chiuso", "stato"],
    ["da not a date", "da=02/11/2026", "da"],
    ["a impossible date", "a=2026-02-30", "a"],
    ["da after a", "da=2026-11-22&a=2026-11-01", "da"],
  ];
  const cases = [
    ...LISTS.flatMap(([path]) => common.map(([n, qs, campo]) => [`${path}: ${n}`, `${path}?${qs}`, campo] as const)),
    ...LISTS.filter(([p]) => p !== "/ordini-acquisto").flatMap(([path]) =>
      masterData.map(([n, qs, campo]) => [`${path}: ${n}`, `${path}?${qs}`, campo] as const),
    ),
    ...orders.map(([n, qs, campo]) => [`/ordini-acquisto: ${n}`, `/ordini-acquisto?${qs}`, campo] as const),
  ];
  test.each(cases)("%s", async (_n, path, campo) => {
    const r = await get(path);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("filtro_non_valido");
    const fields = r.body.campo ? [r.body.campo] : r.body.dettagli.map((d: any) => d.campo);
    expect(fields).toContain(campo);
    expect(r.body.messaggio).toContain(campo);
  });

  test("the OpenAPI document lists the four endpoints with their parameters", async () => {
    const doc = (await rest("GET", "/openapi.json")).body;
    const params = (path: string) =>
      doc.paths[path].get.parameters
        .filter((p: any) => p.in === "query")
        .map((p: any) => p.name)
        .sort();
    const feed = ["cerca", "dopo", "limite", "modificati_dopo"];
    expect(params("/articoli")).toEqual([...feed, "attivo"].sort());
    expect(params("/fornitori")).toEqual([...feed, "attivo"].sort());
    expect(params("/magazzini")).toEqual([...feed, "attivo"].sort());
    expect(params("/ordini-acquisto")).toEqual([...feed, "a", "da", "fornitore", "stato"].sort());
  });

  test("reads need a key: 401 without one", async () => {
    for (const [path] of LISTS) expect((await rest("GET", path)).status).toBe(401);
  });
});
