import { type APIRequestContext, expect, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { personShortLabel } from "../src/lib/person-label";
import { callProcedure, createOrg, memberPage, type Org, shoot, signIn, uniq } from "./console-helpers";

// A bound person turns up on the organization's own sanctions list: the re-screen flags them and
// their binding is suspended; a compliance officer confirms the match in the AML queue and the
// account page shows the binding revoked, as its credential's status list now says.

const sdn = (rows: [id: number, name: string][]) =>
  rows.map(([id, name]) => `${id},"${name}","individual","SDGT","-0-","-0-","-0-","-0-","-0-","-0-","-0-","-0-"`).join("\r\n");

async function boundPerson(request: APIRequestContext, org: Org) {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  const { personDid } = (await started.json()) as { personDid: string };
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "approved" } })).status()).toBe(200);
  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json();
  const wallet = PrivateKey.generate("K1");
  const created = await request.post("/v1/accounts/free", {
    headers: auth,
    data: { ownerPublicKey: wallet.toPublic().toString(), kycCreateToken: status.createToken, personDid },
  });
  const { accountDid, name } = (await created.json()) as { accountDid: string; name: string };
  const challenge = await (await request.post("/v1/bind/challenge", { headers: auth, data: { accountDid, personDid } })).json();
  const signature = wallet.signMessage(new TextEncoder().encode(challenge.payloadToSign)).toString();
  const bound = await request.post("/v1/bind/confirm", {
    headers: auth,
    data: { accountDid, personDid, nonce: challenge.nonce, signature },
  });
  expect(bound.status()).toBe(200);
  return { personDid, accountDid, accountName: name, credential: (await bound.json()).credential };
}

test("a compliance officer confirms a sanctions match and sees the credential revoked on the account page", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const { personDid, accountDid, accountName, credential } = await boundPerson(request, org);
  const bindingOf = async () =>
    (await (await request.get(`/v1/accounts/${encodeURIComponent(accountDid)}`, { headers: auth })).json()).bindings[0];

  const officer = uniq("officer");
  await signIn(page, org, uniq("owner"));
  expect((await callProcedure(page, "members.add", "mutation", { email: officer, role: "compliance_officer" })).status()).toBe(200);
  // The sandbox's approved test identity appears on the organization's own list.
  const upload = await callProcedure(page, "screening.uploadList", "mutation", {
    format: "ofac",
    list: "credential-status-e2e",
    files: [{ name: "SDN.CSV", contentBase64: Buffer.from(sdn([[701, "SAMPLE, Alex Example"]])).toString("base64") }],
  });
  expect(upload.status()).toBe(200);
  await expect.poll(async () => (await bindingOf())?.status, { timeout: 60_000 }).toBe("suspended");

  const co = await memberPage(browser, org, officer);
  await co.goto(`/console/accounts/${accountName}`);
  const bindings = co.getByRole("region", { name: "Bindings" });
  await expect(bindings.getByText("suspended", { exact: true })).toBeVisible();
  await expect(bindings.getByText("Suspended: sanctions flag.")).toBeVisible();
  await expect(bindings.getByText("Status lists say: suspension")).toBeVisible();
  await shoot(co, "account-binding-suspended");

  await co.getByRole("link", { name: "AML queue" }).first().click();
  const row = co.getByRole("row", { name: new RegExp(personDid.replace(/[.:]/g, "\\$&")) });
  await row.getByRole("button", { name: "Review" }).click();
  const dialog = co.getByRole("dialog");
  await dialog.getByLabel("Reason").fill("Same person as entry 701 on our watchlist: name and date of birth match.");
  await dialog.getByRole("button", { name: "Confirm match" }).click();
  await expect(co.getByText("Match confirmed", { exact: false }).first()).toBeVisible();

  await co.goto(`/console/accounts/${accountName}`);
  await expect(co.getByRole("heading", { level: 1, name: accountName })).toBeVisible();
  await expect(bindings.getByText(/^revoked /)).toBeVisible();
  await expect(bindings.getByText("Status lists say: revocation and suspension")).toBeVisible();
  // The binding names the case, not the officer's words (those stay in the case, sealed under the person's key).
  await expect(bindings.getByText(/Revoked: “Confirmed sanctions match \(AML case [0-9a-f-]{36}\)/)).toBeVisible();
  await expect(bindings.getByText(/entry 701/)).toHaveCount(0);
  await expect(bindings.getByRole("button", { name: "Revoke binding" })).toHaveCount(0);
  await expect(co.getByRole("region", { name: "Account" }).getByText("provisional")).toBeVisible();
  await expect(co.getByRole("region", { name: "Activity" }).getByText(/revoked the binding of account/)).toBeVisible();
  // The person stays linked from the revoked binding: the history matters to a compliance team.
  await expect(bindings.getByRole("link", { name: `${personShortLabel(personDid)} · approved · GH` })).toBeVisible();
  await shoot(co, "account-binding-revoked");

  // What a relying party fetches says the same: the revocation bit of this credential is set.
  const entry = credential.credentialStatus.find((e: { statusPurpose: string }) => e.statusPurpose === "revocation");
  const list = await (await request.get(new URL(entry.statusListCredential).pathname)).json();
  const { BitstringStatusList } = await import("@digitalbazaar/vc-bitstring-status-list");
  const bits = await BitstringStatusList.decode({ encodedList: list.credentialSubject.encodedList });
  expect(bits.getStatus(Number(entry.statusListIndex))).toBe(true);
});

test("a compliance officer revokes a binding from the account page with a reason", async ({ page, browser, request }) => {
  test.setTimeout(90_000);
  const org = await createOrg(undefined, "institutional");
  const { accountName } = await boundPerson(request, org);
  const officer = uniq("officer");
  await signIn(page, org, uniq("owner"));
  expect((await callProcedure(page, "members.add", "mutation", { email: officer, role: "compliance_officer" })).status()).toBe(200);
  const co = await memberPage(browser, org, officer);
  await co.goto(`/console/accounts/${accountName}`);
  const bindings = co.getByRole("region", { name: "Bindings" });
  await expect(bindings.getByText("Status lists say: valid")).toBeVisible();
  await bindings.getByRole("button", { name: "Revoke binding" }).click();
  const dialog = co.getByRole("dialog", { name: "Revoke this binding" });
  await dialog.getByRole("button", { name: "Revoke binding" }).click();
  await expect(dialog.getByText(/reason/i).first()).toBeVisible();
  await dialog.getByLabel("Reason").fill("The customer closed their relationship with us.");
  await shoot(co, "account-revoke-dialog", { fullPage: false });
  await dialog.getByRole("button", { name: "Revoke binding" }).dblclick();
  await expect(dialog).toHaveCount(0);
  await expect(bindings.getByText(/^revoked /)).toBeVisible();
  await expect(bindings.getByText("Status lists say: revocation")).toBeVisible();
  const audit = await (await request.get("/v1/admin/audit?limit=200", { headers: { authorization: `Bearer ${org.apiKey}` } })).json();
  expect(audit.entries.filter((e: { action: string }) => e.action === "identity.unbound")).toHaveLength(1);
});
