import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { verifyWithDigitalBazaar } from "../src/server/testing/independent-vc-verifier";
import { createOrg } from "./console-helpers";
import { expectNoSideScroll, shoot } from "./shoot";

// The hosted bind page as an end user meets it: a tenant asks for a bind session, the user opens
// the link, reads what they agree to, and signs with a wallet. The wallet is WharfKit's published
// private-key plugin inside the page's own SessionKit, talking to the sandbox chain's node API;
// the tenant's redirect is a real HTTP server that records what it receives.

type Tenant = { apiKey: string; auth: { authorization: string } };

/** A tenant's app: records each request to /bound (not the browser's favicon) and answers a small page. */
async function tenantApp() {
  const hits: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://tenant.local");
    if (url.pathname === "/bound") hits.push(url);
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Tenant app</title><h1>Back in the tenant app</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/bound`, hits, close: () => new Promise((r) => server.close(r)) };
}

/** An approved person with a free account on the sandbox chain owned by a fresh wallet key. */
async function readyToBind(request: APIRequestContext, tenant: Tenant) {
  const started = await request.post("/v1/kyc/start", { headers: tenant.auth, data: {} });
  expect(started.status()).toBe(200);
  const { personDid } = await started.json();
  expect(
    (await request.post("/v1/sandbox/kyc/complete", { headers: tenant.auth, data: { personDid, outcome: "approved" } })).status(),
  ).toBe(200);
  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: tenant.auth })).json();
  const wallet = PrivateKey.generate("K1");
  const created = await request.post("/v1/accounts/free", {
    headers: tenant.auth,
    data: { ownerPublicKey: wallet.toPublic().toString(), kycCreateToken: status.createToken, personDid },
  });
  expect(created.status()).toBe(201);
  const { accountDid, name } = await created.json();
  return { personDid, accountDid: accountDid as string, name: name as string, wallet };
}

async function bindSession(
  request: APIRequestContext,
  tenant: Tenant,
  subject: { accountDid: string; personDid: string },
  redirectUrl?: string,
) {
  const data = { accountDid: subject.accountDid, personDid: subject.personDid, redirectUrl };
  const res = await request.post("/v1/bind/sessions", { headers: tenant.auth, data });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { sessionId: string; url: string };
}

/** No serious or critical WCAG 2.1 A/AA violation on the page as it is now. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
}

async function openWithTestKey(page: Page, url: string, key: PrivateKey) {
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("asks you to link");
  await page.getByText("Sandbox: sign with a test key instead of a wallet").click();
  await page.getByLabel("Private key of the account's active permission").fill(key.toString());
}

test.describe("hosted bind page", () => {
  let tenant: Tenant;
  test.beforeAll(async () => {
    const org = await createOrg(`Hosted Bind ${Date.now()}`, "institutional");
    tenant = { apiKey: org.apiKey, auth: { authorization: `Bearer ${org.apiKey}` } };
  });

  test("a wallet signs in SessionKit, the account binds once on a double click, and the tenant's redirect gets the result", async ({
    page,
    request,
  }) => {
    const app = await tenantApp();
    try {
      const subject = await readyToBind(request, tenant);
      const session = await bindSession(request, tenant, subject, app.url);
      await page.setViewportSize({ width: 1440, height: 900 });
      await openWithTestKey(page, session.url, subject.wallet);
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject.name);
      await expect(page.getByText("Hosted Bind", { exact: false }).first()).toBeVisible();
      await expect(page.getByText("on the sandbox test chain")).toBeVisible();
      await expectAccessible(page);

      const sent: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/v1/bind/hosted/") && r.method() === "POST") sent.push(new URL(r.url()).pathname);
      });
      await page.getByRole("button", { name: "Connect wallet and sign" }).dblclick();
      await page.waitForURL((u) => u.href.startsWith(app.url));
      await expect(page.getByRole("heading", { name: "Back in the tenant app" })).toBeVisible();

      expect(app.hits).toHaveLength(1);
      // The second click of the double click sent nothing: one challenge, one confirm.
      expect(sent).toEqual(["/v1/bind/hosted/challenge", "/v1/bind/hosted/confirm"]);
      const back = Object.fromEntries(app.hits[0]!.searchParams);
      expect(back).toMatchObject({ bindSession: session.sessionId, status: "bound" });

      const read = await (await request.get(`/v1/bind/sessions/${session.sessionId}`, { headers: tenant.auth })).json();
      expect(read).toMatchObject({
        status: "bound",
        accountDid: subject.accountDid,
        binding: { bindingId: back.bindingId, status: "active" },
      });
      const issuer = await (await request.get("/.well-known/did.json")).json();
      expect((await verifyWithDigitalBazaar(read.binding.credential, issuer)).verified).toBe(true);
      expect(read.binding.credential.credentialSubject.account).toBe(subject.accountDid);

      // The double click bound once: one binding event and one audit entry for the account.
      const audit = await (await request.get("/v1/admin/audit?limit=100", { headers: tenant.auth })).json();
      const bound = audit.entries.filter(
        (e: { action: string; subject: string }) => e.action === "identity.bound" && e.subject === subject.accountDid,
      );
      expect(bound).toHaveLength(1);
      expect(bound[0].actor).toBe(`system:bind_page:${session.sessionId}`);
      const account = await (await request.get(`/v1/accounts/${encodeURIComponent(subject.accountDid)}`, { headers: tenant.auth })).json();
      expect(account.lifecycle).toBe("bound");
    } finally {
      await app.close();
    }
  });

  test("on a phone: what the user agrees to, a refusal in words, then the bound page, without sideways scrolling", async ({
    page,
    request,
  }) => {
    const subject = await readyToBind(request, tenant);
    const session = await bindSession(request, tenant, subject);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(session.url);
    await expect(page.getByRole("heading", { name: "What you agree to" })).toBeVisible();
    await expectNoSideScroll(page);
    await expectAccessible(page);
    await shoot(page, "bind-page");

    // A key that does not control the account: the wallet signs, the service refuses, nothing binds.
    await page.getByText("Sandbox: sign with a test key instead of a wallet").click();
    await page.getByLabel("Private key of the account's active permission").fill(PrivateKey.generate("K1").toString());
    await page.getByRole("button", { name: "Connect wallet and sign" }).click();
    await expect(page.locator("form").getByRole("alert")).toContainText("does not control this account's active permission");
    await expectNoSideScroll(page);
    await shoot(page, "bind-page-refused");
    const open = await (await request.get(`/v1/bind/sessions/${session.sessionId}`, { headers: tenant.auth })).json();
    expect(open.status).toBe("open");

    await page.getByLabel("Private key of the account's active permission").fill(subject.wallet.toString());
    await page.getByRole("button", { name: "Connect wallet and sign" }).click();
    await expect(page.getByRole("heading", { name: "Your account is linked" })).toBeFocused();
    await expect(page.getByText("You can close this page.")).toBeVisible();
    await expectNoSideScroll(page);
    await expectAccessible(page);
    await shoot(page, "bind-page-bound");

    // The link opened again says it is done, and never offers to sign twice.
    await page.reload();
    await expect(page.getByRole("heading", { name: "Your account is linked" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Connect wallet and sign" })).toHaveCount(0);
  });

  test("without a test key, the web renderer lists the wallets; closing it and cancelling signs nothing and says so", async ({
    page,
    request,
  }) => {
    const subject = await readyToBind(request, tenant);
    const session = await bindSession(request, tenant, subject);
    // WharfKit's renderer draws in a closed shadow root, which no locator enters; for this test
    // only, shadow roots are opened so the wallet list can be read (the renderer is unchanged).
    await page.addInitScript(() => {
      const attach = Element.prototype.attachShadow;
      Element.prototype.attachShadow = function (init) {
        return attach.call(this, { ...init, mode: "open" });
      };
    });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(session.url);
    await page.getByRole("button", { name: "Connect wallet and sign" }).click();
    await expect(page.getByText("Anchor", { exact: true })).toBeVisible();
    await expect(page.getByText("Wombat", { exact: true })).toBeVisible();
    await shoot(page, "bind-page-wallets", { fullPage: false });
    // Closing WharfKit's dialog leaves its login unanswered: the page's Cancel steps back.
    await page.getByRole("button", { name: "close", exact: true }).click();
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(page.locator("form").getByRole("alert")).toContainText("Nothing was sent");
    await expect(page.getByRole("button", { name: "Connect wallet and sign" })).toBeEnabled();
    const open = await (await request.get(`/v1/bind/sessions/${session.sessionId}`, { headers: tenant.auth })).json();
    expect(open.status).toBe("open");
  });

  test("a cut-short link says so", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/bind#not-a-real-token-at-all-000000");
    await expect(page.getByRole("heading", { name: "This link does not work" })).toBeVisible();
    await page.goto("/bind");
    await page.reload();
    await expect(page.getByRole("heading", { name: "This link does not work" })).toBeVisible();
  });

  test("the page's policy admits the wallet services and sends no referrer", async ({ request }) => {
    const res = await request.get("/bind");
    expect(res.headers()["referrer-policy"]).toBe("no-referrer");
    const csp = res.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("connect-src 'self' https://cb.anchor.link wss://cb.anchor.link");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers()["cache-control"]).toContain("no-store");
    const html = await res.text();
    // Bundled: no script is loaded from another origin.
    expect(html).not.toMatch(/<script[^>]+src="https?:\/\//);
  });
});
