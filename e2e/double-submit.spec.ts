import { expect, type Page, test } from "@playwright/test";
import { callProcedure, createOrg, shoot, signIn, uniq } from "./console-helpers";

// Every mutating console form is safe to repeat: a double click, or a second click after the first
// answer was lost on the way back, changes the data once. Errors read as words, and formats are
// checked before any confirmation.

async function read<T>(page: Page, path: string, input?: unknown): Promise<T> {
  const res = await callProcedure(page, path, "query", input);
  expect(res.status(), path).toBe(200);
  return (await res.json()).result.data.json as T;
}

/** The first call of `path` reaches the service, but its answer never reaches the page (a dropped connection). */
async function loseFirstAnswer(page: Page, path: string) {
  let lost = false;
  await page.route(`**/api/trpc/${path}*`, async (route) => {
    if (lost) return route.continue();
    lost = true;
    await route.fetch();
    await route.abort("connectionreset");
  });
  return () => lost;
}

test("api keys: a double click mints one key, a retry after a lost answer shows that same key, a revoke runs once", async ({ page }) => {
  const org = await createOrg();
  await signIn(page, org, uniq("owner"));
  await page.goto("/console/api-keys");
  type Keys = { keys: { id: string; name: string; prefix: string; revokedAt: string | null }[] };
  const named = async (name: string) => (await read<Keys>(page, "apiKeys.list")).keys.filter((k) => k.name === name);

  await page.getByRole("button", { name: "Mint key" }).click();
  let dialog = page.getByRole("dialog", { name: "Mint an API key" });
  await dialog.getByLabel("Name").fill("Double clicked");
  await dialog.getByRole("button", { name: "Mint key" }).dblclick();
  await expect(page.getByTestId("minted-key")).toBeVisible();
  expect(await named("Double clicked")).toHaveLength(1);
  await page.getByRole("button", { name: "Done" }).click();

  // The first answer is lost: the page says so in words, and the second click replays the first mint.
  const lost = await loseFirstAnswer(page, "apiKeys.mint");
  await page.getByRole("button", { name: "Mint key" }).click();
  dialog = page.getByRole("dialog", { name: "Mint an API key" });
  await dialog.getByLabel("Name").fill("Answer lost");
  await dialog.getByRole("button", { name: "Mint key" }).click();
  await expect(dialog.getByRole("alert")).toContainText("The service could not be reached");
  expect(lost()).toBe(true);
  const [first] = await named("Answer lost");
  expect(first).toBeDefined();
  await dialog.getByRole("button", { name: "Mint key" }).click();
  const shown = (await page.getByTestId("minted-key").textContent())!.trim();
  expect(shown.startsWith(first!.prefix)).toBe(true);
  expect(await named("Answer lost")).toHaveLength(1);
  await page.getByRole("button", { name: "Done" }).click();
  await page.unrouteAll({ behavior: "wait" });

  // Revoke behind its confirmation, confirmed with a double click.
  const row = page.getByRole("row", { name: /Double clicked/ });
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).dblclick();
  await expect(row.getByText("revoked")).toBeVisible();
  const [revoked] = await named("Double clicked");
  expect(revoked!.revokedAt).not.toBeNull();
  const audit = await read<{ entries: { action: string }[] }>(page, "audit.list", { limit: "100" });
  expect(audit.entries.filter((e) => e.action === "api_key.revoked")).toHaveLength(1);
});

test("key names: the counter shows the limit, and a name past it is refused in words, not cut", async ({ page }) => {
  const org = await createOrg();
  await signIn(page, org, uniq("owner"));
  await page.goto("/console/api-keys");
  await page.getByRole("button", { name: "Mint key" }).click();
  const dialog = page.getByRole("dialog", { name: "Mint an API key" });
  await dialog.getByLabel("Name").fill("n".repeat(70));
  await expect(dialog.getByLabel("Name")).toHaveValue("n".repeat(70));
  await expect(dialog.getByText("70 / 64 · 6 over the limit")).toBeVisible();
  await dialog.getByRole("button", { name: "Mint key" }).click();
  await expect(dialog.getByText("The key name can be at most 64 characters.")).toBeVisible();
  await shoot(page, "mint-key-error", { fullPage: false });
  expect((await read<{ keys: unknown[] }>(page, "apiKeys.list")).keys).toHaveLength(1);
});

