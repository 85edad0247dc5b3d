import { expect, test } from "@playwright/test";
import { callProcedure, createOrg, memberPage, shoot, signIn, uniq } from "./console-helpers";

// The console's billing page: usage counted from the organization's own /v1 calls, and the
// Builder → Growth upgrade paid on the sandbox's checkout page.

test("an owner sees the usage of the key's calls, upgrades Builder to Growth by (test) card and sees Growth's limits", async ({ page }) => {
  const org = await createOrg();
  const auth = { authorization: `Bearer ${org.apiKey}` };
  for (let i = 0; i < 3; i++) expect((await page.request.get("/v1/tenant", { headers: auth })).status()).toBe(200);

  await signIn(page, org, uniq("billing-owner"));
  await page.getByRole("link", { name: "Billing" }).first().click();
  await expect(page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
  await expect(page.getByTestId("plan-name")).toHaveText("Builder");
  // The three calls, today and in the chart (its text summary and the table screen readers get).
  await expect(page.getByTestId("requests-today")).toHaveText("3");
  await expect(page.getByTestId("requests-summary")).toContainText("3 requests in the last 30 days");
  const table = page.getByRole("table", { name: "API requests per day, per UTC day" });
  await expect(table.getByRole("row")).toHaveCount(31);
  await expect(table.getByRole("row").last().getByRole("cell")).toHaveText("3");
  await expect(page.getByTestId("verifications-used")).toHaveText("0 of 100");
  await expect(page.getByText("At the cap:")).toBeVisible();
  await expect(page.getByTestId("no-portal")).toContainText("no card or payment portal");
  await expect(page.getByTestId("invoices-empty")).toContainText("has not paid by card");
  await shoot(page, "billing");

  // A double click starts one upgrade: one payment panel, one checkout.
  await page.getByRole("button", { name: "Upgrade to Growth" }).dblclick();
  const pay = page.getByTestId("upgrade-payment");
  await expect(pay).toHaveCount(1);
  await expect(pay.getByText("treasury.bi", { exact: true })).toBeVisible();
  await expect(pay.getByText("499.0000 EOS", { exact: true })).toBeVisible();
  await expect(pay.getByRole("button", { name: "Copy memo" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Upgrade to Growth" })).toHaveCount(0);
  await shoot(page, "billing-upgrade");

  await pay.getByRole("link", { name: "Pay by card" }).click();
  await expect(page).toHaveURL(/\/billing\/sandbox-checkout\//);
  await expect(page.getByText("Growth", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Pay with the test card" }).click();
  await expect(page.getByTestId("checkout-status")).toHaveText("Your organization is now on the new plan. Your keys stay as they were.");

  await page.goto("/console/billing");
  await expect(page.getByTestId("plan-name")).toHaveText("Growth");
  await expect(page.getByText("$499 a month")).toBeVisible();
  const plan = page.getByRole("region", { name: "Growth", exact: true });
  await expect(plan.getByText("600", { exact: true })).toBeVisible();
  await expect(plan.getByText("5,000 a month")).toBeVisible();
  await expect(page.getByTestId("verifications-used")).toHaveText("0 of 5,000");
  await expect(page.getByRole("button", { name: "Upgrade to Growth" })).toHaveCount(0);
  // The key keeps working, now with Growth's quota.
  const after = await page.request.get("/v1/tenant", { headers: auth });
  expect(after.status()).toBe(200);
  expect(after.headers()["x-ratelimit-plan-limit"]).toBe("600");
  await shoot(page, "billing-growth");
});

test("an operator has no Billing in the menu, is refused the page and its procedures", async ({ page, browser }) => {
  const org = await createOrg();
  const operatorEmail = uniq("billing-operator");
  await signIn(page, org, uniq("billing-owner2"));
  expect((await callProcedure(page, "members.add", "mutation", { email: operatorEmail, role: "operator" })).status()).toBe(200);

  const operator = await memberPage(browser, org, operatorEmail);
  await expect(operator.getByRole("link", { name: "Webhooks" }).first()).toBeVisible();
  await expect(operator.getByRole("link", { name: "Billing" })).toHaveCount(0);
  await operator.goto("/console/billing");
  await expect(operator.getByRole("heading", { name: "Not available to your role" })).toBeVisible();
  for (const [path, kind] of [
    ["billing.overview", "query"],
    ["billing.history", "query"],
    ["billing.invoices", "query"],
    ["billing.upgrade", "mutation"],
    ["billing.portal", "mutation"],
  ] as const) {
    expect([path, (await callProcedure(operator, path, kind)).status()]).toEqual([path, 403]);
  }
  await operator.context().close();
});
