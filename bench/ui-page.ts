import { median, percentile } from "./util";
import type { Page } from "@playwright/test";

/**
 * What bench:ui measures in the page (see bench/ui.ts's header): the script armed before each Enter, one
 * measure's figures, and their summary.
 */

// ---------------------------------------------------------------- the script in the page

export interface CallTiming {
  /** The page issued the fetch (Resource Timing startTime). */
  start: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
}

/** One Enter measured in the page, on the page's clock (performance.now(), ms). */
export interface Measure {
  /** The keydown's timeStamp: when the browser received the key. */
  event: number;
  /** The keydown reached our capture listener (the main thread was free for it). */
  handler: number;
  /** The awaited state is in the DOM (MutationObserver). */
  dom: number;
  /** The frame after that has been painted (requestAnimationFrame, then a posted task). */
  painted: number;
  call: CallTiming | null;
}

/**
 * Installed once in the page (a string, not a function: tsx's transpiler adds helpers to functions that
 * do not exist in the page). `__bench.arm(kind, code)` before an Enter, `__bench.result()` after it.
 */
export const IN_PAGE = `(() => {
  if (window.__bench) return;
  let armed = null;
  const now = () => performance.now();
  const onKeydown = (e) => {
    if (e.key !== "Enter" || !armed || armed.handler !== undefined) return;
    armed.handler = now();
    armed.event = e.timeStamp > 0 && e.timeStamp <= armed.handler ? e.timeStamp : armed.handler;
    armed.watch();
  };
  window.addEventListener("keydown", onKeydown, true);
  const reached = {
    riga: (code) => document.querySelector('[data-testid="riga-attesa"] [data-testid="articolo-codice"]')?.textContent === code,
    registrato: (code) => {
      const el = document.querySelector('[data-testid="esito"][data-esito="ok"]');
      return !!el && el.textContent.includes("× " + code);
    },
  };
  const call = { riga: "/api/trpc/arrivals.scan", registrato: "/api/trpc/arrivals.register" };
  window.__bench = {
    /** No keydown listener of the bench's in this document: the keystroke phase measures the page's alone (a later page installs it again). */
    quiet() {
      window.removeEventListener("keydown", onKeydown, true);
    },
    arm(kind, code) {
      performance.clearResourceTimings();
      const a = { kind, code };
      a.done = new Promise((resolve, reject) => {
        a.watch = () => {
          const timer = setTimeout(() => { mo.disconnect(); reject(new Error(kind + " " + code + ": not shown within 10 s")); }, 10000);
          const check = () => {
            if (!reached[kind](code)) return;
            const dom = now();
            mo.disconnect();
            clearTimeout(timer);
            requestAnimationFrame(() => {
              const ch = new MessageChannel();
              ch.port1.onmessage = () => resolve({ dom, painted: now() });
              ch.port2.postMessage(null);
            });
          };
          const mo = new MutationObserver(check);
          mo.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
          check();
        };
      });
      armed = a;
    },
    async result() {
      const a = armed;
      const marks = await a.done;
      armed = null;
      // For a trace (--trace): the interval measured, and its part up to the DOM.
      performance.measure("bench " + a.kind, { start: a.event, end: marks.painted });
      performance.measure("bench " + a.kind + " dom", { start: a.event, end: marks.dom });
      const entries = performance.getEntriesByType("resource").filter((e) => new URL(e.name).pathname === call[a.kind]);
      const r = entries.at(-1);
      return {
        event: a.event,
        handler: a.handler,
        ...marks,
        call: entries.length === 1
          ? { start: r.startTime, requestStart: r.requestStart, responseStart: r.responseStart, responseEnd: r.responseEnd }
          : null,
      };
    },
  };
})()`;

export type Kind = "riga" | "registrato";

export async function measure(page: Page, kind: Kind, code: string, press: () => Promise<void>): Promise<Measure> {
  await page.evaluate(`window.__bench.arm(${JSON.stringify(kind)}, ${JSON.stringify(code)})`);
  await press();
  return (await page.evaluate("window.__bench.result()")) as Measure;
}

// ---------------------------------------------------------------- figures

export interface Stats {
  p50: number;
  p95: number;
  max: number;
}
export const stats = (xs: number[]): Stats => ({ p50: median(xs), p95: percentile(xs, 95), max: Math.max(...xs) });
const r1 = (x: number) => Number(x.toFixed(1));
export const round = (s: Stats) => ({ p50: r1(s.p50), p95: r1(s.p95), max: r1(s.max) });

export interface Summary {
  shown: Stats;
  dom: Stats;
  server: Stats;
  /** Medians of the phases, ms: they add up to about the median shown. */
  phases: { attesaEvento: number; primaDellaChiamata: number; chiamata: number; rispostaDom: number; domFrame: number };
  /** The call's median time on the wire over the median time to shown. */
  serverShare: number;
  /** Median shown of the first and of the last tenth of the scans: the session's table grows by one row a scan. */
  trend: [number, number];
}

export function summarise(all: Measure[]): Summary {
  const withCall = all.filter((m) => m.call);
  const server = withCall.map((m) => m.call!.responseEnd - m.call!.requestStart);
  const shown = stats(all.map((m) => m.painted - m.event));
  const tenth = Math.max(1, Math.round(all.length / 10));
  return {
    shown,
    dom: stats(all.map((m) => m.dom - m.event)),
    server: stats(server),
    phases: {
      attesaEvento: median(all.map((m) => m.handler - m.event)),
      primaDellaChiamata: median(withCall.map((m) => m.call!.start - m.handler)),
      chiamata: median(withCall.map((m) => m.call!.responseEnd - m.call!.start)),
      rispostaDom: median(withCall.map((m) => m.dom - m.call!.responseEnd)),
      domFrame: median(all.map((m) => m.painted - m.dom)),
    },
    serverShare: median(server) / shown.p50,
    trend: [median(all.slice(0, tenth).map((m) => m.painted - m.event)), median(all.slice(-tenth).map((m) => m.painted - m.event))],
  };
}
