import { randomBytes } from "node:crypto";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { personShortLabel } from "../src/lib/person-label";
import { callProcedure, createOrg, memberPage, type Org, shoot, signIn, uniq } from "./console-helpers";

// One person, one account on the person page: two sandbox verifications of one test passport in
// one organization are the same human. A compliance officer sees, on the second person's page,
// the first named as a possible duplicate (linked to their page) and the shared pairwise id; an
// operator sees neither.

/** An approved sandbox person of `org`, verified with the test passport `documentNumber`. */
async function verifiedPerson(request: APIRequestContext, org: Org, documentNumber: string) {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  expect(started.status()).toBe(200);
  const { personDid } = (await started.json()) as { personDid: string };
  const done = await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "approved", documentNumber } });
  expect(done.status()).toBe(200);
  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json();
  return { personDid, personId: personDid.split(":").pop()!, pairwiseId: status.pairwiseId as string, duplicateOf: status.duplicateOf };
}

async function openPerson(page: Page, personId: string, label: string) {
  await page.goto(`/console/people/${personId}`);
  await expect(page.getByRole("heading", { level: 1, name: new RegExp(`^${label}`) })).toBeVisible();
}

test("a compliance officer sees the person verified with the same passport and follows the link; an operator does not", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const org = await createOrg(undefined, "institutional");
  const passport = `P${randomBytes(5).toString("hex").toUpperCase()}`;
  const first = await verifiedPerson(request, org, passport);
  const second = await verifiedPerson(request, org, passport);
  expect(first.duplicateOf).toBeUndefined();
  expect(second.duplicateOf).toBe("document");
  expect(second.pairwiseId).toBe(first.pairwiseId);
  const [firstLabel, secondLabel] = [personShortLabel(first.personDid), personShortLabel(second.personDid)];

  const [officerEmail, operatorEmail] = [uniq("officer"), uniq("operator")];
  await signIn(page, org, uniq("owner"));
  expect((await callProcedure(page, "members.add", "mutation", { email: officerEmail, role: "compliance_officer" })).status()).toBe(200);
  expect((await callProcedure(page, "members.add", "mutation", { email: operatorEmail, role: "operator" })).status()).toBe(200);

  // The compliance officer: the section names the first person, with their status and approval.
  const officer = await memberPage(browser, org, officerEmail);
  await openPerson(officer, second.personId, secondLabel);
  const section = officer.getByRole("region", { name: "Possible duplicate" });
  await expect(section).toContainText("Verified with the same identity document as");
  await expect(section.getByText("same document")).toBeVisible();
  const link = section.getByRole("link", { name: firstLabel });
  await expect(link).toHaveAttribute("href", `/console/people/${first.personId}`);
  await expect(section.getByText("approved", { exact: true })).toBeVisible();
  await expect(section.getByText(/^approved on /)).toBeVisible();
  // The pairwise id among the KYC facts, with its copy button.
  const kyc = officer.getByRole("region", { name: "KYC" });
  await expect(kyc.getByText(second.pairwiseId)).toBeVisible();
  await expect(kyc.getByRole("button", { name: "Copy pairwise id" })).toBeVisible();
  await shoot(officer, "person-duplicate");

  // Following the link opens the first person, who was verified first and names no one.
  await link.click();
  await officer.waitForURL(`**/console/people/${first.personId}`);
  await expect(officer.getByRole("heading", { level: 1, name: new RegExp(`^${firstLabel}`) })).toBeVisible();
  await expect(officer.getByRole("region", { name: "KYC" }).getByText(first.pairwiseId)).toBeVisible();
  await expect(officer.getByRole("region", { name: "Possible duplicate" })).toHaveCount(0);
  await officer.context().close();

  // An operator opens the same page: no section, no pairwise id, and the read itself carries neither.
  const operator = await memberPage(browser, org, operatorEmail);
  await openPerson(operator, second.personId, secondLabel);
  await expect(operator.getByRole("region", { name: "KYC" })).toBeVisible();
  await expect(operator.getByRole("region", { name: "Possible duplicate" })).toHaveCount(0);
  await expect(operator.getByText(second.pairwiseId)).toHaveCount(0);
  await expect(operator.getByText("Pairwise id")).toHaveCount(0);
  const read = await callProcedure(operator, "people.get", "query", { id: second.personId });
  expect(read.status()).toBe(200);
  expect(JSON.stringify(await read.json())).not.toContain(first.personId);
  await operator.context().close();
});
