import { type APIRequestContext, expect, type Page, type Request, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { callProcedure, createOrg, expectClosed, memberPage, type Org, signIn, uniq } from "./console-helpers";

// The rest of the console's mutations, each confirmed with a double click (e2e/double-submit.spec.ts
// has the forms): every one reaches the service as one submission, with one Idempotency-Key however
// many requests carry it, and changes the data once, as the reads and the audit log show.

type Entry = { action: string; subject: string | null; data: Record<string, unknown> };

async function read<T>(page: Page, path: string, input?: unknown): Promise<T> {
  const res = await callProcedure(page, path, "query", input);
  expect(res.status(), path).toBe(200);
  return (await res.json()).result.data.json as T;
}

const audit = async (page: Page) => (await read<{ entries: Entry[] }>(page, "audit.list", { limit: "200" })).entries;
const count = (entries: Entry[], action: string, subject?: string) =>
  entries.filter((e) => e.action === action && (subject === undefined || e.subject === subject)).length;

/**
 * Watches the page's calls of one procedure. `once()` (after the page showed the answer) asserts one
 * submission: at least one request, every request with an Idempotency-Key, and all with the same key.
 */
function watch(page: Page, path: string) {
  const keys: (string | undefined)[] = [];
  const on = (r: Request) => {
    const url = new URL(r.url());
    if (r.method() === "POST" && url.pathname.startsWith("/api/trpc/") && url.pathname.slice("/api/trpc/".length).split(",").includes(path))
      keys.push(r.headers()["idempotency-key"]);
  };
  page.on("request", on);
  return {
    once() {
      page.off("request", on);
      expect(keys.length, `${path} was called`).toBeGreaterThan(0);
      expect(
        keys.every((k) => !!k),
        `every ${path} request carries an Idempotency-Key`,
      ).toBe(true);
      expect(new Set(keys).size, `${path} was submitted once`).toBe(1);
    },
  };
}

/** Confirms the open alert dialog with a double click; the dialog closes and nothing else opens. */
async function confirmTwice(page: Page, label: string) {
  await page.getByRole("alertdialog").getByRole("button", { name: label, exact: true }).dblclick();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
}

const rx = (s: string) => new RegExp(s.replace(/[.:+]/g, "\\$&"));

async function pepSubject(request: APIRequestContext, org: Org) {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  expect(started.status()).toBe(200);
  const { personDid } = await started.json();
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "pep" } })).status()).toBe(200);
  return personDid as string;
}

