import { expect, type Page, test } from "@playwright/test";
import { api, orderRow } from "../support/api";
import { dockRunning, newSession, scan, type User } from "../support/app";
import { ean13, seed, today } from "../support/seed";

/**
 * A keystroke in a dock field (the delivery note, a row's quantity) touches nothing but the field's text, at
 * 360 px: no React render per key, no change to the field's element (a scanner's next key must find the main
 * thread free). What the operator typed
 * still reaches the screen: the delivery note and the quantity typed by hand are the ones registered, as
 * GET /api/v1 tells.
 */
const EAN = { TASTO: ean13("805999070001") };

let users: Record<"operatore", User>;
let key: string;
let ordini: Record<string, number>;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const s = seed("tasti", {
    data: {
      magazzini: [{ codice: "TA-BO", nome: "Tasti Bologna" }],
      fornitori: [{ codice: "TA-F1", nome: "Fornitore Tasti" }],
      articoli: [{ codice: "TA-TASTO", descrizione: "Articolo tasti", ean: EAN.TASTO }],
      ordini: [
        {
          numero: "TA-OA-1",
          fornitore: "TA-F1",
          data: today(),
          magazzino: "TA-BO",
          righe: [{ articolo: "TA-TASTO", quantita: 10, prezzo: "1" }],
        },
      ],
    },
    roles: ["operatore"],
  });
  users = s.users;
  key = s.key;
  ordini = (s.ids as unknown as { ordini: Record<string, number> }).ordini;
});

/**
 * Counts React's commits made while a key's event is being dispatched (through the hook React's DevTools use,
 * which production builds call too: React commits a key's update in the microtask that follows the key's
 * listener, while `window.event` is still that key's), and every DOM change of the page, from `__watch()` on.
 * Neither depends on the pace of the keys: the screen's own commits (a list read from the service, the text
 * handed after a pause) come from a timer or a fetch, outside any key's event.
 */
const WATCH = `(() => {
  window.__commits = 0;
  const KEY_EVENTS = new Set(["keydown", "keypress", "keyup", "beforeinput", "textInput", "input"]);
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject(renderer) { const id = this.renderers.size + 1; this.renderers.set(id, renderer); return id; },
    onCommitFiberRoot() { if (window.event && KEY_EVENTS.has(window.event.type)) window.__commits++; },
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
  };
  // At each key's release: what its press and its text did is done by then, and the field hands its text to
  // the screen only after a pause in typing.
  window.addEventListener("keyup", () => {
    if (window.__changes) window.__atKeyup = { commits: window.__commits, changes: [...window.__changes] };
  }, true);
  window.__watch = () => {
    window.__changes = [];
    window.__commits = 0;
    window.__atKeyup = { commits: 0, changes: [] };
    new MutationObserver((records) => {
      for (const r of records) window.__changes.push(r.type + " " + (r.attributeName ?? "") + " on " + (r.target.dataset?.testid ?? r.target.nodeName));
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  };
})();`;

/**
 * Types `text` into the field and answers what changed up to its last key's release: the field's own DOM
 * changes (React handling a key writes the field's attributes back), and whether any key made React commit.
 */
async function typedQuietly(page: Page, testId: string, text: string) {
  await page.getByTestId(testId).focus();
  await page.evaluate("window.__watch()");
  await page.keyboard.type(text, { delay: 30 });
  const { commits, changes } = (await page.evaluate("window.__atKeyup")) as { commits: number; changes: string[] };
  return { keyCommits: commits, fieldChanges: changes.filter((c) => c.endsWith(` on ${testId}`)) };
}
const QUIET = { keyCommits: 0, fieldChanges: [] };

test("un tasto nel DDT o nella quantità non fa render né cambia il DOM; DDT e quantità scritti sono quelli registrati", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await context.addInitScript({ content: WATCH });
  await page.goto("/ricevimento");
  await dockRunning(page);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /TA-BO/ }).click();
  // The screen settled: the caret back in the scan field, the handheld's copy of the warehouse's rows kept.
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await expect(page.getByTestId("da-inviare")).toHaveAttribute("data-copia-righe", "1");

  expect(await typedQuietly(page, "campo-ddt", "DDT-TA-42")).toEqual(QUIET);
  await page.getByTestId("campo-scansione").focus();
  await scan(page, EAN.TASTO);
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("TA-TASTO");
  await expect(page.getByTestId("campo-quantita")).toHaveValue("10");
  // The prefilled quantity is selected as the field takes the caret: the keys replace it.
  expect(await typedQuietly(page, "campo-quantita", "7")).toEqual(QUIET);
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 7");

  const arrivals = (await orderRow(key, ordini["TA-OA-1"]!, "TA-TASTO")).registrati;
  expect(arrivals).toHaveLength(1);
  expect(arrivals[0]!.quantita).toBe("7");
  const events = (await api(key, "GET", "/eventi?tipo=arrivo.registrato&limite=100")).body.eventi as {
    dati: { ddt?: string; movimenti?: { id: number }[] };
  }[];
  expect(events.find((e) => e.dati.movimenti?.some((m) => m.id === arrivals[0]!.movimento))?.dati.ddt).toBe("DDT-TA-42");
  await context.close();
});
