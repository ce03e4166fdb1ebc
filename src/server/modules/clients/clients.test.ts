import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { searchClients } from "./clients.service";

let t: TestDb;
test.beforeAll(async ({ db }) => {
  t = db;
  // More clients than one page of GET /clienti (100): the picker must reach every one.
  await t.prisma.cliente.createMany({
    data: Array.from({ length: 150 }, (_, i) => ({
      codice: `CL-${String(i + 1).padStart(3, "0")}`,
      ragione_sociale: i === 139 ? "Ferramenta Rossi 100% S.r.l." : `Cliente ${String(i + 1).padStart(3, "0")} S.p.A.`,
      partita_iva: i === 139 ? "01234567890" : null,
      data: new Date("2026-11-01T00:00:00Z"),
    })),
  });
});

describe("client picker search", () => {
  test("finds a client beyond the first hundred by part of its name, whatever the case", async () => {
    const found = await searchClients(t.prisma, "ferramenta ROSSI");
    expect(found.map((c) => c.codice)).toEqual(["CL-140"]);
  });

  test("by code (an exact code first) and by VAT number", async () => {
    expect((await searchClients(t.prisma, "cl-014"))[0]!.codice).toBe("CL-014");
    expect((await searchClients(t.prisma, "01234567890")).map((c) => c.codice)).toEqual(["CL-140"]);
  });

  test("% and _ are searched literally, not as wildcards", async () => {
    expect((await searchClients(t.prisma, "100%")).map((c) => c.codice)).toEqual(["CL-140"]);
    expect(await searchClients(t.prisma, "_")).toEqual([]);
  });

  test("without text: the first 20 by name", async () => {
    const first = await searchClients(t.prisma, "");
    expect(first).toHaveLength(20);
    expect(first[0]!.ragione_sociale).toBe("Cliente 001 S.p.A.");
    expect(first.map((c) => c.ragione_sociale)).toEqual([...first.map((c) => c.ragione_sociale)].sort());
  });
});
