import fs from "node:fs";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import pg from "pg";
import { personShortLabel } from "../src/lib/person-label";
import { callProcedure, createOrg, memberPage, type Org, shoot, signIn, uniq } from "./console-helpers";
import { e2eDatabase } from "./database";

// Erasing a person from their console page: the typed confirmation, a double click that erases
// once, the page that shows only who was erased and when, and an erasure the AML retention period
// holds, which is scheduled and can be withdrawn.

/** An approved person of `org` bound to a new account, as a tenant's backend makes one. */
async function boundPerson(request: APIRequestContext, org: Org) {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  expect(started.status()).toBe(200);
  const { personDid } = (await started.json()) as { personDid: string };
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "approved" } })).status()).toBe(200);
  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json();
  const wallet = PrivateKey.generate("K1");
  const created = await request.post("/v1/accounts/free", {
    headers: auth,
    data: { ownerPublicKey: wallet.toPublic().toString(), kycCreateToken: status.createToken, personDid },
  });
  expect(created.status()).toBe(201);
  const { accountDid, name: accountName } = (await created.json()) as { accountDid: string; name: string };
  const challenge = await (await request.post("/v1/bind/challenge", { headers: auth, data: { accountDid, personDid } })).json();
  const signature = wallet.signMessage(new TextEncoder().encode(challenge.payloadToSign)).toString();
  const bound = await request.post("/v1/bind/confirm", {
    headers: auth,
    data: { accountDid, personDid, nonce: challenge.nonce, signature },
  });
  expect(bound.status()).toBe(200);
  return { personDid, personId: personDid.split(":").pop()!, accountName };
}

/**
 * The audit entries of `action` about the person, counted in the database. The embedded
 * database admits only the service's process; there the same rows are read through /v1.
 */
