import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { verifyCredentialWithDidDocument } from "../src/server/crypto/verify-credential";

// The whole path a tenant and an applicant walk, in a real browser against the service as
// `npm run serve` runs it: person-first KYC, the sandbox's hosted page, free create, wallet-signed
// bind, the credential checked against the served DID document, unlock, and the events.

const shoot = async (page: import("@playwright/test").Page, name: string) => {
  if (process.env.SCREENSHOTS === "1") await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true });
};

function createOrg(): { organizationId: string; apiKey: string } {
  const out = execFileSync(
    "npx",
    ["tsx", "scripts/org-create.ts", "--name", "E2E Identity", "--email", "ops@e2e.test", "--plan", "institutional"],
    {
      env: { ...process.env, BI_DATA_DIR: process.env.E2E_DATA_DIR!, DATABASE_URL: "", LOG_LEVEL: "silent" },
      encoding: "utf8",
    },
  );
  return JSON.parse(out.trim().split("\n").pop()!);
}

test("person-first KYC on the hosted sandbox page → create → bind → verifiable credential → unlock", async ({ page, request, baseURL }) => {
  const org = createOrg();
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: { redirectUrl: `${baseURL}/identity` } });
  expect(started.status()).toBe(200);
  const kyc = await started.json();
  expect(kyc.redirectUrl).toBe(`${baseURL}/identity`);

  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(kyc.verificationUrl);
  await expect(page.getByRole("heading", { name: "Verify your identity" })).toBeVisible();
  await shoot(page, "identity-sandbox");
  await page.getByLabel(/Valid passport/).check();
  await page.getByRole("button", { name: "Submit document" }).click();
  await expect(page.getByTestId("verification-status")).toHaveText("Your identity is verified.");
  await shoot(page, "identity-sandbox-done");
  await page.getByRole("link", { name: "Continue" }).click();
  await expect(page).toHaveURL(`${baseURL}/identity`);

  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(kyc.personDid)}`, { headers: auth })).json();
  expect(status.status).toBe("approved");

  const wallet = PrivateKey.generate("K1");
  const created = await request.post("/v1/accounts/free", {
    headers: auth,
    data: { ownerPublicKey: wallet.toPublic().toString(), kycCreateToken: status.createToken, personDid: kyc.personDid },
  });
  expect(created.status()).toBe(201);
  const { accountDid } = await created.json();

  const challenge = await (
    await request.post("/v1/bind/challenge", { headers: auth, data: { accountDid, personDid: kyc.personDid } })
  ).json();
  const signature = wallet.signMessage(new TextEncoder().encode(challenge.payloadToSign)).toString();
  const bound = await request.post("/v1/bind/confirm", {
    headers: auth,
    data: { accountDid, personDid: kyc.personDid, nonce: challenge.nonce, signature },
  });
  expect(bound.status()).toBe(200);
  const { credential, bindingVcHash } = await bound.json();

  const issuerDoc = await (await request.get("/.well-known/did.json")).json();
  expect(verifyCredentialWithDidDocument(credential, issuerDoc)).toMatchObject({ verified: true });
  const forged = { ...credential, credentialSubject: { ...credential.credentialSubject, account: "did:antelope:sandbox:someoneelse1" } };
  expect(verifyCredentialWithDidDocument(forged, issuerDoc).verified).toBe(false);

  const unlocked = await request.post("/v1/accounts/unlock", { headers: auth, data: { accountDid } });
  expect(unlocked.status()).toBe(200);
  expect((await unlocked.json()).lifecycle).toBe("unlocked");

  const audit = await (await request.get("/v1/admin/audit?limit=50", { headers: auth })).json();
  const actions = audit.entries.map((e: { action: string }) => e.action);
  expect(actions).toEqual(expect.arrayContaining(["kyc.started", "kyc.approved", "account.created", "identity.bound", "account.unlocked"]));
  const boundEntry = audit.entries.find((e: { action: string }) => e.action === "identity.bound");
  expect(boundEntry.data.bindingVcHash).toBe(bindingVcHash);
});
