import fs from "node:fs";
import path from "node:path";
import type { CDPSession, Locator, Page } from "@playwright/test";
import { ssccSeries } from "../e2e/support/notices";
import { ean13 } from "../e2e/support/seed";
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
/**
 * A field is measured once its screen is at rest: this many intervals of PERSON_MS in a row in which the page
 * did less than REST_MS of work (CPU ×4), waited for at most REST_WAIT_MS. A screen just opened (the DDT is the
 * first field measured) fetches and stores its copies for a few seconds: that work, in slices of React's
 * scheduler that commit nothing and so are not counted by COMMITS_HOOK, landed in the keys' intervals and made
 * every key of the DDT cost 20-40 ms on a loaded machine. It is the screen's, once, not the field's per key.
 */
const REST_INTERVALS = 6;
const REST_MS = 0.5;
const REST_WAIT_MS = 20_000;

/**
 * The pause after which a dock field hands its text to the screen (TypedInput's PAUSE_MS), ms. A key whose
 * interval lasted longer than this from its dispatch (a loaded machine stretches the sleep and the CDP round
 * trips) may hold the screen's render of the handed text, which is the pause's cost, not the key's: it is
 * left out of the key's figures, and counted (`fuori`).
 */
const FIELD_PAUSE_MS = 300;

/**
 * Installed before the app's scripts (bench/ui.ts): counts React's commits that no key's event made (through
 * the hook React's DevTools use, which production builds call too; tasti.spec.ts reads it the same way).
 * A commit outside a key's event is the screen's own work landing in a key's interval (a query answered, a
 * timer, the text handed after a pause): on a loaded machine it comes late, into the keys, and made a key cost
 * 60-130 ms. Such a key is left out of the figures and counted (`fuori`); a commit a key's own event makes
 * (React rendering per key, what a dock field must not do) stays in them.
 */
export const COMMITS_HOOK = `(() => {
  if (window.__REACT_DEVTOOLS_GLOBAL_HOOK__) return;
  window.__benchCommits = 0;
  const KEY_EVENTS = new Set(["keydown", "keypress", "keyup", "beforeinput", "textInput", "input"]);
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject(renderer) { const id = this.renderers.size + 1; this.renderers.set(id, renderer); return id; },
    onCommitFiberRoot() { if (!(window.event && KEY_EVENTS.has(window.event.type))) window.__benchCommits++; },
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
  };
})();`;

/** The screen's commits so far (COMMITS_HOOK; 0 on a page without it). */
async function commits(cdp: CDPSession): Promise<number> {
  const { result } = await cdp.send("Runtime.evaluate", { expression: "window.__benchCommits ?? 0", returnByValue: true });
  return Number(result.value ?? 0);
}

const PAGE_PARTS = ["ScriptDuration", "RecalcStyleDuration", "LayoutDuration"] as const;

interface Interval {
  page: number;
  parts: number[];
  task: number;
  /** Wall time from the act's end (the key dispatched) to the second read, ms. */
  span: number;
  /** React commits no key's event made, around the interval (read outside it: the read runs script too). */
  screen: number;
}

/** The thread's times so far, ms: the page's work, its parts (PAGE_PARTS' order), the whole task time. */
async function times(cdp: CDPSession): Promise<Omit<Interval, "span" | "screen">> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const ms = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  const parts = PAGE_PARTS.map(ms);
  return { page: parts.reduce((a, b) => a + b, 0), parts, task: ms("TaskDuration") };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export interface KeyCost {
  campo: string;
  tasti: number;
  /** Keys left out of the figures: their interval outlasted the field's pause (FIELD_PAUSE_MS) or held a commit of the screen's own (COMMITS_HOOK). */
  fuori: number;
  /** The page's work per key: script, style, layout. */
  costo: Stats & { media: number };
  /** The page's work per key by part, medians: script, style, layout (less the idle interval's). */
  parti: number[];
  /** The thread's whole task time per key, median. */
  totale: number;
  /** The page's work in the pause after the last key (the screen hearing the text), ms. */
  pausa: number;
  /** How long the screen took to come to rest before the field was measured (REST_INTERVALS), ms. */
  quieto: number;
}

/**
 * Types `text` into the field (focused first) at a person's pace, and answers what each key cost the main
 * thread before the next one came, and what the pause after the last one cost (a field hands its text to the
 * screen when typing pauses: that render comes once per pause, not per key).
 */