test("AML: a double click proposes one clear, another member's double click approves it once, a double click confirms one match", async ({
  page,
  browser,
  request,
}) => {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  expect(
    (await request.patch("/v1/admin/tenant/policy", { headers: auth, data: { requireSecondApprovalToClearAml: true } })).status(),
  ).toBe(200);
  const [cleared, confirmed] = [await pepSubject(request, org), await pepSubject(request, org)];
  const officer = uniq("officer");
  await signIn(page, org, uniq("owner"));
  expect((await callProcedure(page, "members.add", "mutation", { email: officer, role: "compliance_officer" })).status()).toBe(200);
  type Case = { caseId: string; subjectDid: string };
  const cases = (await read<{ cases: Case[] }>(page, "aml.queue")).cases;
  const caseOf = (did: string) => cases.find((c) => c.subjectDid === did)!.caseId;
  const status = async (did: string) => (await read<{ case: { status: string } }>(page, "aml.detail", { caseId: caseOf(did) })).case.status;

  // The owner proposes (proposing needs no own sign-in).
  await page.goto("/console/aml");
  await page
    .getByRole("row", { name: rx(cleared) })
    .getByRole("button", { name: "Review" })
    .click();
  let dialog = page.getByRole("dialog");
  await dialog.getByLabel("Reason").fill("Namesake: date of birth and nationality differ from the listed PEP.");
  let calls = watch(page, "aml.proposeClear");
  await dialog.getByRole("button", { name: "Propose clear" }).dblclick();
  await expect(dialog.getByTestId("case-status")).toHaveText("pending approval");
  calls.once();
  expect(await status(cleared)).toBe("pending_approval");

  // The officer, signed in with their own password and code, approves.
  const b = await memberPage(browser, org, officer);
  await b.goto("/console/aml");
  await b
    .getByRole("row", { name: rx(cleared) })
    .getByRole("button", { name: "Review" })
    .click();
  await b.getByRole("dialog").getByLabel(/Notes/).fill("Agree: different person.");
  calls = watch(b, "aml.approveClear");
  await b.getByRole("dialog").getByRole("button", { name: "Approve clear" }).dblclick();
  await expectClosed(b.getByRole("dialog"));
  await expect(b.getByRole("row", { name: rx(cleared) })).toHaveCount(0);
  calls.once();
  expect(await status(cleared)).toBe("cleared");
  await b.context().close();

  // The other case is a true match: confirmed once, its flags stay up.
  await page.reload();
  await page
    .getByRole("row", { name: rx(confirmed) })
    .getByRole("button", { name: "Review" })
    .click();
  dialog = page.getByRole("dialog");
  await dialog.getByLabel("Reason").fill("Same person: passport number matches the listing.");
  calls = watch(page, "aml.confirm");
  await dialog.getByRole("button", { name: "Confirm match" }).dblclick();
  await expectClosed(dialog);
  calls.once();
  expect(await status(confirmed)).toBe("confirmed");
  await expect(page.getByText("No open AML cases.")).toBeVisible();

  const entries = await audit(page);
  expect(count(entries, "aml.clear_proposed")).toBe(1);
  expect(count(entries, "aml.cleared")).toBe(1);
  expect(count(entries, "aml.confirmed")).toBe(1);
  const flags = async (did: string) => {
    const s = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(did)}`, { headers: auth })).json();
    return [s.pepFlag, s.sanctionsFlag];
  };
  expect(await flags(cleared)).toEqual([false, false]);
  expect((await flags(confirmed))[0]).toBe(true);
});

test("accounts and webhooks: double clicks suspend an account once, replay a dead delivery once, deactivate a webhook once", async ({
  page,
  request,
}) => {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  // Nothing listens on port 9: the e2e service gives up after 2 quick attempts, so deliveries go dead.
  const hook = await request.post("/v1/admin/webhooks", { headers: auth, data: { url: "http://127.0.0.1:9/twice", events: ["*"] } });
  expect(hook.status()).toBe(201);
  const created = await request.post("/v1/accounts/free", {
    headers: auth,
    data: { ownerPublicKey: PrivateKey.generate("K1").toPublic().toString() },
  });
  expect(created.status()).toBe(201);
  await signIn(page, org, uniq("owner"));
  type Account = { accountDid: string; name: string; lifecycle: string };
  const [account] = (await read<{ accounts: Account[] }>(page, "accounts.list", { limit: 10 })).accounts;
  expect(account).toBeDefined();

  await page.goto("/console/accounts");
  await page
    .getByRole("row", { name: rx(account!.name) })
    .getByRole("button", { name: "Suspend" })
    .click();
  let calls = watch(page, "accounts.suspend");
  await confirmTwice(page, "Suspend");
  await expect(page.getByRole("row", { name: rx(account!.name) }).getByText("suspended")).toBeVisible();
  calls.once();
  expect((await read<Account>(page, "accounts.get", { did: account!.accountDid })).lifecycle).toBe("suspended");

  await expect
    .poll(
      async () => (await (await request.get("/v1/admin/webhooks/deliveries?status=dead", { headers: auth })).json()).deliveries.length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  await page.goto("/console/webhooks");
  await expect(page.getByRole("cell", { name: "http://127.0.0.1:9/twice" })).toBeVisible();
  await page.getByLabel("Status").selectOption("dead");
  const dead = page.getByRole("table", { name: "Deliveries" }).getByRole("row").filter({ hasText: "dead" }).first();
  calls = watch(page, "webhooks.replay");
  await dead.getByRole("button", { name: "Replay" }).dblclick();
  await expect(page.getByText("Delivery queued again").first()).toBeVisible();
  calls.once();

  await page
    .getByRole("row", { name: /127\.0\.0\.1:9\/twice/ })
    .getByRole("button", { name: "Deactivate" })
    .click();
  calls = watch(page, "webhooks.deactivate");
  await confirmTwice(page, "Deactivate");
  await expect(page.getByRole("row", { name: /127\.0\.0\.1:9\/twice/ }).getByText("deactivated")).toBeVisible();
  calls.once();
  const hooks = await read<{ webhooks: { url: string; active: boolean }[] }>(page, "webhooks.list");
  expect(hooks.webhooks.filter((h) => h.url === "http://127.0.0.1:9/twice").map((h) => h.active)).toEqual([false]);

  const entries = await audit(page);
  expect(count(entries, "account.suspended", account!.accountDid)).toBe(1);
  expect(count(entries, "webhook.delivery_replayed")).toBe(1);
  expect(count(entries, "webhook.deactivated")).toBe(1);
});

test("members and sessions: role, invitation, ended sessions, deactivation, reactivation and a revoked session each happen once", async ({
  page,
  browser,
}) => {
  const org = await createOrg(undefined, "institutional");
  const owner = uniq("owner");
  const [viewer, invitee, officer] = [uniq("viewer"), uniq("invitee"), uniq("signed-in")];
  await signIn(page, org, owner);
  for (const [email, role] of [
    [viewer, "viewer"],
    [invitee, "viewer"],
    [officer, "operator"],
  ])
    expect((await callProcedure(page, "members.add", "mutation", { email, role })).status()).toBe(200);
  // A member with an open session, and a second session of the owner's, each in a browser of its own.
  const other = await (await browser.newContext()).newPage();
  await signIn(other, org, officer);
  const second = await (await browser.newContext()).newPage();
  await signIn(second, org, owner);

  await page.goto("/console/members");
  const row = (email: string) => page.getByRole("row", { name: rx(email) });
  type Member = { email: string; role: string; active: boolean };
  const member = async (email: string) => (await read<{ members: Member[] }>(page, "members.list")).members.find((m) => m.email === email);

  // A role is a select: one change, one update.
  let calls = watch(page, "members.update");
  await page.getByLabel(`Role of ${viewer}`).selectOption({ label: "operator" });
  await expect(page.getByText(`${viewer} is now operator`).first()).toBeVisible();
  calls.once();
  expect((await member(viewer))?.role).toBe("operator");

  calls = watch(page, "members.resendInvitation");
  await row(invitee).getByRole("button", { name: "Resend invitation" }).dblclick();
  await expect(page.getByText(`An invitation was sent to ${invitee}`).first()).toBeVisible();
  calls.once();

  await row(officer).getByRole("button", { name: "End sessions" }).click();
  calls = watch(page, "members.endSessions");
  await confirmTwice(page, "End sessions");
  await expect(page.getByText(`1 session of ${officer} was ended`).first()).toBeVisible();
  calls.once();
  expect((await other.request.get("/api/trpc/tenant.get")).status()).toBe(401);
  await other.context().close();

  await row(viewer).getByRole("button", { name: "Deactivate" }).click();
  calls = watch(page, "members.remove");
  await confirmTwice(page, "Deactivate");
  await expect(row(viewer).getByRole("button", { name: "Reactivate" })).toBeVisible();
  calls.once();
  expect((await member(viewer))?.active).toBe(false);
  calls = watch(page, "members.update");
  await row(viewer).getByRole("button", { name: "Reactivate" }).dblclick();
  await expect(row(viewer).getByRole("button", { name: "Deactivate" })).toBeVisible();
  calls.once();
  expect(await member(viewer)).toMatchObject({ role: "operator", active: true });

  // The owner's other browser, ended from the security page.
  await page.goto("/console/security");
  const sessions = page.getByRole("list", { name: "Your sessions" }).getByRole("listitem");
  await expect(sessions).toHaveCount(2);
  await sessions.filter({ hasNotText: "This session" }).getByRole("button", { name: "End session" }).click();
  calls = watch(page, "session.revoke");
  await confirmTwice(page, "End session");
  await expect(sessions).toHaveCount(1);
  calls.once();
  expect((await second.request.get("/api/trpc/tenant.get")).status()).toBe(401);
  await second.context().close();

  // The owner still signs in with the shared password: setting up their own sign-in starts once.
  calls = watch(page, "session.setUpOwnCredentials");
  await page.getByRole("button", { name: "Set up my own sign-in" }).dblclick();
  await expect(page.getByRole("heading", { name: "Set up your console sign-in" })).toBeVisible();
  calls.once();

  const entries = await audit(page);
  expect(count(entries, "member.updated", viewer)).toBe(2);
  // The role change, then the reactivation.
  expect(
    entries
      .filter((e) => e.action === "member.updated" && e.subject === viewer)
      .map((e) => e.data.before)
      .reverse(),
  ).toEqual([
    { role: "viewer", active: true },
    { role: "operator", active: false },
  ]);
  expect(count(entries, "member.deactivated", viewer)).toBe(1);
  // One at its adding, one resent.
  expect(count(entries, "member.invited", invitee)).toBe(2);
  expect(count(entries, "member.sessions_ended", officer)).toBe(1);
  expect(count(entries, "console.session_revoked", owner)).toBe(1);
  expect(entries.filter((e) => e.action === "member.invited" && e.subject === owner && e.data.reason === "self")).toHaveLength(1);
});

test("billing and settings: double clicks start one upgrade, turn signing on and off once each, save a policy and change the password once", async ({
  page,
  request,
}) => {
  const org = await createOrg();
  await signIn(page, org, uniq("owner"));

  await page.goto("/console/billing");
  let calls = watch(page, "billing.upgrade");
  await page.getByRole("button", { name: "Upgrade to Growth" }).dblclick();
  await expect(page.getByTestId("upgrade-payment")).toHaveCount(1);
  calls.once();

  await page.goto("/console/settings");
  type Settings = { signingEnabled: boolean; policy: Record<string, boolean> };
  const settings = () => read<Settings>(page, "tenant.settings");
  await page.getByRole("button", { name: "Turn signing on" }).click();
  calls = watch(page, "tenant.enableSigning");
  await confirmTwice(page, "Turn on");
  await expect(page.getByRole("button", { name: "Copy secret" })).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Turn off" })).toBeVisible();
  calls.once();
  expect((await settings()).signingEnabled).toBe(true);
  await page.getByRole("button", { name: "Turn off" }).click();
  calls = watch(page, "tenant.disableSigning");
  await confirmTwice(page, "Turn off");
  await expect(page.getByRole("button", { name: "Turn signing on" })).toBeVisible();
  // The discarded secret is not left on the page.
  await expect(page.getByRole("button", { name: "Copy secret" })).toHaveCount(0);
  calls.once();
  expect((await settings()).signingEnabled).toBe(false);

  // A checkbox double clicked while its change is on its way: one change is sent, and the box ends
  // showing what was saved.
  const flag = page.getByLabel("Require a verified email before free create");
  await expect(flag).not.toBeChecked();
  calls = watch(page, "tenant.updatePolicy");
  await flag.dblclick();
  await expect(page.getByText("Policy saved").first()).toBeVisible();
  await expect(flag).toBeChecked();
  calls.once();
  expect((await settings()).policy.requireEmailProofBeforeFreeCreate).toBe(true);

  await page.getByLabel("Current password").fill(org.consolePassword);
  await page.getByLabel("New password (12 characters or more)").fill("a new console password of ours");
  calls = watch(page, "tenant.changePassword");
  await page.getByRole("button", { name: "Change password" }).dblclick();
  await expect(page).toHaveURL(/\/console\/sign-in/);
  calls.once();

  // Everyone is signed out now: the audit is read with the organization's key.
  const entries = (await (await request.get("/v1/admin/audit?limit=200", { headers: { authorization: `Bearer ${org.apiKey}` } })).json())
    .entries as Entry[];
  expect(count(entries, "billing.upgrade_started")).toBe(1);
  expect(count(entries, "signing.enabled")).toBe(1);
  expect(count(entries, "signing.disabled")).toBe(1);
  expect(count(entries, "policy.updated")).toBe(1);
  expect(count(entries, "console_password.changed")).toBe(1);
});
