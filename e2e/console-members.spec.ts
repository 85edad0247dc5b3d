import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import {
  awayFromStepEnd,
  createOrg,
  invitationToken,
  type Org,
  OWN_PASSWORD,
  shoot,
  signIn,
  signInWithPassword,
  startSignIn,
  totpCode,
  uniq,
} from "./console-helpers";

// Members with their own credentials: the owner invites two compliance officers, each sets up a
// passkey in their own browser (Chromium's virtual authenticator), signs in with it by email alone,
// and they clear an AML case with four eyes. Passkeys need a domain name, so the members' pages
// are on localhost (the service's relying party when it is served on 127.0.0.1).

const local = (path: string) => {
  const url = new URL(path, test.info().project.use.baseURL ?? "http://127.0.0.1:3107");
  url.hostname = "localhost";
  return url.toString();
};

/** A browser context with its own platform authenticator that holds discoverable credentials and verifies the user. */
async function withPasskeyDevice(browser: Browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
  return { page, credentials };
}

async function pepSubject(request: APIRequestContext, org: Org) {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  expect(started.status()).toBe(200);
  const { personDid } = await started.json();
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "pep" } })).status()).toBe(200);
  return personDid as string;
}

/** Accepts the invitation emailed to `email` with a passkey; `screenshot` names the pictures of the page. */
async function acceptWithPasskey(page: Page, email: string, screenshot?: string) {
  const token = await invitationToken(email);
  await page.goto(local(`/console/invite/${token}`));
  await expect(page.getByText(email, { exact: true })).toBeVisible();
  if (screenshot) await shoot(page, screenshot);
  // A double click makes one passkey and one acceptance.
  await page.getByRole("button", { name: "Set up a passkey" }).dblclick();
  await expect(page.getByText("Your sign-in is set up.")).toBeVisible();
  await page.getByRole("link", { name: "Go to sign-in" }).click();
  await expect(page.getByText("Your sign-in is set up. Sign in with it now.")).toBeVisible();
  // The spent link no longer opens.
  await page.goto(local(`/console/invite/${token}`));
  await expect(page.getByRole("alert").filter({ hasText: "This invitation link is not valid" })).toBeVisible();
}

async function signInWithPasskey(page: Page, email: string, screenshot?: string) {
  await startSignIn(page, email, local("/console/sign-in"));
  if (screenshot) await shoot(page, screenshot);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await expect(page).toHaveURL(/localhost/);
}