async function entriesAbout(request: APIRequestContext, org: Org, personDid: string, action = "person.erased"): Promise<number> {
  const db = e2eDatabase();
  if (db) {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_entries WHERE "orgId" = $1::uuid AND action = $3 AND subject = $2`,
        [org.organizationId, personDid, action],
      );
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  }
  const res = await request.get("/v1/admin/audit?limit=200", { headers: { authorization: `Bearer ${org.apiKey}` } });
  expect(res.status()).toBe(200);
  const { entries } = (await res.json()) as { entries: { action: string; subject: string | null }[] };
  return entries.filter((e) => e.action === action && e.subject === personDid).length;
}

async function setRetentionDays(request: APIRequestContext, org: Org, days: number) {
  const res = await request.put("/v1/admin/retention", {
    headers: { authorization: `Bearer ${org.apiKey}` },
    data: { amlRetentionDays: days },
  });
  expect(res.status()).toBe(200);
}

async function openPerson(page: Page, personId: string, label: string) {
  await page.goto(`/console/people/${personId}`);
  await expect(page.getByRole("heading", { level: 1, name: new RegExp(`^${label}`) })).toBeVisible();
}

test("an admin erases a person: typed confirmation, a double click erases once, the page shows only the erased header", async ({
  page,
  browser,
  request,
}) => {
  const org = await createOrg(undefined, "institutional");
  // Nothing is kept past the end of the relationship, so the erasure is carried out at once.
  await setRetentionDays(request, org, 0);
  const { personDid, personId, accountName } = await boundPerson(request, org);
  const label = personShortLabel(personDid);

  const admin = uniq("admin");
  await signIn(page, org, uniq("owner"));
  expect((await callProcedure(page, "members.add", "mutation", { email: admin, role: "admin" })).status()).toBe(200);
  const a = await memberPage(browser, org, admin);

  await openPerson(a, personId, label);
  await expect(a.getByRole("region", { name: "Bindings and accounts" }).getByRole("link", { name: accountName })).toBeVisible();

  // First the access request: a double click downloads one signed document, and one export is audited.
  // The answer is held until both clicks are in, so the second click always meets the first in flight.
  let exports = 0;
  let release!: () => void;
  const clicked = new Promise<void>((r) => (release = r));
  const exportCall = (url: URL) => url.pathname.startsWith("/api/trpc/") && url.pathname.includes("people.exportData");
  await a.route(exportCall, async (route) => {
    exports++;
    await clicked;
    await route.continue();
  });
  const exportRegion = a.getByRole("region", { name: "Access request" });
  const downloaded = a.waitForEvent("download");
  await exportRegion.getByRole("button", { name: "Download the person's data" }).dblclick();
  release();
  const file = await downloaded;
  expect(file.suggestedFilename()).toBe(`person-${personId}-export.json`);
  const doc = JSON.parse(fs.readFileSync((await file.path())!, "utf8"));
  expect(doc).toMatchObject({ format: "bi-person-export/1", organizationId: org.organizationId, personDid });
  expect(doc.proof.signatureMultibase).toMatch(/^z/);
  expect(JSON.stringify(doc.data)).toContain(accountName);
  await expect(a.getByText(/exported/).first()).toBeVisible();
  expect(exports).toBe(1);
  expect(await entriesAbout(request, org, personDid, "person.exported")).toBe(1);
  await a.unroute(exportCall);
  await shoot(a, "person-access-export");

  const section = a.getByRole("region", { name: "Erasure" });
  await section.getByRole("button", { name: "Erase this person" }).click();
  const dialog = a.getByRole("dialog", { name: "Erase this person" });
  await expect(dialog).toContainText("cannot be undone");
  const submit = dialog.getByRole("button", { name: "Erase this person" });
  const field = dialog.getByLabel(/to confirm/);

  // Nothing typed, the wrong characters, or a prefix too short: the button stays disabled.
  await expect(submit).toBeDisabled();
  await field.fill("deadbeef" === personId.slice(0, 8) ? "feedface" : "deadbeef");
  await expect(submit).toBeDisabled();
  await field.fill(personId.slice(0, 7));
  await expect(submit).toBeDisabled();

  // The server checks too: a confirmation that is not the person's is refused, naming the field.
  const refused = await callProcedure(a, "people.erase", "mutation", { id: personId, confirmation: "00000000" });
  expect(refused.status()).toBe(400);
  expect(JSON.stringify(await refused.json())).toContain("body.confirmation");
  expect(await entriesAbout(request, org, personDid)).toBe(0);

  await field.fill(personId.slice(0, 8));
  await expect(submit).toBeEnabled();
  await shoot(a, "person-erase-dialog", { fullPage: false });
  await submit.dblclick();

  // The page refetches: the DID and the Erased badge, nothing else.
  await expect(a.getByText(/^Erased /)).toBeVisible();
  await expect(dialog).toHaveCount(0);
  const main = a.getByRole("main");
  await expect(main.getByRole("heading", { level: 1, name: label, exact: true })).toBeVisible();
  await expect(main.getByText(personDid, { exact: true })).toBeVisible();
  await expect(main.getByRole("region")).toHaveCount(0);
  for (const gone of ["KYC", "Screening results", "AML cases", "Bindings and accounts", "Activity", "Erasure"]) {
    await expect(main.getByRole("heading", { name: gone, exact: true })).toHaveCount(0);
  }
  await expect(main.getByText(accountName)).toHaveCount(0);
  await expect(main.getByRole("button", { name: "Erase this person" })).toHaveCount(0);
  await shoot(a, "person-erased");

  // One erasure, however many clicks: exactly one person.erased entry in the audit chain.
  expect(await entriesAbout(request, org, personDid)).toBe(1);
  const erasure = await callProcedure(a, "people.erasure", "query", { id: personId });
  expect((await erasure.json()).result.data.json).toMatchObject({ status: "completed", personDid });

  // A reload shows the same page, and so does the person's DID in the address.
  await a.goto(`/console/people/${encodeURIComponent(personDid)}`);
  await expect(a.getByText(/^Erased /)).toBeVisible();
  await expect(a.getByRole("main").getByRole("region")).toHaveCount(0);
  await a.context().close();
});

test("held by the AML retention period: the erasure is scheduled with its date, and Withdraw withdraws it", async ({ page, request }) => {
  const org = await createOrg(undefined, "institutional");
  const { personDid, personId } = await boundPerson(request, org);
  const label = personShortLabel(personDid);
  // The default retention: five years after the relationship ended, which the request ends now.
  const year = String(new Date().getFullYear() + 5);

  await signIn(page, org, uniq("owner"));
  await openPerson(page, personId, label);
  const section = page.getByRole("region", { name: "Erasure" });
  await section.getByRole("button", { name: "Erase this person" }).click();
  const dialog = page.getByRole("dialog", { name: "Erase this person" });
  await dialog.getByLabel(/to confirm/).fill(personId.slice(0, 8).toUpperCase());
  await dialog.getByRole("button", { name: "Erase this person" }).click();

  // The service recorded the request and answered 409 erasure_held: the dialog says until when.
  const scheduled = page.getByRole("dialog", { name: "Erasure scheduled" });
  await expect(scheduled.getByRole("status")).toContainText("the erasure is scheduled");
  await expect(scheduled.getByRole("status")).toContainText(year);
  await expect(scheduled.getByRole("button", { name: "Withdraw the erasure" })).toBeVisible();
  await shoot(page, "person-erasure-scheduled", { fullPage: false });
  await scheduled.getByRole("button", { name: "Done" }).click();

  // The page keeps the person and shows the scheduled erasure with its date.
  await expect(section.getByText("erasure scheduled")).toBeVisible();
  await expect(section).toContainText(year);
  await expect(page.getByRole("region", { name: "KYC" })).toBeVisible();
  await shoot(page, "person-erasure-pending");
  expect(await entriesAbout(request, org, personDid)).toBe(0);
  let erasure = await callProcedure(page, "people.erasure", "query", { id: personId });
  expect((await erasure.json()).result.data.json).toMatchObject({ status: "scheduled", heldBy: ["aml_retention"] });

  await section.getByRole("button", { name: "Withdraw the erasure" }).click();
  await expect(section.getByText(/was withdrawn/)).toBeVisible();
  await expect(section.getByRole("button", { name: "Erase this person" })).toBeEnabled();
  erasure = await callProcedure(page, "people.erasure", "query", { id: personId });
  expect((await erasure.json()).result.data.json).toMatchObject({ status: "withdrawn" });
  expect(await entriesAbout(request, org, personDid)).toBe(0);
});