export async function keystrokeCost(cdp: CDPSession, campo: string, field: Locator, text: string, profDir?: string): Promise<KeyCost> {
  await field.focus();
  // The bench's own keydown listener (ui-page.ts, for the scans' timings) would be a script call in every key.
  await cdp.send("Runtime.evaluate", { expression: "window.__bench?.quiet()" });
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE_RATE });
  try {
    await sleep(PAUSE_MS);
    const restStart = performance.now();
    for (let quiet = 0; quiet < REST_INTERVALS && performance.now() - restStart < REST_WAIT_MS; ) {
      const before = await times(cdp);
      await sleep(PERSON_MS);
      quiet = (await times(cdp)).page - before.page < REST_MS ? quiet + 1 : 0;
    }
    const quieto = performance.now() - restStart;
    const interval = async (act: () => Promise<void>, wait: number) => {
      const rendered = await commits(cdp);
      const before = await times(cdp);
      await act();
      const sent = performance.now();
      await sleep(wait);
      const after = await times(cdp);
      const span = performance.now() - sent;
      return {
        page: after.page - before.page,
        parts: after.parts.map((x, i) => x - before.parts[i]!),
        task: after.task - before.task,
        span,
        screen: (await commits(cdp)) - rendered,
      };
    };
    const idle: Interval[] = [];
    for (let i = 0; i < text.length; i++) idle.push(await interval(async () => {}, PERSON_MS));
    const idlePage = median(idle.map((x) => x.page));
    const idleTask = median(idle.map((x) => x.task));
    const idleParts = PAGE_PARTS.map((_, i) => median(idle.map((x) => x.parts[i]!)));
    const typed: Interval[] = [];
    for (const key of text) {
      typed.push(
        await interval(async () => {
          await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key, text: key, unmodifiedText: key });
          await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key });
        }, PERSON_MS),
      );
    }
    // On a quiet machine every key is the key's alone; half of them at least, or the figures are all the keys'.
    const inTime = typed.filter((k) => k.span < FIELD_PAUSE_MS && k.screen === 0);
    const keys = inTime.length * 2 >= typed.length ? inTime : typed;
    const costs = keys.map((k) => Math.max(0, k.page - idlePage));
    const parti = idleParts.map((idleMs, i) => Math.max(0, median(keys.map((k) => k.parts[i]!)) - idleMs));
    const totals = keys.map((k) => Math.max(0, k.task - idleTask));
    const { page: pauseWork } = await interval(async () => {}, PAUSE_MS);
    const pausa = Math.max(0, pauseWork - (idlePage * PAUSE_MS) / PERSON_MS);
    if (profDir) await profileKeys(cdp, path.join(profDir, `tasti-${campo.replace(/\W+/g, "-")}.cpuprofile`), text);
    return {
      campo,
      tasti: keys.length,
      fuori: typed.length - keys.length,
      costo: { ...stats(costs), media: mean(costs) },
      parti,
      totale: median(totals),
      pausa,
      quieto,
    };
  } finally {
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    await cdp.send("Performance.disable");
  }
}

/**
 * --cpu-prof: which functions a keystroke runs, the CPU not throttled (a throttled profile shows the same
 * functions, slower): the same keys typed again at a person's pace under V8's sampling profiler.
 */
async function profileKeys(cdp: CDPSession, file: string, text: string): Promise<void> {
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
  await cdp.send("Profiler.start");
  for (const key of text) {
    await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", key, text: key, unmodifiedText: key });
    await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key });
    await sleep(PERSON_MS);
  }
  const { profile } = await cdp.send("Profiler.stop");
  await cdp.send("Profiler.disable");
  fs.writeFileSync(file, JSON.stringify(profile));
}

/** The bench's table of keystroke costs, one line per field, against the goal. */
export function keyRows(costs: KeyCost[]): string[][] {
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  return [
    [
      "campo (CPU ×4)",
      "tasti",
      "pagina p50",
      "p95",
      "max",
      "media",
      "obiettivo",
      "",
      "script/stile/layout p50",
      "thread intero p50",
      "alla pausa",
      "quiete dopo",
    ],
    ...costs.map((k) => [
      k.campo,
      k.fuori ? `${k.tasti} (+${k.fuori} fuori)` : String(k.tasti),
      ms(k.costo.p50),
      ms(k.costo.p95),
      ms(k.costo.max),
      ms(k.costo.media),
      isReference(k) ? "" : `≤ ${KEY_GOAL_MS} ms`,
      isReference(k) ? "" : keyOk(k) ? "ok" : "NO",
      k.parti.map((x) => x.toFixed(2)).join(" / "),
      ms(k.totale),
      ms(k.pausa),
      `${(k.quieto / 1000).toFixed(1)} s`,
    ]),
  ];
}

