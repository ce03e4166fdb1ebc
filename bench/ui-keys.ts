import type { CDPSession, Page } from "@playwright/test";
import { type Stats, stats } from "./ui-page";
import { sleep } from "./util";

/**
 * The cost of one keystroke in a dock field, as the handheld's main thread pays it: a scanner's keys come a few
 * ms apart, and a field that keeps the main thread busier than that between two keys spreads them past the
 * detector's threshold (wedge.ts), so the code is typed into the field instead of being read. Measured with
 * Chromium's CPU throttled `rate`× (CDP Emulation.setCPUThrottlingRate), as on a busy handheld.
 *
 * How: for each key, the renderer's cumulative main-thread task time (CDP Performance.getMetrics, TaskDuration,
 * in the thread's own CPU time) is read before the key is sent and again once the page is at rest; the key's
 * cost is the difference, less what the same interval costs with no key (the median of as many idle
 * intervals, read the same way, so the read itself and the page's timers are not counted), times the
 * throttling rate. Thread time, because wall time on a shared machine counts whatever else ran meanwhile; a
 * throttled CPU only suspends the thread, so its thread time is the work itself, which a CPU `rate`× slower
 * takes `rate`× as long to do. Keys go through CDP Input.dispatchKeyEvent as a
 * keyboard sends them (keydown with its text, keyup), one at a person's pace, so the scanner's detector leaves
 * them to the field: what is measured is the field's own work for a typed character, everything it starts
 * included (React's render and effects, style, layout, paint).
 */
export const KEY_GOAL_MS = 4;
export const THROTTLE_RATE = 4;
/** Time given to the page after each key for everything it started to finish, ms. */
const SETTLE_MS = 250;

async function taskMs(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return (metrics.find((m) => m.name === "TaskDuration")?.value ?? 0) * 1000;
}

export interface KeyCost {
  campo: string;
  tasti: number;
  costo: Stats & { media: number };
}

/** Types `text` into the field (focused first), one key at a time, and answers what each key cost the main thread. */
export async function keystrokeCost(page: Page, cdp: CDPSession, campo: string, testId: string, text: string): Promise<KeyCost> {
  const field = page.getByTestId(testId);
  await field.focus();
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE_RATE });
  try {
    await sleep(SETTLE_MS);
    const idle: number[] = [];
    for (let i = 0; i < text.length; i++) {
      const before = await taskMs(cdp);
      await sleep(SETTLE_MS);
      idle.push((await taskMs(cdp)) - before);
    }
    const idleMedian = [...idle].sort((a, b) => a - b)[Math.floor(idle.length / 2)]!;
    const costs: number[] = [];
    for (const key of text) {
      const before = await taskMs(cdp);
      await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key, text: key, unmodifiedText: key });
      await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key });
      await sleep(SETTLE_MS);
      costs.push(Math.max(0, (await taskMs(cdp)) - before - idleMedian) * THROTTLE_RATE);
    }
    if (process.env.BENCH_KEYS_DEBUG)
      console.log(campo, costs.map((c) => c.toFixed(1)).join(" "), "idle", idle.map((c) => c.toFixed(1)).join(" "));
    return { campo, tasti: text.length, costo: { ...stats(costs), media: costs.reduce((a, b) => a + b, 0) / costs.length } };
  } finally {
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    await cdp.send("Performance.disable");
  }
}

/** The bench's table of keystroke costs, one line per field, against the goal. */
export function keyRows(costs: KeyCost[]): string[][] {
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  return [
    ["campo (CPU ×4)", "tasti", "p50", "p95", "max", "media", "obiettivo", ""],
    ...costs.map((k) => [
      k.campo,
      String(k.tasti),
      ms(k.costo.p50),
      ms(k.costo.p95),
      ms(k.costo.max),
      ms(k.costo.media),
      `≤ ${KEY_GOAL_MS} ms`,
      keyOk(k) ? "ok" : "NO",
    ]),
  ];
}

/** The goal holds for a field when its p95 keystroke stays within it (one garbage collection is not the field's). */
export const keyOk = (k: KeyCost) => k.costo.p95 <= KEY_GOAL_MS;

/**
 * The receiving screen's fields: the delivery note, then the quantity of a row shown by a scan (left after,
 * so nothing is registered); the delivery note is put back to `ddt`.
 */
export async function dockKeystrokes(page: Page, row: { codice: string; ean: string }, ddt: string): Promise<KeyCost[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const out = [await keystrokeCost(page, cdp, "DDT (ricevimento)", "campo-ddt", "DDT-W1-00418")];
    await page.getByTestId("campo-ddt").fill(ddt);
    await page.getByTestId("campo-scansione").focus();
    await page.keyboard.type(row.ean, { delay: 5 });
    await page.keyboard.press("Enter");
    await page.getByTestId("riga-attesa").getByTestId("articolo-codice").filter({ hasText: row.codice }).waitFor();
    out.push(await keystrokeCost(page, cdp, "Quantità (ricevimento)", "campo-quantita", "1234567890"));
    await page.getByTestId("campo-quantita").fill("");
    await page.getByRole("button", { name: "Lascia" }).click();
    await page.getByTestId("riga-attesa").waitFor({ state: "detached" });
    await page.getByTestId("campo-scansione").focus();
    return out;
  } finally {
    await cdp.detach();
  }
}
