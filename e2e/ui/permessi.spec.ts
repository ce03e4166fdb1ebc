import { expect, test } from "@playwright/test";
import { signIn, snap } from "../support/app";

test("un operatore non raggiunge le pagine né le procedure dell'amministratore o del responsabile", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 760 });
  await signIn(page, "operatore");

  for (const path of ["/utenti", "/chiavi-api", "/disponibilita", "/movimenti", "/vendite/nuovo"]) {
    await page.goto(path);
    await expect(page.getByTestId("accesso-negato")).toBeVisible();
  }
  await page.goto("/utenti");
  await snap(page, "accesso-negato-operatore");

  // The server refuses the procedures themselves, whatever the UI shows.
  const call = (url: string, init?: RequestInit) =>
    page.evaluate(
      async ([u, i]) => {
        const r = await fetch(u as string, i as RequestInit | undefined);
        return { status: r.status, body: await r.text() };
      },
      [url, init ?? null] as const,
    );
  const users = await call("/api/trpc/users.list");
  expect(users.status).toBe(403);
  expect(JSON.parse(users.body).error.data.codice).toBe("permesso_negato");
  const availability = await call(`/api/trpc/availability.list?input=${encodeURIComponent("{}")}`);
  expect(availability.status).toBe(403);
  const exported = await call("/api/esportazioni/disponibilita");
  expect(exported.status).toBe(403);
  expect(JSON.parse(exported.body).codice).toBe("permesso_negato");

  // A mutation without the session's CSRF token is refused before anything runs.
  const forged = await call("/api/trpc/arrivals.search", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ barcode: "8056789000016" }),
  });
  expect(forged.status).toBe(403);
  expect(JSON.parse(forged.body).error.message).toMatch(/CSRF/);

  // Without a session at all: 401.
  await page.context().clearCookies();
  const anonymous = await call("/api/trpc/catalogue.warehouses");
  expect(anonymous.status).toBe(401);
});
