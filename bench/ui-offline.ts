import type { BrowserContext, Page } from "@playwright/test";
import pg from "pg";
import { type Measure, measure, type Stats, stats } from "./ui-page";
import { progress } from "./util";

/** The offline goals: a scan answered from the handheld's copy, p95 in ms; the queue sent after reconnecting, s. */
export const OFFLINE_GOALS = { rigaOffline: 50, codaSecondi: 10 } as const;

export interface OfflineFigures {
  /** Enter → the row shown, read from the local copy while offline. */
  riga: Stats;
  /** Rows queued offline and sent after reconnecting. */
  inCoda: number;
  /** The network back → the queue empty on screen, ms. */
  invioMs: number;
  /** Arrivals written per queued row (each must be 1). */
  duplicati: number;
  mancanti: number;
}

/**
 * The dead spot: the browser offline, `lookups` codes read and each row shown from the copy of
 * the warehouse's expected rows on the handheld (measured in the page as the online scans are), then
 * `queued` rows confirmed with Enter into the queue; the network back, the time until the screen's queue
 * is empty, and a check in the database that each queued row was written exactly once.
 */
export async function offlinePhase(
  page: Page,
  context: BrowserContext,
  databaseUrl: string,
  codes: { codice: string; ean: string }[],
  opts: { lookups: number; quantity: number },
): Promise<OfflineFigures> {
  const lookups = codes.slice(0, opts.lookups);
  const queued = codes.slice(opts.lookups);
  await context.setOffline(true);
  await page.getByTestId("copia-locale").filter({ hasText: "Righe attese sul palmare" }).waitFor();
  progress(`offline: ${lookups.length} letture dalla copia locale, poi ${queued.length} righe in coda …`);
  const leave = page.getByRole("button", { name: "Lascia" });
  const shown: Measure[] = [];
  for (const { codice, ean } of lookups) {
    shown.push(
      await measure(page, "riga", codice, async () => {
        await page.keyboard.type(ean, { delay: 5 });
        await page.keyboard.press("Enter");
      }),
    );
    await leave.click();
  }
  const esito = page.getByTestId("esito");
  for (const { codice, ean } of queued) {
    await page.keyboard.type(ean, { delay: 5 });
    await page.keyboard.press("Enter");
    await page.getByTestId("riga-attesa").getByTestId("articolo-codice").filter({ hasText: codice }).waitFor();
    await page.keyboard.press("Enter");
    await esito.filter({ hasText: `In coda: ${opts.quantity} × ${codice}` }).waitFor();
  }
  await page
    .getByTestId("da-inviare")
    .filter({ hasText: `Da inviare (${queued.length})` })
    .waitFor();
  const t0 = Date.now();
  await context.setOffline(false);
  await page.waitForFunction(() => !document.querySelector("[data-testid=da-inviare]")?.textContent?.includes("Da inviare"), null, {
    timeout: 120_000,
    polling: 20,
  });
  const invioMs = Date.now() - t0;

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ codice: string; n: number; q: string }>(
      `SELECT a.codice, count(m.id)::int AS n, coalesce(sum(m.quantita), 0)::text AS q
         FROM articoli a LEFT JOIN movimenti m ON m.articolo_id = a.id AND m.origine = 'arrivo'
        WHERE a.codice = ANY($1) GROUP BY a.codice`,
      [queued.map((c) => c.codice)],
    );
    return {
      riga: stats(shown.map((m) => m.painted - m.event)),
      inCoda: queued.length,
      invioMs,
      duplicati: rows.filter((r) => r.n > 1).length,
      mancanti: queued.length - rows.filter((r) => r.n === 1 && Number(r.q) === opts.quantity).length,
    };
  } finally {
    await db.end();
  }
}
