import { expect, test } from "@playwright/test";
import { callProcedure, createOrg, shoot, signIn, uniq } from "./console-helpers";

// The screening page: list versions, the difference between two versions of a list, the re-screen
// runs with their progress, and an organization's own list uploaded from the page.

const sdn = (rows: [id: number, name: string][]) =>
  rows.map(([id, name]) => `${id},"${name}","individual","SDGT","-0-","-0-","-0-","-0-","-0-","-0-","-0-","-0-"`).join("\r\n");

test("versions, a diff with names, a run's progress, an OFAC upload for the organization, and a bad file's line in words", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  // An approved person (the sandbox provider's): a list change re-screens them.
  const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
  const { personDid } = await started.json();
  expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome: "approved" } })).status()).toBe(200);

  await signIn(page, org, uniq("owner-screening"));
  // The first version of the organization's list, through the same procedure the page uses.
  const first = sdn([
    [501, "ALDERWOOD, Casimir"],
    [502, "BRIGHTWATER, Delphine"],
  ]);
  const v1 = await callProcedure(page, "screening.uploadList", "mutation", {
    format: "ofac",
    list: "e2e-watchlist",
    files: [{ name: "SDN.CSV", contentBase64: Buffer.from(first).toString("base64") }],
  });
  expect(v1.status()).toBe(200);

  await page.getByRole("link", { name: "Screening" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Screening" })).toBeVisible();
  // Global sandbox lists (loaded at the KYC screen) and the organization's own.
  const versions = page.getByRole("table", { name: "List versions" });
  await expect(versions.getByRole("row", { name: /ofac-sdn/ }).first()).toBeVisible();
  await expect(versions.getByRole("row", { name: /e2e-watchlist/ })).toContainText("your organization");

  // A second version uploaded from the page.
  await page.getByLabel("List name").fill("e2e-watchlist");
  await page.getByLabel("SDN.CSV").setInputFiles({
    name: "SDN.CSV",
    mimeType: "text/csv",
    buffer: Buffer.from(
      sdn([
        [502, "BRIGHTWATER, Delphina"],
        [503, "CORNFIELD, Evander"],
      ]),
    ),
  });
  await page.getByRole("button", { name: "Upload list" }).click();
  await expect(page.getByText(/2 entries are now the active version of e2e-watchlist/).first()).toBeVisible();
  await expect(versions.getByRole("row", { name: /e2e-watchlist/ })).toHaveCount(2);

  // The diff of the two versions, with names and counts.
  await page.getByLabel("List", { exact: true }).selectOption({ label: "e2e-watchlist (your organization)" });
  await expect(page.getByTestId("diff-counts")).toHaveText(/1 added, 1 removed, 1 changed/);
  await expect(page.getByRole("list", { name: /Added/ })).toContainText("Evander CORNFIELD");
  await expect(page.getByRole("list", { name: /Removed/ })).toContainText("Casimir ALDERWOOD");
  await expect(page.getByRole("list", { name: /Changed/ })).toContainText("Delphina BRIGHTWATER");

  // The re-screens the uploads queued, read again while one runs, until they finish.
  const runs = page.getByRole("table", { name: "Re-screen runs" });
  await expect(runs.getByRole("row", { name: /e2e-watchlist/ })).toHaveCount(2);
  await expect(runs.getByRole("row", { name: /e2e-watchlist/ }).first()).toContainText("completed", { timeout: 20_000 });
  await expect(runs.getByRole("row", { name: /e2e-watchlist/ }).first()).toContainText("1 of 1 people");
  await shoot(page, "screening");

  // A bad file: refused with its line in words, never its content; nothing imported.
  await page.getByLabel("SDN.CSV").setInputFiles({
    name: "SDN.CSV",
    mimeType: "text/csv",
    buffer: Buffer.from(`${sdn([[601, "DUNMORE, Fenella"]])}\r\n602,"HIDDENNAME, Gus","individual"\r\n`),
  });
  await page.getByRole("button", { name: "Upload list" }).click();
  const error = page.locator("#upload-file-error");
  await expect(error).toHaveText(/SDN\.CSV, line 2: expected 12 columns, found 3/);
  await expect(error).not.toContainText("HIDDENNAME");
  await expect(versions.getByRole("row", { name: /e2e-watchlist/ })).toHaveCount(2);
  await shoot(page, "screening-upload-error");

  // The periodic re-screen, changed by an admin.
  await page.getByLabel("Frequency").selectOption("weekly");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText(/Last changed by member:/)).toBeVisible();
});
