import { expect, test } from "@playwright/test";
import { signIn, uniq } from "./console-helpers";
import { addMembers, CONSOLE_PAGES, PUBLIC_PAGES, seededOrg } from "./console-seed";
import { expectNoSideScroll, shoot } from "./shoot";

/** A still of the phone view only (SCREENSHOTS=1): what `shoot` would show at laptop width does not exist there. */
const phoneShot = async (page: import("@playwright/test").Page, name: string) => {
  if (process.env.SCREENSHOTS === "1") await page.screenshot({ path: `docs/screenshots/${name}-phone.png` });
};

// At a phone's 390×844: no page scrolls sideways, with data in every table, and the control each
// page exists for can be reached; the console's navigation is a menu; dialogs keep their actions
// on screen.

test.use({ viewport: { width: 390, height: 844 } });

test("every console page fits a phone, with its main action reachable; the AML case keeps Propose and Confirm on screen", async ({
  page,
  request,
}) => {
  const org = await seededOrg(request);
  await signIn(page, org, uniq("owner-phone"));
  await addMembers(page, [
    [uniq("compliance-officer-with-a-long-address"), "compliance_officer"],
    [uniq("viewer"), "viewer"],
  ]);

  for (const { path, heading, action } of CONSOLE_PAGES) {
    await test.step(path, async () => {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      await page.waitForLoadState("networkidle");
      await expect(page.getByText("This could not be loaded.")).toHaveCount(0);
      await expectNoSideScroll(page);
      const target = action(page);
      await target.scrollIntoViewIfNeeded();
      await expect(target).toBeInViewport({ ratio: 1 });
    });
  }

  // Tables are cards below the `sm` breakpoint: "label: value" lines, no sideways scroll.
  await page.goto("/console/accounts");
  const cards = page.getByRole("list", { name: "Accounts" }).getByRole("listitem");
  await expect(cards).toHaveCount(3);
  await expect(cards.first().getByRole("definition").first()).toBeVisible();
  await expect(page.getByRole("table")).toHaveCount(0);

  await page.goto("/console/aml");
  await page.getByRole("button", { name: "Review" }).first().click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await page.waitForLoadState("networkidle");
  const box = (await dialog.boundingBox())!;
  // Centred and inside the viewport.
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(box.y + box.height).toBeLessThanOrEqual(844);
  expect(Math.abs(box.x + box.width / 2 - 195)).toBeLessThanOrEqual(1);
  await expect(dialog.getByRole("button", { name: "Propose clear" })).toBeInViewport({ ratio: 1 });
  await expect(dialog.getByRole("button", { name: "Confirm match" })).toBeInViewport({ ratio: 1 });
  // Typing the reason (the keyboard's field) keeps both in reach.
  await dialog.getByLabel("Reason").fill("Namesake: a different date of birth.");
  await expect(dialog.getByRole("button", { name: "Propose clear" })).toBeEnabled();
  await expect(dialog.getByRole("button", { name: "Propose clear" })).toBeInViewport({ ratio: 1 });
  await expectNoSideScroll(page);
  await phoneShot(page, "console-aml-case-dialog");
});

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

test("every public page fits a phone, with its main action reachable", async ({ page }) => {
  for (const { path, heading, action } of PUBLIC_PAGES) {
    await test.step(path, async () => {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading }).first()).toBeVisible();
      await page.waitForLoadState("networkidle");
      await expectNoSideScroll(page);
      const target = action(page);
      await target.scrollIntoViewIfNeeded();
      await expect(target).toBeInViewport({ ratio: 1 });
    });
  }
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
  await page.goto(kyc.verificationUrl);
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
