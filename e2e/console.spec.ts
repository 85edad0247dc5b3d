import { expect, test } from "@playwright/test";
import { callProcedure, createOrg, memberPage, shoot, signIn, startSignIn, uniq } from "./console-helpers";
import { holdScripts } from "./hold-scripts";

// The admin console in Chromium against the service as `npm run serve` runs it. Emailed sign-in
// codes are read from the sandbox's dev outbox over the operator socket.

test("bootstrap owner adds members; a member signs in with the emailed code", async ({ page, browser }) => {
  const founder = uniq("founder");
  const coEmail = uniq("co");
  const admin = uniq("admin");
  const org = await createOrg();
  await page.goto("/console");
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await shoot(page, "sign-in");

  // A wrong password says nothing about which part was wrong.
  await startSignIn(page, founder);
  await page.getByRole("button", { name: "Sign in with the organization's console password" }).click();
  await page.getByLabel("Organization ID").fill(org.organizationId);
  await page.getByLabel("Console password").fill("not-the-password");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Sign-in failed" })).toHaveText(
    "Sign-in failed. Check the organization ID, email, password and code.",
  );

  await signIn(page, org, founder);
  await expect(page.getByText(`Signed in as ${founder} (owner).`)).toBeVisible();
  await expect(page.getByText(`${founder} signed in to the console`).first()).toBeVisible();
  await expect(page.getByText("Not accepted")).toBeVisible();
  await shoot(page, "dashboard");

  await page.getByRole("link", { name: "Members" }).first().click();
  await expect(page.getByText("No members yet: anyone with the console password")).toBeVisible();
  for (const [email, role] of [
    [coEmail, "compliance officer"],
    [admin, "admin"],
  ] as const) {
    await page.getByRole("button", { name: "Add member" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a member" });
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Role").selectOption({ label: role });
    await dialog.getByRole("button", { name: "Add member" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("cell", { name: email })).toBeVisible();
  }
  // The bootstrap owner became a member too, so adding colleagues did not lock them out.
  await expect(page.getByRole("cell", { name: founder })).toBeVisible();
  await expect(page.getByLabel(`Role of ${coEmail}`)).toHaveValue("compliance_officer");
  await shoot(page, "members");

  const co = await memberPage(browser, org, coEmail);
  await expect(co.getByText(`Signed in as ${coEmail} (compliance officer).`)).toBeVisible();
  await expect(co.getByRole("link", { name: "Audit log" }).first()).toBeVisible();
  await expect(co.getByRole("link", { name: "Members" })).toHaveCount(0);
  // The session cookie is HTTP-only and SameSite; signing out ends it.
  const session = (await co.context().cookies()).find((c) => c.name.endsWith("next-auth.session-token"));
  expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  await co.getByRole("button", { name: "Account menu" }).click();
  await co.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(co).toHaveURL(/\/console\/sign-in$/);
  await co.goto("/console/audit");
  await expect(co).toHaveURL(/\/console\/sign-in$/);
  expect((await callProcedure(co, "tenant.get", "query")).status()).toBe(401);
  await co.context().close();
});

test("a viewer cannot reach admin pages or call admin procedures", async ({ page, browser }) => {
  const owner = uniq("owner");
  const viewerEmail = uniq("viewer");
  const me2 = uniq("me2");
  const org = await createOrg();
  await signIn(page, org, owner);
  expect((await callProcedure(page, "members.add", "mutation", { email: viewerEmail, role: "viewer" })).status()).toBe(200);

  const viewer = await memberPage(browser, org, viewerEmail);
  for (const name of ["Members", "API keys", "Settings", "Audit log"]) await expect(viewer.getByRole("link", { name })).toHaveCount(0);
  for (const path of ["/console/members", "/console/api-keys", "/console/settings", "/console/audit"]) {
    await viewer.goto(path);
    await expect(viewer.getByRole("heading", { name: "Not available to your role" })).toBeVisible();
  }
  await shoot(viewer, "viewer-refused");
  expect((await callProcedure(viewer, "members.list", "query")).status()).toBe(403);
  expect((await callProcedure(viewer, "apiKeys.mint", "mutation", { name: "sneaky", scopes: ["admin"] })).status()).toBe(403);
  expect((await callProcedure(viewer, "members.add", "mutation", { email: me2, role: "owner" })).status()).toBe(403);
  expect((await callProcedure(viewer, "accounts.list", "query", { limit: 5 })).status()).toBe(200);
  await viewer.context().close();

  // No session at all: 401 from the procedures, sign-in from the pages.
  const anon = await browser.newContext();
  const anonPage = await anon.newPage();
  expect((await callProcedure(anonPage, "tenant.get", "query")).status()).toBe(401);
  await anon.close();
});

test("mint a key on the page, use it against /v1, revoke it", async ({ page, request }) => {
  const owner = uniq("owner");
  const org = await createOrg();
  await signIn(page, org, owner);
  await page.getByRole("link", { name: "API keys" }).first().click();
  await page.getByRole("button", { name: "Mint key" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Name").fill("Wallet backend");
  await dialog.getByLabel("accounts_write").check();
  await dialog.getByRole("button", { name: "Mint key" }).click();
  await expect(dialog.getByText("Shown once.")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Copy key" })).toBeVisible();
  const apiKey = (await dialog.getByTestId("minted-key").textContent())!.trim();
  expect(apiKey).toMatch(/^bi_test_/);
  await shoot(page, "api-key-minted", { fullPage: false });
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByText(apiKey)).toHaveCount(0);
  await shoot(page, "api-keys");

  const auth = { authorization: `Bearer ${apiKey}` };
  const tenant = await request.get("/v1/tenant", { headers: auth });
  expect(tenant.status()).toBe(200);
  expect((await tenant.json()).organizationId).toBe(org.organizationId);
  expect((await request.get("/v1/admin/members", { headers: auth })).status()).toBe(403);

  const row = page.getByRole("row", { name: /Wallet backend/ });
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByText("revoked")).toBeVisible();
  expect((await request.get("/v1/tenant", { headers: auth })).status()).toBe(401);
});

test("verify the audit chain from the page and download a signed export", async ({ page }) => {
  const owner = uniq("owner");
  const org = await createOrg();
  await signIn(page, org, owner);
  await page.getByRole("link", { name: "Audit log" }).first().click();
  await expect(page.getByRole("cell", { name: "organization.created" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "console.signed_in" })).toBeVisible();
  await page.getByRole("button", { name: "Verify the chain" }).click();
  await expect(page.getByTestId("verify-result")).toContainText("Chain intact");

  await page.getByRole("button", { name: "Start export" }).click();
  const download = page.getByRole("button", { name: "Download" });
  await expect(download).toBeVisible({ timeout: 20_000 });
  const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
  const artifact = JSON.parse(await (await import("node:fs/promises")).readFile((await file.path())!, "utf8"));
  expect(artifact).toMatchObject({ format: "bi-audit-export/1", organizationId: org.organizationId, proof: { alg: "Ed25519" } });
  expect(artifact.entries.map((e: { action: string }) => e.action)).toContain("console.signed_in");
  await shoot(page, "audit");
});

test("settings: policy, allowlist showing the caller's address, DPA; accounts page", async ({ page }) => {
  const owner = uniq("owner");
  const org = await createOrg();
  await signIn(page, org, owner);
  await page.getByRole("link", { name: "Settings" }).first().click();
  await expect(page.getByTestId("client-ip")).toHaveText("127.0.0.1");
  await page.getByLabel("Four-eyes: a second member approves every AML clear").check();
  await expect(page.getByText("Policy saved").first()).toBeVisible();
  await page.getByLabel("Allowed ranges").fill("203.0.113.0/24");
  await expect(page.getByRole("alert").filter({ hasText: "Your address 127.0.0.1 is not on this list" })).toBeVisible();
  await page.getByLabel("Allowed ranges").fill("127.0.0.0/8");
  await page.getByRole("button", { name: "Save allowlist" }).click();
  await expect(page.getByText("Allowlist saved").first()).toBeVisible();
  await page.getByRole("button", { name: "Accept the DPA" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Accept" }).click();
  await expect(page.getByText(/^Accepted on/)).toBeVisible();
  await shoot(page, "settings");
  await page.getByRole("link", { name: "Accounts" }).first().click();
  await expect(page.getByText("No accounts yet.")).toBeVisible();
  await shoot(page, "accounts");
});

test("a deactivated member is signed out at their next request", async ({ page, browser }) => {
  const owner = uniq("owner");
  const opEmail = uniq("op");
  const org = await createOrg();
  await signIn(page, org, owner);
  expect((await callProcedure(page, "members.add", "mutation", { email: opEmail, role: "operator" })).status()).toBe(200);
  const op = await memberPage(browser, org, opEmail);

  await page.getByRole("link", { name: "Members" }).first().click();
  await page
    .getByRole("row", { name: new RegExp(opEmail.replace(/[.]/g, "\\.")) })
    .getByRole("button", { name: "Deactivate" })
    .click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Deactivate" }).click();
  await expect(page.getByRole("row", { name: new RegExp(opEmail.replace(/[.]/g, "\\.")) }).getByText("inactive")).toBeVisible();

  expect((await callProcedure(op, "tenant.get", "query")).status()).toBe(401);
  // The next navigation, even one served from the client's cache, checks the session and ends it.
  await op.getByRole("link", { name: "Accounts" }).first().click();
  await expect(op).toHaveURL(/\/console\/sign-in\?ended=1/);
  await expect(op.getByText("Your session has ended. Sign in again.")).toBeVisible();
  await expect(op.getByRole("heading", { name: "Sign in to the console" })).toBeVisible();
  await op.context().close();
});

test("security headers on every page; the home page, /docs and the console run under the strict CSP", async ({ page, request }) => {
  for (const path of ["/", "/docs", "/console/sign-in"]) {
    const res = await request.get(path);
    expect(res.status()).toBe(200);
    const h = res.headers();
    expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"]).toContain("object-src 'none'");
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    // HSTS only in production, where the service is behind TLS.
    expect(h["strict-transport-security"]).toBeUndefined();
  }
  const violations: string[] = [];
  page.on("console", (m) => m.type() === "error" && /Content Security Policy|Refused to/.test(m.text()) && violations.push(m.text()));
  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: "Bind Identity API" })).toBeVisible();
  await page.goto("/");
  await page.getByRole("link", { name: "API reference", exact: true }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await page.goto("/console/sign-in");
  await page.getByLabel("Work email").fill("x");
  await expect(page.getByLabel("Work email")).toHaveValue("x");
  expect(violations).toEqual([]);
});

test("the sign-in form waits for its script: disabled until then, so what is typed is never lost", async ({ page }) => {
  // Hold the page's scripts, so the server's HTML is on screen without React: the interleaving a
  // slow connection makes, and a test that types right after loading the page can meet.
  const release = await holdScripts(page);
  await page.goto("/console/sign-in?organization=held-org", { waitUntil: "commit" });
  await expect(page.getByLabel("Work email")).toBeDisabled();
  await expect(page.getByRole("button", { name: "Continue" })).toBeDisabled();
  release();
  // fill and click wait for the fields to be enabled, that is for the handlers to be attached.
  await page.getByLabel("Work email").fill(uniq("held"));
  await page.getByRole("button", { name: "Continue" }).click();
  // With ?organization= the next step is the organization's console password, its ID filled in.
  await expect(page.getByLabel("Organization ID")).toHaveValue("held-org");
});

test("the console's buttons wait for the script: disabled until then, so a click is never lost", async ({ page }) => {
  const owner = uniq("held-owner");
  await signIn(page, await createOrg(), owner);
  // The same interleaving as the sign-in form's: the server's HTML on screen, React not yet running.
  const release = await holdScripts(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/console/api-keys", { waitUntil: "commit" });
  const account = page.getByRole("button", { name: `${owner}, account menu` });
  const nav = page.getByRole("button", { name: "Menu", exact: true });
  const mint = page.getByRole("button", { name: "Mint key" });
  await expect(account).toBeDisabled();
  await expect(nav).toBeDisabled();
  await expect(mint).toBeDisabled();
  release();
  await mint.click();
  await expect(page.getByRole("dialog", { name: "Mint an API key" })).toBeVisible();
  await page.keyboard.press("Escape");
  // click waits for the buttons to be enabled, that is for Radix's handlers to be attached.
  await nav.click();
  await expect(page.getByRole("dialog", { name: "Bind Identity console" })).toBeVisible();
  await page.keyboard.press("Escape");
  await account.click();
  await expect(page.getByRole("menuitem", { name: "Sign out" })).toBeVisible();
});
