import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { personShortLabel } from "../src/lib/person-label";
import { createOrg, shoot, signIn, uniq } from "./console-helpers";

// The detail pages: a tenant's backend key "backend" verifies a person in the sandbox, creates an
// account and binds it; a member then opens the person, the account and the key from their lists,
// downloads the binding credential, and reads the audit log and the dashboard in words.

test("person, account and API key pages from their lists; the credential downloads; activity in words", async ({ page, request }) => {
  const org = await createOrg(undefined, "institutional");
  const minted = await request.post("/v1/admin/api-keys", {
    headers: { authorization: `Bearer ${org.apiKey}` },
    data: { name: "backend" },
  });
  expect(minted.status()).toBe(201);
  const key = (await minted.json()) as { id: string; prefix: string; apiKey: string };
  const auth = { authorization: `Bearer ${key.apiKey}` };

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
  const label = personShortLabel(personDid);
  const keyName = `API key 'backend' (${key.prefix})`;

  await signIn(page, org, uniq("owner"));

  // The dashboard says what happened, to what, with the subject linked.
  const activity = page.getByRole("region", { name: "Recent activity" });
  await expect(activity.getByText(`${keyName} created account ${accountName}`)).toBeVisible();
  await expect(activity.getByText(`${keyName} bound account ${accountName} to ${label}`)).toBeVisible();

  // People list → person page, by keyboard.
  await page.getByRole("link", { name: "People" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "People" })).toBeVisible();
  const personLink = page.getByRole("link", { name: label });
  await personLink.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: `${label} · approved · GH` })).toBeVisible();
  await expect(page.getByText("names or documents: they stay with the KYC provider", { exact: false })).toBeVisible();
  const personActivity = page.getByRole("region", { name: "Activity" });
  await expect(personActivity.getByText(`${keyName} started KYC for ${label}`)).toBeVisible();
  await expect(personActivity.getByText(/approved KYC for/)).toBeVisible();
  await expect(personActivity.getByText(/created account/)).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Screening results" }).getByText("no match")).toBeVisible();
  await shoot(page, "person");

  // Person page → account page; the credential downloads as a parseable AccountBinding credential.
  await page.getByRole("region", { name: "Bindings and accounts" }).getByRole("link", { name: accountName }).click();
  await expect(page.getByRole("heading", { level: 1, name: accountName })).toBeVisible();
  const bindings = page.getByRole("region", { name: "Bindings" });
  await expect(bindings.getByRole("link", { name: `${label} · approved · GH` })).toBeVisible();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    bindings.getByRole("button", { name: "Download credential" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^credential-${accountName.replace(/\./g, "\\.")}-[0-9a-f-]{36}\\.json$`));
  const credential = JSON.parse(await readFile((await download.path())!, "utf8"));
  expect(credential.type).toEqual(expect.arrayContaining(["VerifiableCredential", "AccountBindingCredential"]));
  expect(JSON.stringify(credential.credentialSubject)).toContain(accountDid);
  expect(credential.proof).toBeDefined();
  await expect(page.getByRole("region", { name: "Activity" }).getByText(`${keyName} created account ${accountName}`)).toBeVisible();
  await shoot(page, "account");

  // Accounts list → account page.
  await page.getByRole("link", { name: "Accounts" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();
  await page.getByRole("link", { name: accountName }).click();
  await expect(page).toHaveURL(new RegExp(`/console/accounts/${accountName.replace(/\./g, "\\.")}$`));
  await expect(page.getByRole("heading", { level: 1, name: accountName })).toBeVisible();

  // API keys list → key page with what the key did.
  await page.getByRole("link", { name: "API keys" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByRole("link", { name: "backend", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API key 'backend'" })).toBeVisible();
  await expect(page.getByText("Initial key", { exact: false }).first()).toBeVisible();
  const keyActivity = page.getByRole("region", { name: "Activity" });
  await expect(keyActivity.getByText(`${keyName} created account ${accountName}`)).toBeVisible();
  await expect(keyActivity.getByText(/created API key 'backend'/)).toBeVisible();
  await shoot(page, "api-key");

  // The audit log names the key instead of its id.
  await page.getByRole("link", { name: "Audit log" }).first().click();
  await expect(page.getByRole("cell", { name: keyName, exact: true }).first()).toBeVisible();
  await expect(page.getByRole("cell", { name: `api_key:${key.id}` })).toHaveCount(0);
});

test("another organization's person, account and key are not found", async ({ page, request }) => {
  const mine = await createOrg();
  const theirs = await createOrg();
  const auth = { authorization: `Bearer ${theirs.apiKey}` };
  const { personDid } = await (await request.post("/v1/kyc/start", { headers: auth, data: {} })).json();
  const keys = await (await request.get("/v1/admin/api-keys", { headers: auth })).json();
  await signIn(page, mine, uniq("owner"));
  await page.goto(`/console/people/${personDid.split(":").pop()}`);
  await expect(page.getByRole("alert").filter({ hasText: "Person was not found." })).toBeVisible();
  await page.goto(`/console/api-keys/${keys.keys[0].id}`);
  await expect(page.getByRole("alert").filter({ hasText: "API key was not found." })).toBeVisible();
  await page.goto("/console/accounts/nosuchaccnt1");
  await expect(page.getByRole("alert").filter({ hasText: "Account was not found." })).toBeVisible();
});
