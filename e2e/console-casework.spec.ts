import { readFile } from "node:fs/promises";
import { expect, type Page, test } from "@playwright/test";
import { callProcedure, createOrg, memberPage, shoot, signIn, uniq } from "./console-helpers";

// AML casework in the console (docs/api/guides/aml-cases.md): one compliance officer takes the next
// case, adds a comment and proposes clearing it; a second officer, signed in with their own password
// and code, approves. Both actions are double-clicked and happen once, as the timeline and the
// audit log show.

async function read<T>(page: Page, path: string, input?: unknown): Promise<T> {
  const res = await callProcedure(page, path, "query", input);
  expect(res.status(), path).toBe(200);
  return (await res.json()).result.data.json as T;
}

type Event = { kind: string; actor: string; data: Record<string, unknown>; text: string | null };
const WORK = ["assigned", "reassigned", "unassigned", "comment", "proposed", "approved", "cleared", "confirmed"];

test("take next case, note, propose; another officer approves; the timeline shows each once and in order", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  expect(
    (await request.patch("/v1/admin/tenant/policy", { headers: auth, data: { requireSecondApprovalToClearAml: true } })).status(),
  ).toBe(200);
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  const { personDid } = (await started.json()) as { personDid: string };
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "pep" } })).status()).toBe(200);

  const [first, second] = [uniq("first-officer"), uniq("second-officer")];
  await signIn(page, org, uniq("owner"));
  for (const email of [first, second])
    expect((await callProcedure(page, "members.add", "mutation", { email, role: "compliance_officer" })).status()).toBe(200);

  // Officer A: the queue shows the case unassigned, with its deadline; "Take next case" opens it.
  const a = await memberPage(browser, org, first);
  await a.getByRole("link", { name: "AML queue" }).first().click();
  await expect(a.getByRole("heading", { level: 1, name: "AML queue" })).toBeVisible();
  const row = a.getByRole("row", { name: new RegExp(personDid.replace(/[.:]/g, "\\$&")) });
  await expect(row.getByText("unassigned")).toBeVisible();
  await expect(row.getByText("on time")).toBeVisible();
  await shoot(a, "aml-queue-casework");
  await a.getByRole("button", { name: "Take next case" }).click();
  await a.waitForURL(/\/console\/aml\/[0-9a-f-]{36}$/);
  const caseId = a.url().split("/").pop()!;
  await expect(a.getByTestId("case-assignee")).toContainText(first);

  // A second "Take next case" finds nothing left unassigned, and says so.
  await a.goto("/console/aml");
  await a.getByRole("button", { name: "Take next case" }).click();
  await expect(a.getByText("No unassigned open case is waiting")).toBeVisible();
  await a.getByLabel("My cases").check();
  await expect(a.getByRole("row", { name: new RegExp(personDid.replace(/[.:]/g, "\\$&")) })).toBeVisible();
  await a.getByRole("link", { name: "Open case" }).first().click();
  await a.waitForURL(`**/console/aml/${caseId}`);

  // Back to the unassigned queue, then taken again by hand; a reassignment needs a reason.
  await a.getByRole("button", { name: "Unassign" }).click();
  await expect(a.getByTestId("case-assignee")).toContainText("nobody yet");
  await a.getByRole("button", { name: "Assign to me" }).click();
  await expect(a.getByTestId("case-assignee")).toContainText(first);
  await a.getByRole("button", { name: "Reassign" }).click();
  const reassign = a.getByRole("dialog", { name: "Reassign the case" });
  await reassign.getByLabel("Member's email").fill(second);
  await reassign.getByLabel("Reason").fill("x");
  await reassign.getByRole("button", { name: "Reassign" }).click();
  await expect(reassign.getByText("The reason needs at least 3 characters.")).toBeVisible();
  await reassign.getByRole("button", { name: "Cancel" }).click();
  await expect(reassign).toHaveCount(0);

  const note = "Called the customer: born in 1975 in Porto, not the listed PEP.";
  await a.getByLabel("Comment", { exact: true }).fill(note);
  await a.getByRole("button", { name: "Add comment" }).dblclick();
  const timeline = a.getByRole("list", { name: "Case timeline" });
  await expect(timeline.getByText(note)).toBeVisible();
  await a.getByLabel("Reason", { exact: true }).fill("Namesake: date of birth and nationality differ from the listed PEP.");
  await a.getByRole("button", { name: "Propose clear" }).dblclick();
  await expect(a.getByTestId("case-status")).toHaveText("pending approval");
  await expect(a.getByRole("note")).toContainText("You proposed this clear, so you cannot approve it");
  await expect(a.getByRole("button", { name: "Approve clear" })).toBeDisabled();
  await expect(a.getByText("A rejected KYC stays rejected unless the person is verified again.")).toBeVisible();
  await shoot(a, "aml-case-page");

  // Officer B opens the case and approves.
  const b = await memberPage(browser, org, second);
  await b.goto(`/console/aml/${caseId}`);
  await b.getByLabel(/Notes/).fill("Agree: different person.");
  await b.getByRole("button", { name: "Approve clear" }).dblclick();
  await expect(b.getByTestId("case-status")).toHaveText("cleared");
  const shown = b.getByRole("list", { name: "Case timeline" }).getByRole("listitem");
  await expect(shown.filter({ hasText: "Clear approved" })).toHaveCount(1);

  // The record: each action once, in order, by whom it was done.
  const t = await read<{ events: Event[] }>(b, "aml.timeline", { caseId });
  const work = t.events.filter((e) => WORK.includes(e.kind));
  expect(work.map((e) => [e.kind, e.actor])).toEqual([
    ["assigned", `member:${first}`],
    ["unassigned", `member:${first}`],
    ["assigned", `member:${first}`],
    ["comment", `member:${first}`],
    ["proposed", `member:${first}`],
    ["approved", `member:${second}`],
  ]);
  expect(work[0]!.data).toMatchObject({ assigneeEmail: first, via: "next" });
  expect(work[2]!.data).toEqual({ assigneeEmail: first });
  expect(work[3]!.text).toBe(note);
  expect(t.events[0]!.kind).toBe("opened");
  // The page lists the same events in the same order.
  const kinds = await shown.evaluateAll((items) => items.map((i) => i.getAttribute("data-kind")));
  expect(kinds).toEqual(t.events.map((e) => e.kind));

  const entries = (await read<{ entries: { action: string }[] }>(b, "audit.list", { limit: "200" })).entries;
  const count = (action: string) => entries.filter((e) => e.action === action).length;
  expect([count("aml.comment_added"), count("aml.clear_proposed"), count("aml.cleared")]).toEqual([1, 1, 1]);

  // The examiner's copy: a signed bundle of this timeline, downloaded as a file and recorded as exported.
  const [download] = await Promise.all([b.waitForEvent("download"), b.getByRole("button", { name: "Export for an examiner" }).click()]);
  expect(download.suggestedFilename()).toBe(`aml-case-${caseId}.json`);
  const bundle = JSON.parse(await readFile(await download.path(), "utf8"));
  expect(bundle).toMatchObject({ format: "bi-aml-case-export/1", caseId, checkpoint: { caseId }, proof: { alg: "Ed25519" } });
  await expect(shown.filter({ hasText: "Exported for an examiner" })).toHaveCount(1);

  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: auth })).json();
  expect([status.pepFlag, status.sanctionsFlag]).toEqual([false, false]);
  await a.context().close();
  await b.context().close();
});
