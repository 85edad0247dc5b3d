import { expect, test } from "@playwright/test";
import { signIn, uniq } from "./console-helpers";
import { seededOrg } from "./console-seed";
import { holdScripts } from "./hold-scripts";
import { expectNoSideScroll, shoot } from "./shoot";

/** A still of the phone view only (SCREENSHOTS=1): what `shoot` would show at laptop width does not exist there. */
const phoneShot = async (page: import("@playwright/test").Page, name: string) => {
  if (process.env.SCREENSHOTS === "1") await page.screenshot({ path: `docs/screenshots/${name}-phone.png` });
};

// At a phone's 390×844: the console's navigation is a menu; pages opened directly explain
// themselves. (Every page's fit and main action at this width: e2e/every-page.spec.ts.)

test.use({ viewport: { width: 390, height: 844 } });

test("the console's navigation is a menu on a phone: current page marked, closes on navigation and Escape", async ({ page, request }) => {
  const org = await seededOrg(request);
  await signIn(page, org, uniq("owner-menu"));
  await page.goto("/console/accounts");
  // No navigation strip: one clearly labelled button.
  await expect(page.getByRole("navigation", { name: "Console" })).toBeHidden();
  const menu = page.getByRole("button", { name: "Menu", exact: true });
  await expect(menu).toBeInViewport();
  await expect(menu).toHaveAttribute("aria-expanded", "false");

  await menu.click();
  const sheet = page.getByRole("dialog", { name: "Bind Identity console" });
  await expect(sheet).toBeVisible();
  // (While the sheet is modal, everything behind it is hidden from assistive technology, the button too.)
  await expect(page.locator('button[aria-haspopup="dialog"]', { hasText: "Menu" })).toHaveAttribute("aria-expanded", "true");
  const links = sheet.getByRole("navigation", { name: "Console menu" }).getByRole("link");
  await expect(links).toHaveCount(13);
  for (let i = 0; i < 13; i++) await expect(links.nth(i)).toBeInViewport();
  const current = sheet.getByRole("link", { name: "Accounts" });
  await expect(current).toHaveAttribute("aria-current", "page");
  await expect(current).toBeFocused();
  await expect(sheet.locator('[aria-current="page"]')).toHaveCount(1);
  await expectNoSideScroll(page);
  await phoneShot(page, "console-menu");

  // Escape closes it and gives focus back to the button.
  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();
  await expect(menu).toBeFocused();

  // Choosing a page navigates and closes the menu; the new page is the marked one.
  await menu.click();
  await sheet.getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveURL(/\/console\/audit$/);
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  await expect(sheet).toBeHidden();
  await menu.click();
  await expect(sheet.getByRole("link", { name: "Audit log" })).toHaveAttribute("aria-current", "page");
  await expect(sheet.getByRole("link", { name: "Accounts" })).not.toHaveAttribute("aria-current", "page");
  await sheet.getByRole("button", { name: "Close" }).click();
  await expect(sheet).toBeHidden();

  // The account menu is named by what it shows.
  await expect(page.getByRole("button", { name: /^owner-menu-.+@acme\.test, account menu$/ })).toBeInViewport();
});

test("/identity opened directly explains itself; the DPA terms are linked from settings", async ({ page, request }) => {
  await page.goto("/identity");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Identity verification");
  await expect(page.getByText(/verification was submitted/i)).toHaveCount(0);
  await expect(page.getByText("there is nothing to do here")).toBeVisible();
  await shoot(page, "identity-return");

  const org = await seededOrg(request);
  // The hosted sandbox page: after a final decision, a reload shows the decision, not the form again.
  const kyc = await (await request.post("/v1/kyc/start", { headers: { authorization: `Bearer ${org.apiKey}` }, data: {} })).json();
  // Before the page's script runs, the form is disabled: a click would otherwise submit it natively.
  const release = await holdScripts(page);
  await page.goto(kyc.verificationUrl, { waitUntil: "commit" });
  await expect(page.getByRole("button", { name: "Submit document" })).toBeDisabled();
  await expect(page.getByLabel(/Valid passport/)).toBeDisabled();
  release();
  await page.getByLabel(/Valid passport/).check();
  await page.getByRole("button", { name: "Submit document" }).dblclick();
  await expect(page.getByTestId("verification-status")).toHaveText("Your identity is verified.");
  await page.reload();
  await expect(page.getByTestId("verification-status")).toHaveText("Your identity is verified.");
  await expect(page.getByText("This decision is final")).toBeVisible();
  await expect(page.getByRole("button", { name: "Submit document" })).toHaveCount(0);
  await expectNoSideScroll(page);

  await signIn(page, org, uniq("owner-dpa"));
  await page.goto("/console/settings");
  await page.getByRole("link", { name: "read the data processing terms" }).click();
  await expect(page).toHaveURL(/\/legal\/dpa$/);
  for (const h of ["What we process", "Subprocessors", "Where data stays", "Deletion"]) {
    await expect(page.getByRole("heading", { level: 2, name: h })).toBeVisible();
  }
  await shoot(page, "legal-dpa");
  // Our mark is the favicon.
  const icon = await request.get((await page.locator('link[rel="icon"]').first().getAttribute("href"))!);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});