test("members: a double click adds one member; an over-long address is refused in words", async ({ page }) => {
  const org = await createOrg();
  const owner = uniq("owner");
  await signIn(page, org, owner);
  await page.goto("/console/members");
  const colleague = uniq("colleague");
  await page.getByRole("button", { name: "Add member" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a member" });
  await dialog.getByLabel("Email").fill(`${"a".repeat(60)}@${["b", "c", "d", "e"].map((l) => l.repeat(60)).join(".")}.example`);
  // The browser's own check lets it through (it is a well-formed address); the service's limit is worded.
  expect(await dialog.getByLabel("Email").evaluate((el: HTMLInputElement) => el.validity.valid)).toBe(true);
  await dialog.getByRole("button", { name: "Add member" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("The email can be at most 254 characters.", { timeout: 10_000 });
  await dialog.getByLabel("Email").fill(colleague);
  await dialog.getByRole("button", { name: "Add member" }).dblclick();
  await expect(dialog).toBeHidden();
  const members = await read<{ members: { email: string }[] }>(page, "members.list");
  expect(members.members.filter((m) => m.email === colleague)).toHaveLength(1);
  const audit = await read<{ entries: { action: string; subject: string | null }[] }>(page, "audit.list", { limit: "100" });
  const about = audit.entries.filter((e) => e.subject === colleague);
  expect(about.filter((e) => e.action === "member.added")).toHaveLength(1);
  // However adding a member goes on (an invitation, say), it went on once.
  expect(about.filter((e) => e.action !== "member.added").length).toBeLessThanOrEqual(1);
});

test("settings: the allowlist is checked before the lock-out question; countries and the DPA are saved once", async ({ page }) => {
  const org = await createOrg();
  await signIn(page, org, uniq("owner"));
  await page.goto("/console/settings");
  const cidrs = page.locator("#cidrs");
  await cidrs.fill("999.1.1.1/99");
  // Not a CIDR: no lock-out warning, no confirmation, the words say what is wrong.
  await expect(page.getByRole("button", { name: "Save anyway" })).toHaveCount(0);
  await page.getByRole("button", { name: "Save allowlist" }).click();
  await expect(page.getByText("Enter a CIDR such as 203.0.113.0/24 or a single address; 999.1.1.1/99 is not one.")).toBeVisible();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await shoot(page, "settings-errors");
  expect((await read<{ ipAllowlist: { cidrs: string[] } }>(page, "tenant.settings")).ipAllowlist.cidrs).toEqual([]);
  // A well-formed list that leaves this address out asks first.
  await cidrs.fill("203.0.113.0/24");
  await page.getByRole("button", { name: "Save anyway" }).click();
  await expect(page.getByRole("alertdialog", { name: "Lock out your own address?" })).toBeVisible();
  await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click();

  await page.getByLabel("Blocked countries").fill("KP, Iran");
  await page.getByRole("button", { name: "Save countries" }).click();
  await expect(page.getByText("Iran is not a country code: use two letters such as GH or KE.")).toBeVisible();
  await page.getByLabel("Blocked countries").fill("KP, IR");
  await page.getByRole("button", { name: "Save countries" }).dblclick();
  await expect(page.getByText("Country policy saved").first()).toBeVisible();

  await page.getByRole("button", { name: "Accept the DPA" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Accept" }).dblclick();
  await expect(page.getByText(/^Accepted on/)).toBeVisible();
  const audit = await read<{ entries: { action: string }[] }>(page, "audit.list", { limit: "100" });
  expect(audit.entries.filter((e) => e.action === "country_policy.updated")).toHaveLength(1);
  expect(audit.entries.filter((e) => e.action === "dpa.accepted")).toHaveLength(1);
});

test("webhooks and audit exports: double clicks register one webhook and start one export; dates are asked for in words", async ({
  page,
}) => {
  const org = await createOrg(undefined, "institutional");
  await signIn(page, org, uniq("owner"));
  await page.goto("/console/webhooks");
  await page.getByRole("button", { name: "Register webhook" }).click();
  const dialog = page.getByRole("dialog", { name: "Register a webhook" });
  await dialog.getByLabel("URL").fill("http://127.0.0.1:9/double-submit");
  // Events are picked from the catalog, never typed (a typo would subscribe to nothing).
  await dialog.getByLabel("Only the events I pick").check();
  await expect(dialog.getByText("Pick at least one event.")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Register" })).toBeDisabled();
  await dialog.getByRole("checkbox", { name: /account\.created/ }).check();
  await dialog.getByRole("checkbox", { name: /aml\.sanctions_hit/ }).check();
  await shoot(page, "webhook-register-events", { fullPage: false });
  await dialog.getByRole("button", { name: "Register" }).dblclick();
  await expect(page.getByRole("dialog", { name: "Webhook registered" })).toBeVisible();
  // The doc the answer names is a link to the guide, not a path to copy.
  await expect(page.getByRole("dialog", { name: "Webhook registered" }).getByRole("link", { name: "Receiving webhooks" })).toHaveAttribute(
    "href",
    "/docs/guides/webhooks",
  );
  const hooks = await read<{ webhooks: { url: string; events: string[] }[] }>(page, "webhooks.list");
  const registered = hooks.webhooks.filter((h) => h.url === "http://127.0.0.1:9/double-submit");
  expect(registered).toHaveLength(1);
  expect(registered[0]!.events).toEqual(["account.created", "aml.sanctions_hit"]);
  await page.getByRole("button", { name: "Done" }).click();

  // Rotating the secret: the old one keeps signing for the overlap chosen; a double click rotates once.
  const row = page.getByRole("row", { name: /double-submit/ });
  await row.getByRole("button", { name: "Rotate secret" }).click();
  const rotateDialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
  await rotateDialog.getByLabel("Old secret keeps signing for").selectOption("72");
  await rotateDialog.getByRole("button", { name: "Rotate secret" }).dblclick();
  await expect(page.getByTestId("rotated-secret")).toContainText("whsec_");
  await expect(page.getByRole("dialog", { name: "New signing secret" })).toContainText("The old secret keeps signing until");
  await shoot(page, "webhook-rotate-secret", { fullPage: false });
  await page.getByRole("button", { name: "Done" }).click();
  await expect(row.getByText(/old secret signs until/)).toBeVisible();
  const rotations = (await read<{ entries: { action: string }[] }>(page, "audit.list", { limit: "100" })).entries.filter(
    (e) => e.action === "webhook.secret_rotated",
  );
  expect(rotations).toHaveLength(1);

  await page.goto("/console/audit");
  // The list of exports comes from the service, so the form is live (hydrated) once it shows.
  await expect(page.getByText("No exports yet.")).toBeVisible();
  await page.getByLabel("From").fill("");
  await page.getByRole("button", { name: "Start export" }).click();
  await expect(page.getByText("Pick a start date and time.")).toBeVisible();
  expect((await read<{ exports: unknown[] }>(page, "audit.exports", { limit: "20" })).exports).toHaveLength(0);
  await page.getByLabel("From").fill(new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10));
  await page.getByRole("button", { name: "Start export" }).dblclick();
  await expect(page.getByText("Export queued").first()).toBeVisible();
  await page.getByRole("button", { name: "Verify the chain" }).dblclick();
  await expect(page.getByTestId("verify-result")).toContainText("Chain intact");
  expect((await read<{ exports: unknown[] }>(page, "audit.exports", { limit: "20" })).exports).toHaveLength(1);
});
