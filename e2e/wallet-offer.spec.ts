import { expect, test } from "@playwright/test";
import { approvedPerson, expectAccessible, shoot, type Tenant, walletTenant } from "./wallet-helpers";

// The hosted credential offer page as a person meets it: the tenant asks for an offer, sends the
// person the answer's offerPageUrl, and the page shows the offer as a QR code and a wallet link.
// The offer rides after `#`, so the server that serves the page never receives it.

type Offered = {
  credentialOffer: { grants: Record<string, { "pre-authorized_code"?: string }> };
  credentialOfferUri: string;
  offerPageUrl: string;
};

const PRE_AUTHORIZED = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

test.describe("hosted credential offer page", () => {
  let tenant: Tenant;
  test.beforeAll(async () => {
    tenant = await walletTenant(`Wallet Offer ${Date.now()}`);
  });

  test("shows the offer as a QR code and a wallet link at 1440 and 390 px, and the server never sees it", async ({
    page,
    request,
    baseURL,
  }) => {
    const { personDid } = await approvedPerson(request, tenant);
    const res = await request.post("/v1/wallet/offers", { headers: tenant.auth, data: { personDid } });
    expect(res.status(), await res.text()).toBe(201);
    const offered = (await res.json()) as Offered;
    const query = new URL(offered.credentialOfferUri).search.slice(1);
    expect(query.startsWith("credential_offer=")).toBe(true);
    expect(offered.offerPageUrl).toBe(`${baseURL}/wallet/offer#${query}`);
    const code = offered.credentialOffer.grants[PRE_AUTHORIZED]?.["pre-authorized_code"];
    expect(code).toBeTruthy();

    // Everything the browser sends, to see that neither the offer nor its code leaves the page.
    const sent: { url: string; headers: string; navigation: boolean }[] = [];
    page.on("request", async (r) => {
      sent.push({ url: r.url(), headers: JSON.stringify(await r.allHeaders()), navigation: r.isNavigationRequest() });
    });

    for (const [width, height] of [
      [1440, 900],
      [390, 844],
    ] as const) {
      await page.goto("about:blank");
      await page.setViewportSize({ width, height });
      await page.goto(offered.offerPageUrl);
      await expect(page).toHaveTitle("Add your credential · Bind Identity");
      await expect(page.getByRole("heading", { level: 1, name: "Add your credential to your wallet" })).toBeVisible();
      const qr = page.getByRole("img", { name: "QR code of the credential offer" });
      await expect(qr).toBeVisible();
      const box = (await qr.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.width).toBeGreaterThanOrEqual(280);
      await expect(page.getByRole("link", { name: "Open in wallet app" })).toHaveAttribute("href", offered.credentialOfferUri);
      await expect(page.getByText("Your wallet will ask for a 6-digit code")).toBeVisible();
      await expect(page.getByText(/expires 10 minutes after it was made and works once/)).toBeVisible();
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(width);
      if (width === 390) await expectAccessible(page);
      await page.waitForLoadState("networkidle");
      await shoot(page, `wallet-offer-${width}`);
    }

    // The address bar holds the offer; the request for the page did not.
    expect(page.url()).toBe(offered.offerPageUrl);
    const documents = sent.filter((s) => s.navigation && s.url.startsWith(baseURL!));
    expect(documents.map((d) => d.url)).toEqual([`${baseURL}/wallet/offer`, `${baseURL}/wallet/offer`]);
    for (const s of sent) {
      expect(s.url).not.toContain("credential_offer");
      expect(s.url).not.toContain(code!);
      expect(s.headers).not.toContain("credential_offer");
      expect(s.headers).not.toContain(code!);
    }
  });

  test("without an offer in the address, or with one cut short, the page says so in words", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/wallet/offer");
    await expect(page.getByRole("heading", { level: 1, name: "This credential offer link does not work" })).toBeVisible();
    await expect(page.getByText("The link you opened has no credential offer in it.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Open in wallet app" })).toHaveCount(0);

    await page.goto("about:blank");
    await page.goto("/wallet/offer#credential_offer=%7B%22credential_issuer%22%3A%22https%3A%2F%2Fid.exa");
    await expect(page.getByText("The credential offer in this link cannot be read.")).toBeVisible();
    await expect(page.getByRole("img", { name: "QR code of the credential offer" })).toHaveCount(0);
  });
});
