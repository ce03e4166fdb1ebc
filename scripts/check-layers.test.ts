import { describe, expect, it } from "vitest";
import { type Edge, graphProblems } from "./check-layers";

const M = "src/server/modules";
const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, line: 1, typeOnly });

/** A small house without a circle: http over trpc over the routers over services over queries over db. */
const HOUSE: Edge[] = [
  edge("src/server/http/rest-handler.ts", "src/server/trpc/router.ts"),
  edge("src/server/trpc/router.ts", `${M}/orders/orders.router.ts`),
  edge(`${M}/orders/orders.router.ts`, "src/server/trpc/init.ts"),
  edge(`${M}/orders/orders.router.ts`, `${M}/orders/orders.service.ts`),
  edge(`${M}/orders/orders.service.ts`, `${M}/orders/orders.queries.ts`),
  edge(`${M}/orders/orders.service.ts`, `${M}/catalogue/articles.service.ts`),
  edge(`${M}/catalogue/articles.service.ts`, `${M}/catalogue/articles.queries.ts`),
  edge(`${M}/catalogue/articles.queries.ts`, "src/server/db/sql.ts"),
];

describe("check-layers: the module graph and the queries of other modules", () => {
  it("passes a house whose imports go one way", () => {
    expect(graphProblems(HOUSE)).toEqual([]);
  });

  it("fails a new circle of modules, even a type-only one, and prints its path", () => {
    const problems = graphProblems([...HOUSE, edge(`${M}/catalogue/articles.service.ts`, `${M}/orders/orders.types.ts`, true)]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^a circle of modules: catalogue -> orders -> catalogue\n/);
    expect(problems[0]).toContain(`catalogue -> orders   (${M}/catalogue/articles.service.ts:1, type)`);
    expect(problems[0]).toContain(`orders -> catalogue   (${M}/orders/orders.service.ts:1)`);
  });

  it("fails a circle of top-level server folders (a router counts as trpc)", () => {
    const problems = graphProblems([...HOUSE, edge(`${M}/orders/orders.router.ts`, "src/server/http/errors.ts")]);
    expect(problems).toEqual([expect.stringMatching(/^a circle of server folders: http -> trpc -> http\n/)]);
  });

  it("fails a circle of files within a folder, with the whole path of a longer one", () => {
    const problems = graphProblems([
      ...HOUSE,
      edge("src/server/http/rest-handler.ts", "src/server/http/binary-body.ts"),
      edge("src/server/http/binary-body.ts", "src/server/http/photo.ts"),
      edge("src/server/http/photo.ts", "src/server/http/rest-handler.ts", true),
    ]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^a circle of files: src\/server\/http\/binary-body.ts -> src\/server\/http\/photo.ts -> src\/server\/http\/rest-handler.ts -> src\/server\/http\/binary-body.ts\n/,
      ),
    ]);
  });

  it("fails an import of another module's queries, and only of another module's", () => {
    const reach = edge(`${M}/orders/orders.service.ts`, `${M}/catalogue/articles.queries.ts`);
    expect(graphProblems([...HOUSE, reach])).toEqual([
      `${M}/orders/orders.service.ts:1  imports ${M}/catalogue/articles.queries.ts: another module's queries; call a function of the catalogue service (or move the statement into the module that owns it)`,
    ]);
    // From outside any module too: the statements are the owning module's.
    expect(graphProblems([edge("src/server/trpc/write.ts", `${M}/idempotency/idempotency.queries.ts`)])).toHaveLength(1);
  });

  it("lets no reach through: the stock writers' warehouse gate, once another module's queries, fails as any other", () => {
    const reach = edge(`${M}/catalogue/catalogue.queries.ts`, `${M}/ledger/location-balances.queries.ts`);
    expect(graphProblems([reach])).toHaveLength(1);
    // A SQL fragment outside any queries file is what both may import.
    expect(graphProblems([edge(`${M}/catalogue/catalogue.queries.ts`, `${M}/ledger/warehouse-gate.ts`)])).toEqual([]);
  });

  it("leaves no import out of the graph: arrivals and notices importing each other is a circle", () => {
    const back = edge(`${M}/notices/notices.router.ts`, `${M}/arrivals/receiving.router.ts`);
    expect(graphProblems([back])).toEqual([]);
    const another = edge(`${M}/arrivals/search.service.ts`, `${M}/notices/pallet-scan.service.ts`);
    expect(graphProblems([back, another])).toEqual([expect.stringMatching(/^a circle of modules: arrivals -> notices -> arrivals\n/)]);
  });
});
