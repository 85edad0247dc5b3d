import { expect, type Page, test } from "@playwright/test";
import { checkoutProofKey } from "../src/components/billing/checkout-api";
import { createOrg } from "./console-helpers";
import { shoot } from "./shoot";

// Self-service signup in the browser (/signup): work email → code → plan → key, payment or sales lead.
// Public billing calls share 10 per minute per client IP, and the tests together make exactly 10 of
// them (OTP starts and confirms, checkouts). So that specs run before this one (which spend the
// budget of 127.0.0.1) cannot leave it short, this file's pages come from an address of their own:
// the e2e service trusts loopback as a proxy (TRUSTED_PROXIES in playwright.config.ts), and every
// request here carries X-Forwarded-For with an address from the benchmarking range, new each run.
const clientAddress = `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
test.use({ permissions: ["clipboard-read", "clipboard-write"], extraHTTPHeaders: { "x-forwarded-for": clientAddress } });

const uniq = (tag: string) => `${tag}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}@acme-e2e.test`;

/** Counts the browser's POSTs to one /v1 path. */
function countPosts(page: Page, path: string) {
  const seen = { n: 0 };
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === path) seen.n++;
  });
  return seen;
}

/** Steps 1 and 2 with the sandbox code the page shows (the e2e service runs with dev codes on a loopback URL). */
async function confirmEmail(page: Page, email: string) {
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Send the code" }).click();
  await expect(page.getByTestId("dev-code")).toContainText(/Sandbox code: \d{6}/);
  await page.getByRole("button", { name: "Use this code" }).click();
  await page.getByRole("button", { name: "Confirm the code" }).click();
  await expect(page.getByRole("heading", { name: "Choose a plan and name your organization" })).toBeVisible();
}

test("Builder from the landing page: a bad code is refused in the server's words, one request per double click, the key works and is shown once", async ({
  page,
  request,
}) => {
  const starts = countPosts(page, "/v1/billing/email/otp/start");
  const checkouts = countPosts(page, "/v1/billing/checkout");

  await page.goto("/");
  await page.getByRole("banner").getByRole("link", { name: "Sign up", exact: true }).click();
  await expect(page).toHaveURL(/\/signup$/);
  await expect(page.getByTestId("signup-progress")).toHaveText("Step 1 of 3: Work email");

  // Validates as you type, before anything is sent.
  const field = page.getByLabel("Work email");
  await field.fill("dev@acme");
  await field.blur();
  await expect(page.getByText("This is not an email address yet")).toBeVisible();
  const email = uniq("builder");
  await field.fill(email);
  await expect(page.getByText("This is not an email address yet")).toHaveCount(0);
  await shoot(page, "signup-email");

  await page.getByRole("button", { name: "Send the code" }).dblclick();
  await expect(page.getByRole("heading", { name: "Enter the code we emailed you" })).toBeVisible();
  await expect(page.getByTestId("signup-progress")).toHaveText("Step 2 of 3: Confirm code");
  expect(starts.n).toBe(1);
  const devCode = /Sandbox code: (\d{6})/.exec((await page.getByTestId("dev-code").textContent()) ?? "")![1]!;
  await shoot(page, "signup-code");

  // A wrong code: the envelope's message, and the attempts left from its details.
  const code = page.getByLabel("6-digit code");
  await code.fill("12a");
  await expect(page.getByText("The code has digits only.")).toBeVisible();
  await code.fill(devCode === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Confirm the code" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("The code is incorrect or has expired. 4 attempts left.");

  // A reload keeps the step (the challenge is in this tab's sessionStorage).
  await page.reload();
  await expect(page.getByRole("heading", { name: "Enter the code we emailed you" })).toBeVisible();
  // The sandbox code is still shown after the reload.
  await expect(page.getByTestId("dev-code")).toContainText(`Sandbox code: ${devCode}`);
  await page.getByLabel("6-digit code").fill(devCode);
  await page.getByRole("button", { name: "Confirm the code" }).click();

  await expect(page.getByRole("heading", { name: "Choose a plan and name your organization" })).toBeVisible();
  await expect(page.getByRole("radio", { name: "Builder" })).toBeChecked();
  await expect(page.getByRole("radio", { name: "Growth" })).toBeVisible();
  const org = `E2E Builder ${Date.now()}`;
  await page.getByLabel("Organization name").fill("E");
  await page.getByLabel("Organization name").blur();
  await expect(page.getByText("Name your organization (2 to 100 characters).")).toBeVisible();
  await page.getByLabel("Organization name").fill(org);
  await shoot(page, "signup-plan");

  // On a phone, from the bottom of the long plan step.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Create my organization" }).dblclick();
  await expect(page.getByRole("heading", { name: "Your organization is ready" })).toBeVisible();
  expect(checkouts.n).toBe(1);
  // The result opens at its top with focus on it, the warning and key in view below the sticky header.
  await expect(page.getByRole("heading", { name: "Your organization is ready" })).toBeFocused();
  const warning = page.getByText("Store them now: they will not be shown again.");
  await expect(warning).toBeInViewport();
  await expect(page.getByTestId("api-key")).toBeInViewport();
  const headerBottom = (await page.getByRole("banner").boundingBox())!;
  expect((await warning.boundingBox())!.y).toBeGreaterThanOrEqual(headerBottom.y + headerBottom.height);
  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(page.getByText("Store them now: they will not be shown again.")).toBeVisible();
  const shown = (await page.getByTestId("api-key").textContent())!;
  const password = (await page.getByTestId("console-password").textContent())!;
  expect(shown).toMatch(/^bi_test_/);
  const organizationId = (await page.getByTestId("organization-id").textContent())!;
  await expect(page.getByRole("main").getByRole("link", { name: "Sign in to the console" })).toHaveAttribute(
    "href",
    `/console/sign-in?organization=${organizationId}`,
  );

  // The page's copy button puts the key on the clipboard; that key answers /v1/tenant.
  await page.getByRole("button", { name: "Copy API key" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(shown);
  await shoot(page, "signup-builder-revealed");

  const tenant = await request.get("/v1/tenant", { headers: { authorization: `Bearer ${copied}` } });
  expect(tenant.status()).toBe(200);
  expect(await tenant.json()).toMatchObject({ name: org });

  // Shown once: a reload says so, keeps the organization id for sign-in, and the tab stored no secret.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Your key was shown once" })).toBeVisible();
  await expect(page.getByTestId("organization-id")).toHaveText(organizationId);
  expect(await page.content()).not.toContain(shown);
  const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
  expect(stored).not.toContain(shown);
  expect(stored).not.toContain(password);
  expect(stored).not.toContain("ept_");

  // The first sign-in of the new organization: the link goes straight to its console password, the ID filled in.
  await page.getByRole("main").getByRole("link", { name: "Sign in to the console" }).click();
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("Organization ID")).toHaveValue(organizationId);
  await page.getByLabel("Console password").fill(password);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
});

test("Growth paid on chain in the sandbox: terms with QR codes, a wrong transaction in words, 425 waited out, the key revealed once", async ({
  page,
  request,
}) => {
  const payer = await createOrg();
  await page.goto("/signup?plan=growth");
  await confirmEmail(page, uniq("growth"));
  await expect(page.getByRole("radio", { name: "Growth" })).toBeChecked();
  const org = `E2E Growth ${Date.now()}`;
  await page.getByLabel("Organization name").fill(org);
  await page.getByRole("button", { name: "Continue to payment" }).click();

  await expect(page.getByRole("heading", { name: "Pay for Growth" })).toBeVisible();
  await expect(page.getByTestId("payment-status")).toContainText("Awaiting payment");
  const treasury = (await page.getByTestId("chain-treasury").textContent())!;
  const memo = (await page.getByTestId("chain-memo").textContent())!;
  const amount = (await page.getByTestId("chain-amount").textContent())!;
  expect(amount).toMatch(/^\d+\.\d{4} [A-Z]+$/);
  for (const what of ["treasury account", "memo", "amount"]) {
    await expect(page.getByRole("img", { name: `QR code of the ${what}` })).toBeVisible();
  }
  await expect(page.getByRole("button", { name: "Pay by card" })).toBeEnabled();
  await shoot(page, "signup-chain-payment");

  // A reload keeps the checkout and its payment terms.
  await page.reload();
  await expect(page.getByTestId("chain-memo")).toHaveText(memo);

  // Card: the tab keeps the email proof for the return page before leaving, and the URL never holds it.
  const { sessionId } = await page.evaluate(() => JSON.parse(sessionStorage.getItem("bi-signup")!) as { sessionId: string });
  await page.getByRole("button", { name: "Pay by card" }).click();
  await expect(page).toHaveURL(new RegExp(`/billing/sandbox-checkout/${sessionId}$`));
  expect(await page.evaluate((k) => sessionStorage.getItem(k), checkoutProofKey(sessionId))).toMatch(/^ept_/);
  // Changed our mind: back to the signup, which is still at its payment step, and pay on chain instead.
  await page.goBack();
  await expect(page.getByRole("button", { name: "Pay by card" })).toBeEnabled();
  await expect(page.getByTestId("chain-memo")).toHaveText(memo);

  // A transaction that is not a transfer to us: the server's reason, in words.
  await page.getByLabel("Transaction id").fill("0".repeat(64));
  await page.getByRole("button", { name: "Confirm my payment" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("No token transfer was found for this transaction id.");

  const paid = await request.post("/v1/sandbox/chain/transfer", {
    headers: { authorization: `Bearer ${payer.apiKey}` },
    data: { from: "payer.bi", to: treasury, quantity: amount, memo },
  });
  expect(paid.status()).toBe(200);
  const { transactionId } = await paid.json();

  // Confirmed at once, the transfer is still reversible (425): the page says so and retries by itself.
  await page.getByLabel("Transaction id").fill(transactionId);
  await page.getByLabel("Paying account (optional)").fill("payer.bi");
  await page.getByRole("button", { name: "Confirm my payment" }).click();
  await expect(page.getByTestId("payment-status")).toContainText("Payment seen, waiting until it is irreversible");
  await expect(page.getByRole("heading", { name: "Your organization is ready" })).toBeVisible({ timeout: 30_000 });
  const key = (await page.getByTestId("api-key").textContent())!;
  expect(key).toMatch(/^bi_test_/);

  const tenant = await request.get("/v1/tenant", { headers: { authorization: `Bearer ${key}` } });
  expect(tenant.status()).toBe(200);
  expect(await tenant.json()).toMatchObject({ name: org, plan: { id: "growth" } });

  // The proof unlocks nothing more: the tab drops it.
  expect(await page.evaluate((k) => sessionStorage.getItem(k), checkoutProofKey(sessionId))).toBeNull();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Your key was shown once" })).toBeVisible();
  expect(await page.content()).not.toContain(key);
  const status = await (await request.get(`/v1/billing/checkout/${sessionId}`)).json();
  expect(status).toMatchObject({ status: "provisioned", plan: "growth", revealAvailable: false });
});

test("Institutional: the contact form makes a sales lead and says what happens next", async ({ page, request }) => {
  await page.goto("/signup?plan=institutional");
  await confirmEmail(page, uniq("institutional"));
  await expect(page.getByRole("radio", { name: "Institutional" })).toBeChecked();
  await page.getByLabel("Organization name").fill(`E2E Exchange ${Date.now()}`);
  const volume = page.getByLabel("Expected verifications a month");
  await volume.fill("lots");
  await expect(page.getByText("Enter a whole number, for example 20000.")).toBeVisible();
  await volume.fill("25000");
  await page.getByLabel("Message to sales (optional)").fill("We run a regulated exchange on EOS and WAX and want to go live next quarter.");
  await expect(page.getByText("76 of 2,000 characters")).toBeVisible();
  await page.getByRole("button", { name: "Send to sales" }).click();

  await expect(page.getByRole("heading", { name: "Your request reached our sales team" })).toBeVisible();
  await expect(page.getByText("Our sales team replies to your verified work email")).toBeVisible();
  await expect(page.getByText("Nothing has been charged")).toBeVisible();
  await expect(page.getByTestId("signup-progress")).toHaveText("All 3 steps done");
  const sessionId = (await page.getByTestId("lead-reference").textContent())!;
  await shoot(page, "signup-institutional-sent");

  const status = await request.get(`/v1/billing/checkout/${sessionId}`);
  expect(status.status()).toBe(200);
  expect(await status.json()).toMatchObject({ status: "sales_lead", plan: "institutional" });

  await page.reload();
  await expect(page.getByRole("heading", { name: "Your request reached our sales team" })).toBeVisible();
});
