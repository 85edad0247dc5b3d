import { expect, test } from "@playwright/test";
import { expectAccessible, shoot, type Tenant, walletTenant } from "./wallet-helpers";

// The hosted consent page of a wallet presentation request as a person meets it: the tenant asks
// for two claims with a purpose and sends the person the answer's consentPageUrl; the page says
// who asks for what and why, shows the request as a QR code and a wallet link, and lets the person
// decline. The page must not scroll sideways on a phone, and a double click declines once.

type Requested = { presentationId: string; status: string; requestUri: string; consentPageUrl: string };

const PURPOSE = "To open a trading account you must be an adult verified person.";

test.describe("hosted wallet consent page", () => {
  let tenant: Tenant;
  let orgName: string;
  test.beforeAll(async () => {
    orgName = `Wallet Consent ${Date.now()}`;
    tenant = await walletTenant(orgName);
  });

  test("says who asks for what and why at 1440 and 390 px; a double click declines once, and the decline stays", async ({
    page,
    request,
    baseURL,
  }) => {
    const res = await request.post("/v1/wallet/presentations", {
      headers: tenant.auth,
      data: { claims: ["age_over_18", "kyc_level"], purpose: PURPOSE },
    });
    expect(res.status(), await res.text()).toBe(201);
    const asked = (await res.json()) as Requested;
    expect(asked.status).toBe("pending");
    expect(asked.consentPageUrl).toBe(`${baseURL}/wallet/present/${asked.presentationId}`);

    for (const [width, height] of [
      [1440, 900],
      [390, 844],
    ] as const) {
      await page.goto("about:blank");
      await page.setViewportSize({ width, height });
      const loaded = await page.goto(asked.consentPageUrl);
      // The address names the request, with which anyone may decline it: no Referer leaves the page.
      expect(loaded!.headers()["referrer-policy"]).toBe("no-referrer");
      await expect(page).toHaveTitle("Share from your wallet · Bind Identity");
      await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
      await expect(page.getByRole("heading", { level: 1, name: "Share from your wallet" })).toBeVisible();
      await expect(page.getByTestId("consent-asks")).toHaveText(`${orgName} asks for: Over 18, Verification level.`);
      await expect(page.getByTestId("consent-purpose")).toHaveText(PURPOSE);
      const list = page.getByRole("listitem");
      await expect(list.filter({ hasText: "Over 18" })).toBeVisible();
      await expect(list.filter({ hasText: "Verification level" })).toBeVisible();
      await expect(page.getByText("Nothing else is shared.")).toBeVisible();
      await expect(page.getByText("Your wallet shows the same list before you confirm.")).toBeVisible();
      const qr = page.getByRole("img", { name: "QR code of the presentation request" });
      await expect(qr).toBeVisible();
      expect(await qr.evaluate((el) => el.tagName.toLowerCase())).toBe("svg");
      const box = (await qr.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await expect(page.getByRole("link", { name: "Open in wallet app" })).toHaveAttribute("href", asked.requestUri);
      await expect(page.getByRole("button", { name: "Decline" })).toBeEnabled();
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(width);
      if (width === 390) await expectAccessible(page);
      await page.waitForLoadState("networkidle");
      await shoot(page, `wallet-consent-${width}`);
    }

    // Decline with a double click: one request goes out, and the page says nothing was shared.
    let declines = 0;
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === `/oid4vp/requests/${asked.presentationId}/decline`) declines++;
    });
    await page.getByRole("button", { name: "Decline" }).dblclick();
    await expect(page.getByText(`You declined. Nothing was shared with ${orgName}.`)).toBeVisible();
    await page.waitForLoadState("networkidle");
    expect(declines).toBe(1);
    await expect(page.getByRole("link", { name: "Open in wallet app" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Decline" })).toHaveCount(0);

    const outcome = await request.get(`/v1/wallet/presentations/${asked.presentationId}`, { headers: tenant.auth });
    expect(outcome.status(), await outcome.text()).toBe(200);
    const read = (await outcome.json()) as { status: string; disclosed: unknown };
    expect(read.status).toBe("declined");
    expect(read.disclosed).toBeNull();

    // The status poll answers the status and nothing else.
    const polled = await request.get(`/oid4vp/requests/${asked.presentationId}/status`);
    expect(polled.status()).toBe(200);
    expect(await polled.json()).toEqual({ status: "declined" });

    // A reload shows the answer straight away, without the QR code or the buttons.
    await page.reload();
    await expect(page.getByText(`You declined. Nothing was shared with ${orgName}.`)).toBeVisible();
    await expect(page.getByRole("img", { name: "QR code of the presentation request" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Decline" })).toHaveCount(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  test("the EU wallet identity verification's page names the PID attributes in words, at 1440 and 390 px", async ({ page, request }) => {
    const started = await request.post("/v1/kyc/start", { headers: tenant.auth, data: { provider: "eudi_wallet" } });
    expect(started.status(), await started.text()).toBe(200);
    const kyc = (await started.json()) as { verificationUrl: string; provider: string };
    expect(kyc.provider).toBe("eudi_wallet");
    expect(kyc.verificationUrl).toMatch(/\/wallet\/present\/[0-9a-f-]{36}$/);
    for (const [width, height] of [
      [1440, 900],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(kyc.verificationUrl);
      await expect(
        page.getByRole("heading", { level: 1, name: "Verify your identity with your EU digital identity wallet" }),
      ).toBeVisible();
      for (const label of ["Family name", "Given name", "Date of birth", "Nationality"])
        await expect(page.getByRole("listitem").filter({ hasText: label }).first()).toBeVisible();
      await expect(page.getByRole("link", { name: "Open in wallet app" })).toHaveAttribute("href", /^openid4vp:\/\/\?client_id=/);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await shoot(page, `wallet-pid-${width}`);
    }
  });

  test("an id that names no request is a 404 page", async ({ page, request }) => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const res = await page.goto(`/wallet/present/${unknown}`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Share from your wallet" })).toHaveCount(0);
    expect((await page.goto("/wallet/present/not-a-uuid"))?.status()).toBe(404);
    expect((await request.get(`/oid4vp/requests/${unknown}/status`)).status()).toBe(404);
  });
});
