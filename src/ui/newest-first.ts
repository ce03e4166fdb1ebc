/**
 * Newest first over a list the API pages oldest first (`dopo` = the id after which a page starts,
 * ascending, the sync order): the page of the `size` rows just before `before` (Infinity: the newest),
 * found by asking the list itself where it starts. `rows(d)` answers up to `size + 1` rows with id > d,
 * ascending; the page starts at the smallest d that leaves at most `size` rows below `before`, found
 * with `fanOut` probes at a time, one batched request per round: a first round by powers of two, then
 * about log16 of that power (3 rounds for a few hundred ids, 6 for a million).
 *
 * The list's own gate (rows committed below a gap are not shown yet) holds for every probe, so a page
 * never shows what the list would not. A list with a "before" parameter would make this one request.
 */
export interface Page<R> {
  /** Newest first. */
  rows: R[];
  /** Rows older than this page exist. */
  older: boolean;
}

const TOP = 2_147_483_647;

export async function pageBefore<R extends { id: number }>(
  rows: (dopo: number) => Promise<R[]>,
  before: number,
  size: number,
  fanOut = 15,
): Promise<Page<R>> {
  const seen = new Map<number, R[]>();
  const below = async (d: number) => {
    let r = seen.get(d);
    if (!r) {
      r = (await rows(d)).filter((x) => x.id < before);
      seen.set(d, r);
    }
    return r;
  };
  // fits(d): at most `size` rows between d and before; false for small d, true from some d on.
  const fits = async (d: number) => (await below(d)).length <= size;
  // Every d below lo leaves too many rows; hi leaves few enough (nothing lies between before - 1 and before).
  let lo = 0;
  let hi = Math.min(TOP, Number.isFinite(before) ? before - 1 : TOP);
  // The first round gallops (0, 16, 32, 64, … 2^30): ids are dense near the bottom, so it finds the
  // power of two the start lies under; each next round probes evenly between lo and hi.
  let probes = [0, ...Array.from({ length: 27 }, (_, k) => 2 ** (k + 4))].filter((p) => p < hi);
  while (lo < hi) {
    const answers = await Promise.all(probes.map(fits));
    const first = answers.indexOf(true);
    if (first === -1) lo = probes.at(-1)! + 1;
    else {
      hi = probes[first]!;
      if (first > 0) lo = probes[first - 1]! + 1;
    }
    const points = new Set<number>();
    for (let j = 0; j < fanOut; j++) points.add(lo + Math.floor(((hi - lo) * j) / fanOut));
    probes = [...points].filter((p) => p >= lo && p < hi).sort((x, y) => x - y);
  }
  return { rows: [...(await below(hi))].reverse(), older: hi > 0 };
}