/** The goal holds for a field when its p95 keystroke stays within it (one garbage collection is not the field's). */
export const keyOk = (k: KeyCost) => k.costo.p95 <= KEY_GOAL_MS;
/** The bare page's line is a reference, not a dock field: no goal. */
export const isReference = (k: KeyCost) => k.campo.startsWith("riferimento");

/** The bench's articles and places the keystroke phase uses besides the scanned ones (bench/ui.ts imports them). */
export const KEY_DATA = {
  /** A warehouse that manages locations: goods received there wait in `ricevimento`, for putaway and counts. */
  magazzino: { codice: "UI-M2", nome: "Banco UI ubicazioni" },
  ricevimento: "UI-RIC",
  scaffale: "UI-A1",
  /** An article with lots, on an order of the scanned warehouse (the receiving lot field). */
  lotti: { codice: "UI-LOTTI", ean: ean13("290000009999"), descrizione: "Articolo banco UI a lotti" },
  /** An article on an order of UI-M2, received there for putaway. */
  stoccare: { codice: "UI-STOCCARE", ean: ean13("290000009998"), descrizione: "Articolo banco UI da stoccare" },
  /** An article on an order of UI-M1 (`collo.ordine`), announced on one pallet (`collo.sscc`): the pallet card's difference fields. */
  collo: {
    articolo: { codice: "UI-COLLO", ean: ean13("290000009997"), descrizione: "Articolo banco UI su collo" },
    ordine: "UI-OA-COLLO",
    avviso: "UI-AV-1",
    sscc: ssccSeries("2900000")(1),
  },
} as const;

const scan = async (page: Page, code: string) => {
  await page.keyboard.type(code, { delay: 5 });
  await page.keyboard.press("Enter");
};

/**
 * Every dock field, one after the other: on /ricevimento the delivery note, a row's quantity and lot (rows
 * shown by a scan, left after, so nothing is registered; the delivery note is put back to `ddt`), the pallet
 * card's difference, quantity and note (the pallet closed after, not received); on
 * /stoccaggio the quantity of goods received for it in KEY_DATA's warehouse; on /inventario, counting by
 * scanner, a line's count and lot. The page is left on /ricevimento's scan field. With `profDir`, each field's
 * keys are profiled too (profileKeys).
 */
