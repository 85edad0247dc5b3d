import { expect, test } from "@playwright/test";
import { checkoutProofKey } from "../src/components/billing/checkout-api";
import { shoot } from "./shoot";

// A prospect pays for Growth on the sandbox's checkout page and gets a working key, shown once, in
// the tab that holds the email proof the checkout spent.

test("Growth by (test) card: checkout page → return page → key revealed once → the key works", async ({ page, request }) => {
  const email = `buyer-${Date.now()}@acme-e2e.test`;
  const start = await (await request.post("/v1/billing/email/otp/start", { data: { email } })).json();
  expect(start.devCode).toMatch(/^\d{6}$/);
  const proof = await (
    await request.post("/v1/billing/email/otp/confirm", { data: { challengeId: start.challengeId, code: start.devCode } })
  ).json();
  const checkout = await request.post("/v1/billing/checkout", {
    data: { emailProofToken: proof.emailProofToken, plan: "growth", organizationName: "E2E Growth Ltd" },
  });
  expect(checkout.status()).toBe(200);
  const { checkoutUrl, sessionId } = await checkout.json();

  await page.goto(new URL(checkoutUrl).pathname);
  // As the signup page that starts a checkout in the browser does (rememberCheckoutProof): the tab keeps the proof.
  await page.evaluate(([k, v]) => sessionStorage.setItem(k, v), [checkoutProofKey(sessionId), proof.emailProofToken] as const);
  await expect(page.getByRole("heading", { name: "Checkout" })).toBeVisible();
  await expect(page.getByText("Growth", { exact: true })).toBeVisible();
  await shoot(page, "billing-sandbox-checkout");
  await page.getByRole("button", { name: "Pay with the test card" }).click();
  await expect(page.getByTestId("checkout-status")).toHaveText("Your organization is ready.");
  // The session id is the buyer's secret: out of the address bar at once, and no Referer leaves the page.
  await expect(page).toHaveURL(/\/billing\/return$/);
  expect(page.url()).not.toContain(sessionId);
  expect(page.url()).not.toContain(proof.emailProofToken);
  const returnPage = await request.get(`/billing/return?session=${sessionId}`);
  expect(returnPage.headers()["referrer-policy"]).toBe("no-referrer");

  // A proof that is sent must be this checkout's. Another tab with the link, in the minutes after
  // payment, may show the key with the session id alone (the contract's request), and says until when.
  const bare = await request.post("/v1/billing/checkout/reveal", { data: { sessionId, emailProofToken: "ept_from-a-stranger" } });
  expect(bare.status()).toBe(403);
  const elsewhere = await page.context().newPage();
  await elsewhere.goto(`/billing/return?session=${sessionId}`);
  await expect(elsewhere.getByTestId("checkout-proof-missing")).toContainText("within 15 minutes of your payment");
  await expect(elsewhere.getByRole("button", { name: "Show my API key (once)" })).toBeVisible();
  await shoot(elsewhere, "billing-return-proof-missing");
  await elsewhere.close();

  // A double click asks once: the key stays on the page (a second reveal would be a 409).
  await page.getByRole("button", { name: "Show my API key (once)" }).dblclick();
  const key = await page.locator("code").first().textContent();
  expect(key).toMatch(/^bi_test_/);
  await page.waitForLoadState("networkidle");
  await expect(page.getByText("already revealed")).toHaveCount(0);
  await expect(page.locator("code").first()).toHaveText(key!);
  await shoot(page, "billing-return-revealed");

  const tenant = await request.get("/v1/tenant", { headers: { authorization: `Bearer ${key}` } });
  expect(tenant.status()).toBe(200);
  expect((await tenant.json()).plan ?? (await tenant.json()).organization?.plan).toBeDefined();

  // Shown once: the page no longer offers the key.
  await page.reload();
  await expect(page.getByTestId("checkout-status")).toContainText("already shown once");
  const poll = await (await request.get(`/v1/billing/checkout/${sessionId}`)).text();
  expect(poll).not.toContain(key!);
});
