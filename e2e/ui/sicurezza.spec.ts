import { expect, test, type Page } from "@playwright/test";
import { snap, type User } from "../support/app";
import { seed } from "../support/seed";

/** The pages work under their Content-Security-Policy: nothing refused, Swagger UI included. */

let operator: User;
test.beforeAll(() => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  operator = seed("sicurezza", { roles: ["operatore"] }).users.operatore;
});

function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to (execute|load|apply|connect|frame)/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

test("la documentazione dell'API (Swagger UI) funziona sotto la sua CSP", async ({ page }) => {
  const violations = cspViolations(page);
  const res = await page.goto("/api/docs");
  expect(res?.headers()["content-security-policy"]).toContain("'strict-dynamic'");
  await expect(page.locator(".opblock").first()).toBeVisible({ timeout: 20_000 });
  await page.locator(".opblock-summary").first().click();
  await expect(page.locator(".opblock-body").first()).toBeVisible();
  await snap(page, "documentazione-api");
  expect(violations).toEqual([]);
});

test("accesso e ricevimento senza violazioni della CSP; un dopo ostile porta alla pagina iniziale", async ({ page }) => {
  const violations = cspViolations(page);
  await page.goto("/accesso?dopo=%2F%5Cevil.example");
  await page.locator("input[name=username]").fill(operator.username);
  await page.locator("input[name=password]").fill(operator.password);
  await page.getByRole("button", { name: "Accedi" }).click();
  await page.waitForURL("**/ricevimento");
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  expect(violations).toEqual([]);
});
