import { describe, expect } from "vitest";
import { countRows } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { seedWriteProceduresBeforeAll, committedEvents, domainSnapshot, lastSeq, t } from "./write-procedures-testing";
import { NO_EVENT } from "./no-event-procedures.fixtures";

/**
 * The NO_EVENT entries of write-procedures.fixtures.ts's classification (see write-procedures.test.ts): each must
 * succeed, record no event and change no stock, order or master data.
 */

seedWriteProceduresBeforeAll();

describe.each(Object.entries(NO_EVENT))("%s", (path, entry) => {
  test(`records no event (${entry.why}) and changes no stock, order or master data`, async () => {
    await entry.prepare?.();
    const before = { n: await countRows(t, "eventi"), seq: await lastSeq(), data: await domainSnapshot() };
    await entry.run();
    expect(await domainSnapshot(), path).toEqual(before.data);
    expect(await committedEvents(before.seq), path).toEqual([]);
    expect(await countRows(t, "eventi")).toBe(before.n);
  });
});
