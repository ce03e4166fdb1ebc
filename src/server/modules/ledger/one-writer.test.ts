import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

/**
 * The ledger's append (ledger.queries.ts appendLedger) is the only statement that inserts movements, and it
 * records the movements' event in the same statement (docs/api.md section 10: an event exists if and only if its
 * change committed). A second writer of `movimenti` would append stock without its event: this test fails
 * as soon as one appears anywhere in the service's code.
 */
test("movements are inserted by the ledger's append alone", () => {
  const root = path.resolve(import.meta.dirname, "../../..");
  const writers: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.includes(".test.")) {
        if (/INSERT\s+INTO\s+"?movimenti"?\s*\(/i.test(fs.readFileSync(p, "utf8"))) writers.push(path.relative(root, p));
      }
    }
  };
  walk(path.join(root, "server"));
  walk(path.join(root, "cli"));
  expect(writers).toEqual(["server/modules/ledger/ledger.queries.ts"]);
});
