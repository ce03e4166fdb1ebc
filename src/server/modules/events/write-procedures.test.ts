import { describe, expect } from "vitest";
import { countRows } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { EVENT_TYPES } from "../../../lib/domain-lists";
import { seedWriteProceduresBeforeAll, committedEvents, domainSnapshot, lastSeq, t } from "./write-procedures-testing";
import { appRouter } from "../../trpc/router";
import { WRITES } from "./write-procedures.fixtures";
import { NO_EVENT } from "./no-event-procedures.fixtures";

/**
 * Every write procedure of the router, and its events (docs/api.md section 10: "every write that changes stock, an
 * order or master data also records an event, in the same transaction"). Two tables classify every mutation of
 * `appRouter`: WRITES (write-procedures.fixtures.ts), with one valid write and the event types it must record, and
 * NO_EVENT (no-event-procedures.fixtures.ts), the
 * mutations that change no stock, order or master data (sessions, users, API keys, reads sent as mutations).
 * A mutation in neither table fails the first test, so a new write path cannot be added without deciding
 * which events it records. Each entry then runs: a write must change the domain's tables and record exactly
 * its events, committed (read back through GET /eventi); a NO_EVENT mutation must change neither.
 *
 * The NO_EVENT entries run in no-event-procedures.test.ts.
 */

seedWriteProceduresBeforeAll();

/** The router's procedures by path ("movements.write"), with their kind. */
const procedures = () => Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>);

const mutations = () =>
  procedures()
    .filter(([, p]) => p._def.type === "mutation")
    .map(([path]) => path)
    .sort();

describe("classification", () => {
  test("every mutation of the router is in WRITES or NO_EVENT, and the tables name only mutations", () => {
    const all = mutations();
    expect(all.length).toBeGreaterThan(15);
    const unclassified = all.filter((m) => !(m in WRITES) && !(m in NO_EVENT));
    expect(unclassified, "mutations in neither table: add each to WRITES with its event types, or to NO_EVENT").toEqual([]);
    expect(
      Object.keys(WRITES).filter((m) => m in NO_EVENT),
      "in both tables",
    ).toEqual([]);
    expect([...Object.keys(WRITES), ...Object.keys(NO_EVENT)].sort(), "stale entries").toEqual(all);
    // Queries write nothing: none of them hides among the writes.
    const queries = procedures()
      .filter(([, p]) => p._def.type !== "mutation")
      .map(([path]) => path);
    expect(queries.filter((q) => q in WRITES)).toEqual([]);
  });

  test("every event type of the contract is recorded by some write", () => {
    expect(new Set(Object.values(WRITES).flatMap((w) => w.events))).toEqual(new Set(EVENT_TYPES));
  });
});

describe.each(Object.entries(WRITES))("%s", (path, write) => {
  test(`commits its change with ${write.events.join(" + ") || "no event"}`, async () => {
    await write.prepare?.();
    const before = { n: await countRows(t, "eventi"), seq: await lastSeq(), data: await domainSnapshot() };
    await write.run();
    expect(await domainSnapshot(), `${path} changed no stock, order or master data`).not.toEqual(before.data);
    const events = await committedEvents(before.seq);
    expect(
      events.map((e) => e.tipo),
      `${path} must record ${JSON.stringify(write.events)}`,
    ).toEqual(write.events);
    expect(await countRows(t, "eventi")).toBe(before.n + write.events.length);
    const seqs = events.map((e) => e.sequenza);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});