export async function dockKeystrokes(page: Page, row: { codice: string; ean: string }, ddt: string, profDir?: string): Promise<KeyCost[]> {
  const cdp = await page.context().newCDPSession(page);
  const measure = (campo: string, field: string | Locator, text: string) =>
    keystrokeCost(cdp, campo, typeof field === "string" ? page.getByTestId(field) : field, text, profDir);
  const rowShown = (codice: string) => page.getByTestId("riga-attesa").getByTestId("articolo-codice").filter({ hasText: codice }).waitFor();
  const leaveRow = async () => {
    await page.getByRole("button", { name: "Lascia" }).click();
    await page.getByTestId("riga-attesa").waitFor({ state: "detached" });
  };
  try {
    const out = [await bareField(page), await measure("DDT (ricevimento)", "campo-ddt", "DDT-W1-00418")];
    await page.getByTestId("campo-ddt").fill(ddt);
    await page.getByTestId("campo-scansione").focus();
    await scan(page, row.ean);
    await rowShown(row.codice);
    out.push(await measure("Quantità (ricevimento)", "campo-quantita", "1234567890"));
    await page.getByTestId("campo-quantita").fill("");
    await leaveRow();
    await page.getByTestId("campo-scansione").focus();
    await scan(page, KEY_DATA.lotti.ean);
    await rowShown(KEY_DATA.lotti.codice);
    out.push(await measure("Lotto (ricevimento)", "campo-lotto", "LOTTO-20418"));
    await page.getByTestId("campo-lotto").fill("");
    await leaveRow();

    // The pallet card: the SSCC scanned, "Segna differenza" on its row, the form's quantity and note; left as found.
    await page.getByTestId("campo-scansione").focus();
    await scan(page, `(00)${KEY_DATA.collo.sscc}`);
    const pallet = page.getByTestId("collo");
    await pallet.getByTestId("segna-differenza").click();
    out.push(await measure("Differenza: quantità (collo)", pallet.getByTestId("quantita-differenza"), "1234567890"));
    out.push(await measure("Differenza: nota (collo)", pallet.getByTestId("nota-differenza"), "due cartoni."));
    await pallet.getByRole("button", { name: "Annulla" }).click();
    await pallet.getByRole("button", { name: "Chiudi senza ricevere" }).click();
    await pallet.waitFor({ state: "detached" });

    // Goods for putaway: one row received in the warehouse with locations, its quantity as prefilled.
    const { magazzino, scaffale } = KEY_DATA;
    const pick = async (name: RegExp) => {
      await page.getByTestId("campo-magazzino").click();
      await page.getByRole("option", { name }).click();
    };
    const warehouse = new RegExp(magazzino.codice);
    await pick(warehouse);
    await page.getByTestId("campo-scansione").focus();
    await scan(page, KEY_DATA.stoccare.ean);
    await rowShown(KEY_DATA.stoccare.codice);
    await page.getByTestId("campo-scansione").focus();
    await page.keyboard.press("Enter");
    await page.locator('[data-testid="esito"][data-esito="ok"]').filter({ hasText: KEY_DATA.stoccare.codice }).waitFor();

    await page.goto("/stoccaggio");
    await page.locator('[data-testid="campo-scansione"][data-avviato]').waitFor();
    await pick(new RegExp(magazzino.nome));
    await page.getByTestId("campo-scansione").focus();
    await scan(page, KEY_DATA.stoccare.ean);
    await page.getByTestId("merce-da-stoccare").filter({ hasText: KEY_DATA.stoccare.codice }).waitFor();
    out.push(await measure("Quantità (stoccaggio)", "campo-quantita", "1234567890"));
    await page.getByRole("button", { name: "Annulla" }).click();

    await page.goto("/inventario");
    await pick(new RegExp(magazzino.nome));
    await page.getByTestId("origine-conteggi").getByText("Lettore").click();
    await page.getByTestId("campo-scansione").focus();
    await scan(page, scaffale);
    await page.getByTestId("ubicazione-contata").filter({ hasText: scaffale }).waitFor();
    await scan(page, KEY_DATA.lotti.ean);
    await page.getByTestId(`contato-${KEY_DATA.lotti.codice}`).waitFor();
    out.push(await measure("Contato (inventario, lettore)", `contato-${KEY_DATA.lotti.codice}`, "1234567890"));
    out.push(await measure("Lotto (inventario, lettore)", page.getByTestId("riga-contata").getByLabel("Lotto"), "LOTTO-20418"));

    await page.goto("/ricevimento");
    await page.locator('[data-testid="campo-scansione"][data-avviato]').waitFor();
    await page.getByTestId("campo-scansione").focus();
    return out;
  } finally {
    await cdp.detach();
  }
}

/**
 * What the keystroke phase needs in the service besides the imported data: KEY_DATA's warehouse managing
 * locations, with a receiving location and a shelf (POST /ubicazioni, then /magazzini, with a key of its own),
 * and the pallet announced (POST /avvisi-spedizione).
 */
export async function seedLocations(baseUrl: string, key: string): Promise<void> {
  const { magazzino, ricevimento, scaffale } = KEY_DATA;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${baseUrl}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    if (!r.ok || (JSON.parse(text) as { rifiutati: number }).rifiutati > 0)
      throw new Error(`POST ${path}: ${r.status} ${text.slice(0, 400)}`);
  };
  await post("/ubicazioni", {
    ubicazioni: [ricevimento, scaffale].map((codice) => ({
      magazzino: magazzino.codice,
      codice,
      tipo: codice === ricevimento ? "ricevimento" : "stoccaggio",
    })),
  });
  await post("/magazzini", { magazzini: [{ ...magazzino, gestione_ubicazioni: true, ubicazione_ricevimento: ricevimento }] });
  const { collo } = KEY_DATA;
  await post("/avvisi-spedizione", {
    avvisi: [
      {
        numero: collo.avviso,
        fornitore: "UI-F1",
        magazzino: "UI-M1",
        colli: [{ sscc: collo.sscc, righe: [{ ordine: collo.ordine, numero_riga: 1, quantita: 10 }] }],
      },
    ],
  });
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
      return await keystrokeCost(cdp, "riferimento: <input> su pagina vuota", bare.getByTestId("nudo"), "DDT-W1-00418");
    } finally {
      await cdp.detach();
    }
  } finally {
    await bare.close();
  }
}
