import { type APIRequestContext, expect, test } from "@playwright/test";
import { callProcedure, createOrg, memberPage, type Org, shoot, signIn, uniq } from "./console-helpers";

// The compliance side of the console: the AML four-eyes flow with two members in two browser
// contexts, and replaying a dead webhook delivery. Subjects come from the sandbox KYC provider.

async function personWithOutcome(request: APIRequestContext, org: Org, outcome: "pep" | "approved") {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  expect(started.status()).toBe(200);
  const { personDid } = await started.json();
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome } })).status()).toBe(200);
  return personDid as string;
}

test("four-eyes: one member proposes, the same member cannot approve, another approves; flags cleared; audit shows both", async ({
  page,
  browser,
  request,
}) => {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  expect(
    (await request.patch("/v1/admin/tenant/policy", { headers: auth, data: { requireSecondApprovalToClearAml: true } })).status(),
  ).toBe(200);
  const personDid = await personWithOutcome(request, org, "pep");
  expect((await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json()).pepFlag).toBe(
    true,
  );

  const [owner, first, second] = [uniq("owner"), uniq("first-co"), uniq("second-co")];
  await signIn(page, org, owner);
  for (const email of [first, second]) {
    expect((await callProcedure(page, "members.add", "mutation", { email, role: "compliance_officer" })).status()).toBe(200);
  }

  const a = await memberPage(browser, org, first);
  await a.getByRole("link", { name: "AML queue" }).first().click();
  const row = a.getByRole("row", { name: new RegExp(personDid.replace(/[.:]/g, "\\$&")) });
  await expect(row.getByText("high")).toBeVisible();
  await shoot(a, "aml-queue");
  await row.getByRole("button", { name: "Review" }).click();
  const dialog = a.getByRole("dialog");
  await expect(dialog.getByText("PEP", { exact: true })).toBeVisible();
  await dialog.getByLabel("Reason").fill("Namesake: date of birth and nationality differ from the listed PEP.");
  await dialog.getByRole("button", { name: "Propose clear" }).click();
  await expect(dialog.getByTestId("case-status")).toHaveText("pending approval");
  await expect(dialog.getByRole("note")).toContainText("You proposed this clear, so you cannot approve it");
  await expect(dialog.getByRole("button", { name: "Approve clear" })).toBeDisabled();
  await shoot(a, "aml-case-proposed", { fullPage: false });
  // The procedure refuses it too, not only the page.
  const caseId = (await (await callProcedure(a, "aml.queue", "query")).json()).result.data.json.cases[0].caseId;
  const same = await callProcedure(a, "aml.approveClear", "mutation", { caseId, body: {} });
  expect(same.status()).toBe(403);
  expect(JSON.stringify(await same.json())).toContain("same_approver");

  const b = await memberPage(browser, org, second);
  await b.getByRole("link", { name: "AML queue" }).first().click();
  await b
    .getByRole("row", { name: new RegExp(personDid.replace(/[.:]/g, "\\$&")) })
    .getByRole("button", { name: "Review" })
    .click();
  await b.getByRole("dialog").getByLabel(/Notes/).fill("Agree: different person.");
  await b.getByRole("dialog").getByRole("button", { name: "Approve clear" }).click();
  await expect(b.getByText("No open AML cases.")).toBeVisible();

  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json();
  expect([status.pepFlag, status.sanctionsFlag]).toEqual([false, false]);

  await b.getByRole("link", { name: "Audit log" }).first().click();
  await expect(b.getByRole("cell", { name: first, exact: true }).first()).toBeVisible();
  await expect(b.getByRole("cell", { name: second, exact: true }).first()).toBeVisible();
  await a.context().close();
  await b.context().close();
});

test("replay a dead webhook delivery from the page", async ({ page, request }) => {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  // Nothing listens on port 9: every attempt fails, and the e2e service gives up after 2 attempts.
  const hook = await request.post("/v1/admin/webhooks", { headers: auth, data: { url: "http://127.0.0.1:9/hook", events: ["*"] } });
  expect(hook.status()).toBe(201);
  await personWithOutcome(request, org, "approved");
  await expect
    .poll(
      async () => (await (await request.get("/v1/admin/webhooks/deliveries?status=dead", { headers: auth })).json()).deliveries.length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);

  const owner = uniq("owner");
  await signIn(page, org, owner);
  await page.getByRole("link", { name: "Webhooks" }).first().click();
  await expect(page.getByRole("cell", { name: "http://127.0.0.1:9/hook" })).toBeVisible();
  await page.getByLabel("Status").selectOption("dead");
  const dead = page.getByRole("table", { name: "Deliveries" }).getByRole("row").filter({ hasText: "dead" }).first();
  await expect(dead).toBeVisible();
  await shoot(page, "webhooks");
  await dead.getByRole("button", { name: "Replay" }).click();
  await expect(page.getByText("Delivery queued again").first()).toBeVisible();

  const audit = await (await request.get("/v1/admin/audit?limit=20", { headers: auth })).json();
  expect(audit.entries).toContainEqual(
    expect.objectContaining({
      action: "webhook.delivery_replayed",
      actor: `member:${owner}`,
      data: expect.objectContaining({ previousStatus: "dead" }),
    }),
  );
});
