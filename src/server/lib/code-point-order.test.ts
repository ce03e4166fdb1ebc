import fc from "fast-check";
import { describe, expect } from "vitest";
import { lotLockOrder } from "../modules/ledger/ledger.service";
import { type LocationKey, locationLockOrder } from "../modules/ledger/location-balances.service";
import type { TestDb } from "../testing/db";
import { test } from "../testing/test";
import { compareCodePoints } from "./code-point-order";

/** JS's lock orders against the database's: the codes as `ORDER BY code COLLATE "C"` sorts them. */

let t: TestDb;
test.beforeAll(({ db }) => {
  t = db;
});

async function databaseOrder(codes: string[]): Promise<string[]> {
  const { rows } = await t.pool.query<{ c: string }>(`SELECT c FROM unnest($1::text[]) AS u(c) ORDER BY c COLLATE "C"`, [codes]);
  return rows.map((r) => r.c);
}

// Above U+FFFF (surrogate pairs in UTF-16) against U+E000-U+FFFF, where UTF-16 units and code points disagree.
const CODES = ["𝔸", "ｚ", "\uE000", "\uFFFD", "😀", "z", "Z", "é", "ß", "L-1", "L-10", "L-𝟙", "L-Ａ", "", "𠀀", "\uD7FF"];

/** Any character PostgreSQL's text holds (not NUL, no lone surrogate), weighted to the ranges where UTF-16 and code points part. */
const CODE_POINT = fc
  .oneof(
    fc.integer({ min: 1, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0xffff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((cp) => String.fromCodePoint(cp));

describe("compareCodePoints", () => {
  test("'𝔸' (U+1D538) after 'ｚ' (U+FF5A), as the database sorts them, where JS < puts it before", async () => {
    expect("𝔸" < "ｚ").toBe(true);
    expect(compareCodePoints("𝔸", "ｚ")).toBeGreaterThan(0);
    expect(await databaseOrder(["𝔸", "ｚ"])).toEqual(["ｚ", "𝔸"]);
  });

  test('sorts codes as ORDER BY … COLLATE "C" does', async () => {
    expect([...CODES].sort(compareCodePoints)).toEqual(await databaseOrder(CODES));
    const codes = fc.sample(fc.string({ unit: CODE_POINT, maxLength: 6 }), { numRuns: 2000, seed: 42 });
    expect([...codes].sort(compareCodePoints)).toEqual(await databaseOrder(codes));
  });

  test("lotLockOrder and locationLockOrder order lot codes as the database does", async () => {
    const expected = await databaseOrder(CODES);
    const lots = CODES.map((lotto, indice) => ({ article: { id: 1 }, lotto, indice }));
    expect([...lots].sort(lotLockOrder).map((l) => l.lotto)).toEqual(expected);
    const places: LocationKey[] = CODES.map((codice, id) => ({
      articolo: { id: 1, codice: "A" },
      magazzino: 1,
      ubicazione: { id: 1, codice: "U" },
      lotto: { id, codice },
    }));
    expect([...places].sort(locationLockOrder).map((p) => p.lotto!.codice)).toEqual(expected);
  });
});
