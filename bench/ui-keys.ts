import type { CDPSession, Page } from "@playwright/test";
import { type Stats, stats } from "./ui-page";
import { sleep } from "./util";

/**
 * The cost of one keystroke in a dock field, as the handheld's main thread pays it: a scanner's keys come a few
 * ms apart, and a field that keeps the main thread busier than that between two keys spreads them past the
 * detector's threshold (wedge.ts), so the code is typed into the field instead of being read. Measured with
 * Chromium's CPU throttled `THROTTLE_RATE`× (CDP Emulation.setCPUThrottlingRate), as on a busy handheld.
 *
 * How: keys go through CDP Input.dispatchKeyEvent as a keyboard sends them (keydown with its text, keyup), one
 * every `PERSON_MS`, so the scanner's detector leaves them to the field. The renderer main thread's
 * cumulative times (CDP Performance.getMetrics, in the thread's own CPU time, which the throttling inflates as
 * it does the work, while another process on a shared machine does not) are read before each key and before
 * the next; the key's cost is the difference, less what the same interval costs with no key (the median of as
 * many idle intervals read the same way: the reads themselves and the page's timers are not the key's). The
 * pause after the last key is measured on its own (`pausa`): the text handed to the screen, once.
 *
 * Two figures per key. The page's work, held against the goal: JavaScript (the handlers, React's render and
 * effects), style and layout (ScriptDuration + RecalcStyleDuration + LayoutDuration), what a field's code
 * decides. And the thread's whole task time (TaskDuration), which adds the browser's own handling of a
 * dispatched key, paint and compositing: a bare `<input>` on an empty page (the reference line) shows that
 * part, which no field can go below.
 */
export const KEY_GOAL_MS = 4;
export const THROTTLE_RATE = 4;
/** A person's pace: the time from one key to the next, ms. */
const PERSON_MS = 150;
/** A pause in typing, long enough for the field to hand its text to the screen and the screen to render, ms. */
const PAUSE_MS = 1500;

const PAGE_PARTS = ["ScriptDuration", "RecalcStyleDuration", "LayoutDuration"] as const;

/** The thread's times so far, ms: [page's work, whole task time]. */
async function times(cdp: CDPSession): Promise<[number, number]> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const ms = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  return [PAGE_PARTS.reduce((sum, p) => sum + ms(p), 0), ms("TaskDuration")];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export interface KeyCost {
  campo: string;
  tasti: number;
  /** The page's work per key: script, style, layout. */
  costo: Stats & { media: number };
  /** The thread's whole task time per key, median. */
  totale: number;
  /** The page's work in the pause after the last key (the screen hearing the text), ms. */
  pausa: number;
}

/**
 * Types `text` into the field (focused first) at a person's pace, and answers what each key cost the main
 * thread before the next one came, and what the pause after the last one cost (a field hands its text to the
 * screen when typing pauses: that render comes once per pause, not per key).
 */
export async function keystrokeCost(page: Page, cdp: CDPSession, campo: string, testId: string, text: string): Promise<KeyCost> {
  await page.getByTestId(testId).focus();
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE_RATE });
  try {
    await sleep(PAUSE_MS);
    const interval = async (act: () => Promise<void>, wait: number) => {
      const [pageBefore, taskBefore] = await times(cdp);
      await act();
      await sleep(wait);
      const [pageAfter, taskAfter] = await times(cdp);
      return [pageAfter - pageBefore, taskAfter - taskBefore] as const;
    };
    const idle = [];
    for (let i = 0; i < text.length; i++) idle.push(await interval(async () => {}, PERSON_MS));
    const idlePage = median(idle.map((x) => x[0]));
    const idleTask = median(idle.map((x) => x[1]));
    const costs: number[] = [];
    const totals: number[] = [];
    for (const key of text) {
      const [work, task] = await interval(async () => {
        await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key, text: key, unmodifiedText: key });
        await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key });
      }, PERSON_MS);
      costs.push(Math.max(0, work - idlePage));
      totals.push(Math.max(0, task - idleTask));
    }
    const [pauseWork] = await interval(async () => {}, PAUSE_MS);
    const pausa = Math.max(0, pauseWork - (idlePage * PAUSE_MS) / PERSON_MS);
    return { campo, tasti: text.length, costo: { ...stats(costs), media: mean(costs) }, totale: median(totals), pausa };
  } finally {
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    await cdp.send("Performance.disable");
  }
}

/** The bench's table of keystroke costs, one line per field, against the goal. */
export function keyRows(costs: KeyCost[]): string[][] {
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  return [
    ["campo (CPU ×4)", "tasti", "pagina p50", "p95", "max", "media", "obiettivo", "", "thread intero p50", "alla pausa"],
    ...costs.map((k) => [
      k.campo,
      String(k.tasti),
      ms(k.costo.p50),
      ms(k.costo.p95),
      ms(k.costo.max),
      ms(k.costo.media),
      isReference(k) ? "" : `≤ ${KEY_GOAL_MS} ms`,
      isReference(k) ? "" : keyOk(k) ? "ok" : "NO",
      ms(k.totale),
      ms(k.pausa),
    ]),
  ];
}

/** The goal holds for a field when its p95 keystroke stays within it (one garbage collection is not the field's). */
export const keyOk = (k: KeyCost) => k.costo.p95 <= KEY_GOAL_MS;
/** The bare page's line is a reference, not a dock field: no goal. */
export const isReference = (k: KeyCost) => k.campo.startsWith("riferimento");

/**
 * The receiving screen's fields: the delivery note, then the quantity of a row shown by a scan (left after,
 * so nothing is registered); the delivery note is put back to `ddt`.
 */
export async function dockKeystrokes(page: Page, row: { codice: string; ean: string }, ddt: string): Promise<KeyCost[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const out = [await bareField(page), await keystrokeCost(page, cdp, "DDT (ricevimento)", "campo-ddt", "DDT-W1-00418")];
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

/**
 * The floor: a bare page with one input and nothing else, in the same browser. What a keystroke costs there
 * (the browser's own handling of the key, the text's layout and paint) no dock field can go below.
 */
async function bareField(page: Page): Promise<KeyCost> {
  const bare = await page.context().newPage();
  try {
    await bare.setContent(`<input data-testid="nudo" style="font-size:18px;width:300px">`);
    const cdp = await bare.context().newCDPSession(bare);
    try {
      return await keystrokeCost(bare, cdp, "riferimento: <input> su pagina vuota", "nudo", "DDT-W1-00418");
    } finally {
      await cdp.detach();
    }
  } finally {
    await bare.close();
  }
}
