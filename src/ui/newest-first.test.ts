import { describe, expect, it } from "vitest";
import { pageBefore } from "./newest-first";

/** A list paged oldest first by `dopo`, as the API's; counts the calls. */
function list(ids: number[], limit: number) {
  const sorted = [...ids].sort((a, b) => a - b);
  let calls = 0;
  return {
    rows: async (dopo: number) => {
      calls++;
      return sorted
        .filter((id) => id > dopo)
        .slice(0, limit)
        .map((id) => ({ id }));
    },
    calls: () => calls,
  };
}

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

describe("pageBefore", () => {
  it("pages newest first, down to the oldest row, with sparse ids", async () => {
    const all = Array.from({ length: 137 }, (_, i) => 5 + i * 7 + (i % 3));
    const l = list(all, 11);
    const seen: number[] = [];
    let before = Number.POSITIVE_INFINITY;
    for (;;) {
      const page = await pageBefore(l.rows, before, 10, 7);
      expect(page.rows.length).toBeLessThanOrEqual(10);
      seen.push(...ids(page.rows));
      if (!page.older) break;
      expect(page.rows).toHaveLength(10);
      before = page.rows.at(-1)!.id;
    }
    expect(seen).toEqual([...all].sort((a, b) => b - a));
  });

  it("answers a short list in one round and an empty one with nothing", async () => {
    const short = list([3, 9, 12], 11);
    expect(await pageBefore(short.rows, Number.POSITIVE_INFINITY, 10)).toEqual({ rows: [{ id: 12 }, { id: 9 }, { id: 3 }], older: false });
    expect(short.calls()).toBeLessThanOrEqual(28);
    expect(await pageBefore(list([], 11).rows, Number.POSITIVE_INFINITY, 10)).toEqual({ rows: [], older: false });
  });

  it("finds the newest page among 2^31 possible ids in a few rounds", async () => {
    const all = Array.from({ length: 5000 }, (_, i) => 1_000_000 + i * 13);
    const l = list(all, 51);
    const page = await pageBefore(l.rows, Number.POSITIVE_INFINITY, 50);
    expect(ids(page.rows)).toEqual(all.slice(-50).reverse());
    expect(page.older).toBe(true);
    // One galloping round, then about log16(2^21) rounds of 15.
    expect(l.calls()).toBeLessThan(28 + 15 * 6);
  });
});
