import { describe, expect, test } from "vitest";
import { limit } from "../../db/sql";
import { availabilityPage } from "../availability/availability.queries";
import { eventsPage } from "../events/events.queries";
import { articlesPage, purchaseOrdersPage } from "../feeds/feeds.queries";
import { movementsPage } from "../movements/movements.queries";
import { documentsPage } from "../sales/sales.queries";

/**
 * The pages' LIMIT is part of the statement's text, not a parameter (db/sql.ts `limit`): a generic plan
 * costed for an unknown limit chose a parallel scan for every 100-row page of the 1,000,000-row ledger
 * (the bench's movement scan then falls far below its goal). Bound as a parameter again, these fail.
 */
describe("paged statements carry their limit in the text", () => {
  const pages = {
    movimenti: movementsPage(0, {}, 101).sql,
    disponibilita: availabilityPage(0, 501, null, {}).sql,
    eventi: eventsPage(0, null, 101).sql,
    articoli: articlesPage({ by: "id", after: 0 }, 101, {}).sql,
    "articoli per versione": articlesPage({ by: "versione", after: 0 }, 101, {}).sql,
    "documenti di vendita": documentsPage(0, {}, 101).sql,
  };
  for (const [name, sql] of Object.entries(pages)) {
    test(name, () => {
      expect(sql.text).toMatch(/\bLIMIT (101|501)\b/);
      expect(sql.text).not.toMatch(/\bLIMIT \$\d/);
    });
  }

  test("purchase orders", () => {
    const sql = purchaseOrdersPage({ by: "id", after: 0 }, 26, {}).sql;
    expect(sql.text).toMatch(/\bLIMIT 26\b/);
  });

  test("a limit that is not a positive integer is refused before it reaches the text", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => limit(bad)).toThrow();
    expect(limit(7).text).toBe("LIMIT 7");
  });
});
