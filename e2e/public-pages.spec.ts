import { expect, type Page, test } from "@playwright/test";
import { createOrg } from "./console-helpers";
import { holdScripts } from "./hold-scripts";
import { expectNoSideScroll, shoot } from "./shoot";

// The public front door: the landing page and /pricing with its plan advisor, at laptop and phone width.

type Plan = {
  id: string;
  name: string;
  priceUsdMonthly: number | null;
  limits: { requestsPerMinute: number };
  verificationsPerMonth: number | null;
  includes: string[];
  support?: string;
  sla?: string | null;
  atVerificationCap?: string;
};

/** What a price must read as, worked out here rather than imported from the page. */
const priceText = (p: number | null) => (p === null ? "Talk to sales" : p === 0 ? "Free" : `$${p.toLocaleString("en-US")}`);
const count = (n: number) => n.toLocaleString("en-US");

test("landing page: sections, calls to action, and a code sample that works as shown", async ({ page, request, baseURL }) => {
  await page.goto("/");
  await expect(page).toHaveTitle(/Bind Identity/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Know who is behind every free chain account.");
  for (const h of [
    "Free accounts, without anonymous holders",
    "From a new account to a proven holder",
    "One call creates the account",
    "Built to be audited",
  ]) {
    await expect(page.getByRole("heading", { level: 2, name: h })).toBeVisible();
  }
  // How it works: KYC, wallet signature, credential, screening, audit log, in that order.
  const steps = page.getByRole("region", { name: "From a new account to a proven holder" }).getByRole("listitem");
  await expect(steps.getByRole("heading", { level: 3 })).toHaveText([
    "Verify the person",
    "Bind with the wallet key",
    "Issue a verifiable credential",
    "Screen and clear",
    "Keep the proof",
  ]);
  const trust = page.getByRole("region", { name: "Built to be audited" });
  for (const h of ["What we never store", "Signed requests", "IP allowlists", "Audit exports"]) {
    await expect(trust.getByRole("heading", { name: h })).toBeVisible();
  }

  const header = page.getByRole("banner");
  await expect(header.getByRole("link", { name: "Pricing" })).toHaveAttribute("href", "/pricing");
  await expect(header.getByRole("link", { name: "Docs" })).toHaveAttribute("href", "/docs");
  await expect(header.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/console/sign-in");
  await expect(page.getByRole("link", { name: "Start free with Builder" }).first()).toHaveAttribute("href", "/signup?plan=builder");
  await expect(page.getByRole("link", { name: "Read the docs" })).toHaveAttribute("href", "/docs");

  // The curl sample names this service's origin and a body the API accepts: send it with a real key.
  const sample = (await page.getByTestId("free-account-request").textContent())!;
  expect(sample).toContain(`curl -X POST ${baseURL}/v1/accounts/free`);
  const body = JSON.parse(/-d '([\s\S]+)'\s*$/.exec(sample)![1]!);
  const org = await createOrg(`Landing sample ${Date.now()}`);
  const created = await request.post("/v1/accounts/free", {
    headers: { authorization: `Bearer ${org.apiKey}`, "idempotency-key": `landing-${Date.now()}` },
    data: body,
  });
  expect(created.status(), await created.text()).toBe(201);
  const account = await created.json();
  expect(account).toMatchObject({ name: body.preferredName, lifecycle: "provisional", ownerPublicKey: body.ownerPublicKey });

  await shoot(page, "landing");

  await header.getByRole("link", { name: "Sign up", exact: true }).click();
  await expect(page).toHaveURL(/\/signup$/);
  await page.goto("/");
  await page.getByRole("link", { name: "See pricing" }).first().click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Start free, grow when you need to");
});

test("on a phone the header folds its links into a menu and nothing scrolls sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/", "/pricing"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    await expectNoSideScroll(page);
  }
  // The menu button is disabled until the page's script runs, so a tap before then is not lost.
  const release = await holdScripts(page);
  await page.goto("/", { waitUntil: "commit" });
  const header = page.getByRole("banner");
  await expect(header.getByRole("button", { name: "Open menu" })).toBeDisabled();
  release();
  await expect(header.getByRole("link", { name: "Sign up", exact: true })).toBeVisible();
  await expect(header.getByRole("link", { name: "Pricing" })).toBeHidden();
  await header.getByRole("button", { name: "Open menu" }).click();
  await expect(header.getByRole("link", { name: "Docs" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(header.getByRole("link", { name: "Docs" })).toBeHidden();
  await header.getByRole("button", { name: "Open menu" }).click();
  await header.getByRole("link", { name: "Pricing" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(header.getByRole("link", { name: "Pricing" })).toBeHidden();
});

async function expectCatalog(page: Page, plans: Plan[]) {
  await expect(page.locator('section[data-testid^="plan-"]')).toHaveCount(plans.length);
  for (const p of plans) {
    const card = page.getByTestId(`plan-${p.id}`);
    await expect(card.getByRole("heading", { level: 3 })).toHaveText(p.name);
    await expect(card.getByTestId("plan-price")).toHaveText(priceText(p.priceUsdMonthly));
    await expect(card.getByTestId("plan-rpm")).toHaveText(count(p.limits.requestsPerMinute));
    await expect(card.getByTestId("plan-verifications")).toHaveText(
      p.verificationsPerMonth === null ? "By contract" : count(p.verificationsPerMonth),
    );
    if (p.support) await expect(card).toContainText(p.support);
    if (p.sla) await expect(card).toContainText(p.sla);
    if (p.atVerificationCap) await expect(card).toContainText(p.atVerificationCap);
    await expect(card.getByRole("link")).toHaveAttribute("href", `/signup?plan=${p.id}`);
  }
  // What every plan includes is said once, under the cards.
  const shared = plans[0]!.includes.filter((l) => plans.every((p) => p.includes.includes(l)));
  const every = page.getByRole("region", { name: "Every plan includes" });
  for (const line of shared) await expect(every.getByText(line, { exact: true })).toBeVisible();
}

test("/pricing shows the catalog the API serves, and nothing of its own", async ({ page, request }) => {
  const { plans } = (await (await request.get("/v1/billing/plans")).json()) as { plans: Plan[] };
  expect(plans.length).toBeGreaterThan(0);

  await page.goto("/pricing");
  await expectCatalog(page, plans);
  await expect(page.getByTestId("plan-builder").getByRole("link")).toHaveText("Start free");
  await expect(page.getByTestId("plan-institutional").getByRole("link")).toHaveText("Talk to sales");
  await expect(page.getByTestId("plan-growth").getByRole("link")).toHaveAttribute("href", "/signup?plan=growth");
  await shoot(page, "pricing");

  // Change the catalog on its way to the browser: the page follows it, so it cannot hold a copy.
  const changed = plans.map((p, i) => ({
    ...p,
    name: `${p.name} X`,
    priceUsdMonthly: p.priceUsdMonthly === null ? null : p.priceUsdMonthly + 1000 + i,
    limits: { requestsPerMinute: p.limits.requestsPerMinute + 7 },
  }));
  await page.route("**/v1/billing/plans", async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: { plans: changed } });
  });
  await page.reload();
  await expectCatalog(page, changed);

  // An error answer is shown in the envelope's words, and "Try again" loads the catalog.
  await page.unroute("**/v1/billing/plans");
  await page.route("**/v1/billing/plans", (route) =>
    route.fulfill({
      status: 503,
      json: { error: { code: "PROVIDER_UNAVAILABLE", message: "The plan catalog is briefly unavailable.", correlationId: "e2e" } },
    }),
  );
  await page.reload();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("The plan catalog is briefly unavailable.");
  await page.unroute("**/v1/billing/plans");
  await page.getByRole("button", { name: "Try again" }).click();
  await expectCatalog(page, plans);
});

test("the advisor recommends what the API recommends for 20,000 verifications a month, asked once on a double click", async ({
  page,
  request,
}) => {
  const question = "We onboard about 20,000 new users a month on WAX. Which plan fits?";
  const direct = await request.post("/v1/billing/ai/advise", { data: { question, expectedMonthlyVerifications: 20_000 } });
  expect(direct.status()).toBe(200);
  const expected = await direct.json();
  expect(["growth", "institutional"]).toContain(expected.recommendedPlan.id);

  await page.goto("/pricing");
  await expect(page.locator('section[data-testid^="plan-"]').first()).toBeVisible();
  const form = page.getByRole("form", { name: "Plan advisor" });
  const submit = form.getByRole("button", { name: "Recommend a plan" });
  let sent = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/v1/billing/ai/advise") sent++;
  });

  // Checked as the person types, and nothing is sent while the form is wrong.
  await submit.click();
  await expect(form.getByText("Write your question.")).toBeVisible();
  const verifications = form.getByLabel("Expected verifications a month");
  await verifications.fill("-5");
  await expect(form.getByText("Enter a whole number of 0 or more, without decimals.")).toBeVisible();
  await verifications.fill("12.5");
  await expect(form.getByText("Enter a whole number of 0 or more, without decimals.")).toBeVisible();
  await verifications.fill("200000000");
  await expect(form.getByText("At most 100,000,000.")).toBeVisible();
  await form.getByLabel("Your question").fill("x".repeat(2001));
  await expect(form.getByText("2,001 / 2,000")).toBeVisible();
  await expect(form.getByText("remove 1.")).toBeVisible();
  expect(sent).toBe(0);

  await form.getByLabel("Your question").fill(question);
  await verifications.fill("20,000");
  await expect(form.getByText("Enter a whole number")).toHaveCount(0);
  await submit.dblclick();
  const advice = page.getByTestId("advice");
  await expect(advice.getByTestId("advice-plan")).toHaveText(expected.recommendedPlan.name);
  for (const reason of expected.reasons as string[]) await expect(advice.getByText(reason, { exact: true })).toBeVisible();
  await expect(advice.getByRole("link")).toHaveAttribute("href", `/signup?plan=${expected.recommendedPlan.id}`);
  await page.waitForLoadState("networkidle");
  expect(sent).toBe(1);
  // A second click that lands after the answer (a double click on a busy machine) asks nothing more.
  await submit.click();
  await expect(advice).toBeFocused();
  await page.waitForLoadState("networkidle");
  expect(sent).toBe(1);
  await shoot(page, "pricing-advice");

  // A 429 says when to ask again (from Retry-After) and holds the button until then.
  await page.route("**/v1/billing/ai/advise", (route) =>
    route.fulfill({
      status: 429,
      headers: { "retry-after": "30" },
      json: {
        error: {
          code: "RATE_LIMITED",
          message: "Too many billing requests from this address; retry after the window resets.",
          details: { retryAfterSec: 30 },
          correlationId: "e2e",
        },
      },
    }),
  );
  await verifications.fill("25,000");
  await submit.click();
  await expect(form.getByRole("alert")).toContainText("Too many billing requests from this address");
  await expect(form.getByRole("alert")).toContainText("You can ask again in 30 seconds.");
  await expect(form.getByRole("button", { name: /Ask again in \d+ s/ })).toBeDisabled();
});
