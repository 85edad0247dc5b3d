import { expect, test } from "@playwright/test";
import { callProcedure, createOrg, shoot, signIn, uniq } from "./console-helpers";

// An admin turns on-chain attestations on from the settings page (the deployment under test names
// a contract: playwright.config.ts), sees the organization's number, publishes the country, and
// sets how long an attestation holds; a double click on the confirmation turns it on once.

test("an admin publishes the organization's bindings on chain from the settings page", async ({ page }) => {
  const org = await createOrg(undefined, "institutional");
  await signIn(page, org, uniq("owner"));
  await page.goto("/console/settings");
  const panel = page.getByRole("region", { name: "On-chain attestations" });
  await expect(panel.getByText("off", { exact: true })).toBeVisible();
  await expect(panel.getByText("e2eattest", { exact: true })).toBeVisible();
  await expect(panel.getByText("bindissuer@attest")).toBeVisible();

  let sent = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname.includes("tenant.setAttestations")) sent++;
  });
  await panel.getByRole("button", { name: "Publish on chain" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Publish the organization's bindings on chain?" });
  await dialog.getByRole("button", { name: "Publish", exact: true }).dblclick();
  await expect(panel.getByText("publishing", { exact: true })).toBeVisible();
  await expect(panel.getByText(/^\d+$/).first()).toBeVisible();
  expect(sent).toBe(1);
  const after = await (await callProcedure(page, "tenant.attestations", "query")).json();
  expect(after.result.data.json).toMatchObject({
    enabled: true,
    publishCountry: false,
    validDays: 365,
    orgNumber: expect.stringMatching(/^\d+$/),
  });

  await panel.getByLabel("Publish the person's country beside its tier").check();
  const read = async () => (await (await callProcedure(page, "tenant.attestations", "query")).json()).result.data.json;
  await expect.poll(async () => (await read()).publishCountry).toBe(true);
  const days = panel.getByLabel("Valid for (days)");
  await days.fill("0");
  await panel.getByRole("button", { name: "Save" }).click();
  await expect(panel.getByText(/validity/i).first()).toBeVisible();
  await expect(days).toHaveAttribute("aria-invalid", "true");
  await days.fill("180");
  await panel.getByRole("button", { name: "Save" }).click();
  await expect.poll(async () => (await read()).validDays).toBe(180);
  expect(await read()).toMatchObject({ enabled: true, publishCountry: true, validDays: 180 });
  await expect(panel.getByRole("button", { name: "Save" })).toBeDisabled();
  await shoot(page, "settings-attestations");
});
