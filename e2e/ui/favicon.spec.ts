import { expect, test } from "@playwright/test";

/** The browser's first request of any page, and the tab's icon: served without signing in. */
test("/favicon.ico is the app's icon, and the sign-in page links it", async ({ page, request }) => {
  const r = await request.get("/favicon.ico");
  expect(r.status()).toBe(200);
  expect(r.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
  const bytes = await r.body();
  // ICONDIR: reserved 0, type 1 (icon), then the count of images (16, 32 and 48 px).
  expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 3]);
  await page.goto("/accesso");
  await expect(page.locator('link[rel="icon"]').first()).toHaveAttribute("href", /\/favicon\.ico/);
});
