import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import { validateImport } from "./import.service";
import { ean, refusal, snapshot, t, openImportDbBeforeAll } from "./import-testing";

/** importMasterData and validateImport on a file that needs no earlier import: refused as a whole, U+0000, a good file checked. */

openImportDbBeforeAll();

describe("importMasterData", () => {
  test("a file that is not an object of sections is refused as a whole", async () => {
    expect(await refusal([1, 2])).toEqual([{ campo: "file", messaggio: expect.stringContaining("oggetto JSON con le sezioni") }]);
    expect(await refusal({ articoli: { codice: "X" } })).toEqual([{ campo: "articoli", messaggio: "deve essere un elenco [ … ]" }]);
  });

  test("text holding U+0000 is refused with its path before the database is asked about it", async () => {
    const before = await snapshot();
    const problems = await refusal({
      magazzini: [{ codice: "M\u0000", nome: "Magazzino" }],
      articoli: [
        { codice: "NUL-1", descrizione: "a\u0000b" },
        { codice: "NUL-2", descrizione: "Buono" },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { campo: "articoli[0].descrizione", messaggio: expect.stringContaining("U+0000") },
        { campo: "magazzini[0].codice", messaggio: expect.stringContaining("U+0000") },
      ]),
    );
    expect(await snapshot()).toEqual(before);
  });

  test("validateImport of a good file finds nothing and writes nothing", async () => {
    const before = await snapshot();
    expect(await validateImport({ articoli: [{ codice: "NUOVO", descrizione: "Nuovo", ean: ean(20) }] }, t.prisma)).toEqual({
      problemi: [],
    });
    expect(await snapshot()).toEqual(before);
  });
});