test("invited members set up passkeys, sign in with the email alone, run four-eyes, and a revoked session is refused", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  expect(
    (await request.patch("/v1/admin/tenant/policy", { headers: auth, data: { requireSecondApprovalToClearAml: true } })).status(),
  ).toBe(200);
  const personDid = await pepSubject(request, org);
  const [owner, first, second] = [uniq("owner"), uniq("first-co"), uniq("second-co")];

  // The first sign-in of a new organization is the shared password; the console asks for an own sign-in.
  await signIn(page, org, owner);
  await expect(page.getByText("You are signed in with the organization's shared password.")).toBeVisible();
  await page.getByRole("link", { name: "Members" }).first().click();
  await expect(page.getByRole("heading", { name: "Members", level: 1 })).toBeVisible();
  for (const email of [first, second]) {
    const dialog = page.getByRole("dialog", { name: "Add a member" });
    // A click that lands while the page is still wiring its handlers opens nothing (seen once in CI):
    // click again until the dialog is open. Opening it is a view, so a second click changes nothing.
    await expect(async () => {
      if (!(await dialog.isVisible())) await page.getByRole("button", { name: "Add member" }).click();
      await expect(dialog).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Role").selectOption({ label: "compliance officer" });
    await dialog.getByRole("button", { name: "Add member" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("row", { name: new RegExp(email.replace(/[.]/g, "\\.")) }).getByText("Invitation sent")).toBeVisible();
  }
  await shoot(page, "members-invited");

  // Each officer: their own device, their own passkey, sign-in by email alone (no organization ID).
  const a = await withPasskeyDevice(browser);
  await acceptWithPasskey(a.page, first, "invite");
  expect(await a.credentials()).toHaveLength(1);
  expect((await a.credentials())[0]).toMatchObject({ isResidentCredential: true, rpId: "localhost", userName: first });
  await signInWithPasskey(a.page, first, "sign-in-method");
  const b = await withPasskeyDevice(browser);
  await acceptWithPasskey(b.page, second);
  await signInWithPasskey(b.page, second);
  await expect(b.page.getByText("You are signed in with the organization's shared password.")).toHaveCount(0);

  // The shared password no longer lets an officer in.
  const shared = await startSharedPassword(browser, org, first);
  await expect(shared.getByRole("alert").filter({ hasText: "Sign-in failed" })).toHaveText(
    "Sign-in failed. Check the organization ID, email, password and code.",
  );
  await shared.context().close();

  // Four eyes: the first proposes, the second approves.
  const subject = new RegExp(personDid.replace(/[.:]/g, "\\$&"));
  await a.page.getByRole("link", { name: "AML queue" }).first().click();
  await a.page.getByRole("row", { name: subject }).getByRole("button", { name: "Review" }).click();
  await a.page.getByRole("dialog").getByLabel("Reason").fill("Namesake: date of birth and nationality differ from the listed PEP.");
  await a.page.getByRole("dialog").getByRole("button", { name: "Propose clear" }).click();
  await expect(a.page.getByRole("dialog").getByTestId("case-status")).toHaveText("pending approval");
  await b.page.getByRole("link", { name: "AML queue" }).first().click();
  await b.page.getByRole("row", { name: subject }).getByRole("button", { name: "Review" }).click();
  await b.page.getByRole("dialog").getByLabel(/Notes/).fill("Agree: different person.");
  await b.page.getByRole("dialog").getByRole("button", { name: "Approve clear" }).click();
  await expect(b.page.getByText("No open AML cases.")).toBeVisible();
  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json();
  expect([status.pepFlag, status.sanctionsFlag]).toEqual([false, false]);

  // The second officer's sessions: this one is marked.
  await b.page.goto(local("/console/security"));
  await expect(b.page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  const mine = b.page.getByRole("list", { name: "Your sessions" }).getByRole("listitem");
  await expect(mine).toHaveCount(1);
  await expect(mine.first().getByText("This session")).toBeVisible();
  await expect(mine.first()).toContainText("Passkey");
  await shoot(b.page, "security");

  // The owner ends every session of the first officer: their next request is refused.
  expect((await a.page.request.get(local("/api/trpc/tenant.get"))).status()).toBe(200);
  await page.reload();
  const row = page.getByRole("row", { name: new RegExp(first.replace(/[.]/g, "\\.")) });
  await expect(row.getByText("Passkey")).toBeVisible();
  await row.getByRole("button", { name: "End sessions" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "End sessions" }).click();
  await expect(page.getByText(`1 session of ${first} was ended`).first()).toBeVisible();
  expect((await a.page.request.get(local("/api/trpc/tenant.get"))).status()).toBe(401);
  await a.page.goto(local("/console/accounts"));
  await expect(a.page).toHaveURL(/\/console\/sign-in/);
  // And they sign in again with the same passkey.
  await signInWithPasskey(a.page, first);

  const audit = await (await request.get("/v1/admin/audit?limit=100", { headers: auth })).json();
  const actions = audit.entries.map((e: { action: string; subject: string }) => `${e.action} ${e.subject}`);
  for (const line of [
    `member.invited ${first}`,
    `member.invitation_accepted ${first}`,
    `member.invitation_accepted ${second}`,
    `member.sessions_ended ${first}`,
  ])
    expect(actions).toContain(line);
  await a.page.context().close();
  await b.page.context().close();
});

async function startSharedPassword(browser: Browser, org: Org, email: string) {
  const context = await browser.newContext();
  const p = await context.newPage();
  await startSignIn(p, email);
  await p.getByRole("button", { name: "Sign in with the organization's console password" }).click();
  await p.getByLabel("Organization ID").fill(org.organizationId);
  await p.getByLabel("Console password").fill(org.consolePassword);
  await p.getByRole("button", { name: "Continue" }).click();
  return p;
}

test("the sign-in form checks before it sends, and answers an unknown address like any failure", async ({ page }) => {
  await page.goto("/console/sign-in");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByText("Enter your work email address")).toBeVisible();
  await startSignIn(page, uniq("nobody"));
  await page.getByRole("button", { name: "Use password and authenticator code" }).click();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Enter your password.")).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill("some password of theirs");
  await page.getByLabel("Authenticator code").fill("123456");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Sign-in failed" })).toHaveText(
    "Sign-in failed: check your email, password and authenticator code, or try your passkey again.",
  );
  await shoot(page, "sign-in-failed");
});

test("the first owner sets up a password and authenticator app directly, then signs in with them", async ({ page }) => {
  const org = await createOrg();
  const owner = uniq("founder");
  await signIn(page, org, owner);
  await page.getByRole("link", { name: "Set up my sign-in" }).click();
  await expect(page.getByRole("heading", { name: "Security" })).toBeVisible();
  await expect(page.getByText("the organization's shared console password")).toBeVisible();
  await page.getByRole("button", { name: "Set up my own sign-in" }).dblclick();
  await expect(page.getByRole("heading", { name: "Set up your console sign-in" })).toBeVisible();
  await expect(page.getByText(owner, { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Use a password and authenticator app instead" }).click();
  const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s/g, "");
  await expect(page.getByRole("img", { name: "QR code of the authenticator setup link" })).toBeVisible();
  // Checked before anything is sent.
  await page.getByLabel("2. Choose a password").fill("too short");
  await page.getByRole("button", { name: "Save and finish" }).click();
  await expect(page.getByText("Use at least 12 characters.")).toBeVisible();
  await page.getByLabel("2. Choose a password").fill(OWN_PASSWORD);
  await page.getByLabel("Repeat the password").fill(OWN_PASSWORD);
  await awayFromStepEnd();
  await page.getByLabel("3. The code your app shows now").fill(totpCode(secret, 1));
  await shoot(page, "invite-password");
  await page.getByRole("button", { name: "Save and finish" }).dblclick();
  await expect(page.getByText("Your sign-in is set up.")).toBeVisible();

  const fresh = await page.context().browser()!.newContext();
  const p = await fresh.newPage();
  await signInWithPassword(p, owner, secret);
  await expect(p.getByText("You are signed in with the organization's shared password.")).toHaveCount(0);
  await fresh.close();
});

test("after set-up, a member adds a passkey on the Security page and removes the password, never the last way in", async ({ browser }) => {
  test.setTimeout(90_000);
  const org = await createOrg();
  const owner = uniq("keeper");
  const { page, credentials } = await withPasskeyDevice(browser);

  // The new organization's first sign-in, then a password and authenticator app of the owner's own.
  await startSignIn(page, owner, local("/console/sign-in"));
  await page.getByRole("button", { name: "Sign in with the organization's console password" }).click();
  await page.getByLabel("Organization ID").fill(org.organizationId);
  await page.getByLabel("Console password").fill(org.consolePassword);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await page.goto(local("/console/security"));
  await page.getByRole("button", { name: "Set up my own sign-in" }).click();
  await page.getByRole("button", { name: "Use a password and authenticator app instead" }).click();
  const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s/g, "");
  await page.getByLabel("2. Choose a password").fill(OWN_PASSWORD);
  await page.getByLabel("Repeat the password").fill(OWN_PASSWORD);
  await awayFromStepEnd();
  await page.getByLabel("3. The code your app shows now").fill(totpCode(secret, 1));
  await page.getByRole("button", { name: "Save and finish" }).click();
  await expect(page.getByText("Your sign-in is set up.")).toBeVisible();
  await startSignIn(page, owner, local("/console/sign-in"));
  await page.getByRole("button", { name: "Use password and authenticator code" }).click();
  await page.getByLabel("Password", { exact: true }).fill(OWN_PASSWORD);
  await page.getByLabel("Authenticator code").fill(totpCode(secret));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();

  // The only way in cannot be removed; another can be added.
  await page.goto(local("/console/security"));
  const ways = page.getByRole("list", { name: "Your ways to sign in" });
  await expect(ways.getByRole("listitem")).toHaveCount(1);
  await expect(ways.getByRole("button", { name: "Remove" })).toBeDisabled();
  await page.getByRole("button", { name: "Add a passkey or an authenticator app" }).click();
  await expect(page.getByRole("heading", { name: "Set up your console sign-in" })).toBeVisible();
  await page.getByRole("button", { name: "Set up a passkey" }).click();
  await expect(page.getByText("Your sign-in is set up.")).toBeVisible();
  expect(await credentials()).toHaveLength(1);

  await page.goto(local("/console/security"));
  await expect(ways.getByRole("listitem")).toHaveCount(2);
  await expect(ways.getByText("Passkey")).toBeVisible();
  await shoot(page, "security-credentials");
  const password = ways.getByRole("listitem").filter({ hasText: "Password and authenticator app" });
  await password.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Remove password" }).dblclick();
  await expect(ways.getByRole("listitem")).toHaveCount(1);
  await expect(ways.getByText("Password and authenticator app")).toHaveCount(0);
  await expect(ways.getByRole("button", { name: "Remove" })).toBeDisabled();
});
