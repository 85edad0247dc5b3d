import { expect, test } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { createOrg, shoot, signIn, uniq } from "./console-helpers";

// Every console page with data in it, for the screenshots in docs/screenshots (SCREENSHOTS=1) and
// as a smoke test that each page renders its heading and no error state for an owner.

const PAGES: [path: string, heading: string, name: string][] = [
  ["/console", "Dashboard", "dashboard-data"],
  ["/console/aml", "AML queue", "aml"],
  ["/console/accounts", "Accounts", "accounts-data"],
  ["/console/people", "People", "people"],
  ["/console/organizations", "Organizations", "organizations"],
  ["/console/risk", "Risk", "risk"],
  ["/console/webhooks", "Webhooks", "webhooks-list"],
  ["/console/audit", "Audit log", "audit-log"],
  ["/console/members", "Members", "members-list"],
  ["/console/api-keys", "API keys", "api-keys-list"],
  ["/console/settings", "Settings", "settings-page"],
];

test("every console page renders with data, at laptop and phone width", async ({ page, request }) => {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  for (const outcome of ["pep", "approved", "rejected"] as const) {
    const { personDid } = await (await request.post("/v1/kyc/start", { headers: auth, data: {} })).json();
    expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome } })).status()).toBe(200);
  }
  for (let i = 0; i < 3; i++) {
    const created = await request.post("/v1/accounts/free", {
      headers: auth,
      data: { ownerPublicKey: PrivateKey.generate("K1").toPublic().toString() },
    });
    expect(created.status()).toBe(201);
  }
  expect(
    (
      await request.post("/v1/admin/webhooks", {
        headers: auth,
        data: { url: "http://127.0.0.1:9/hook", events: ["kyc.approved", "account.created"] },
      })
    ).status(),
  ).toBe(201);

  await signIn(page, org, uniq("owner"));
  for (const [path, heading, name] of PAGES) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await page.waitForLoadState("networkidle");
    await expect(page.getByText("This could not be loaded.")).toHaveCount(0);
    await shoot(page, name);
  }
  await page.goto("/console/aml");
  await page.getByRole("button", { name: "Review" }).first().click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await page.waitForLoadState("networkidle");
  await shoot(page, "aml-case", { fullPage: false });
});
