import { describe, expect, test } from "vitest";
import { launch } from "./harness";
import { createFor, Receiver } from "./receiver";
import { createKey } from "./seed";
import { deleteWhileDelivering, expectNoSuspendedDeliveries } from "./webhook-delete";
import { ALLOW_PRIVATE, withDb, webhookSuite } from "./webhook-support";

/**
 * DELETE /webhook/{id} while a parallel endpoint delivers, two service processes on one database, four
 * races (webhook-delete.ts says what must hold); pgbouncer.test.ts runs one through the pooler.
 */

webhookSuite();

describe("DELETE /webhook/{id} while its endpoint delivers, on two instances", () => {
  test("no 5xx; delivered + failed + discarded = recorded; nothing received after the answer; gone on both", async () => {
    await withDb(async (c) => {
      const services = await Promise.all([
        launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE }),
        launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE }),
      ]);
      const hookKey = (await createKey(c.t.pool, ["webhook"])).chiave;
      const control = new Receiver();
      await control.open();
      await createFor(c.t, control);
      for (const [round, held] of [
        [0, true],
        [1, false],
        [2, true],
        [3, false],
      ] as const) {
        await deleteWhileDelivering(c, services, hookKey, control, round, held);
      }
      expectNoSuspendedDeliveries(services);
      expect(services.every((s) => s.running())).toBe(true);
    });
  }, 600_000);
});
