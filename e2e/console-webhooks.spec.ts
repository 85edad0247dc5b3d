import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, type Request, test } from "@playwright/test";
import { callProcedure, createOrg, memberPage, shoot, signIn, uniq } from "./console-helpers";

// The console's webhooks page for an on-call person: health per endpoint, a test event, a
// delivery's attempts with the receiver's answers, recover after an outage, disable and enable
// (which offers the recover), each button submitted once however often it is clicked, and what
// each role may do.

type Received = { deliveryId: string; signature: string };

/** A receiver on loopback that fails (echoing its request headers back) while `up` is false. */
async function receiver() {
  const state = { up: false, received: [] as Received[] };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.received.push({ deliveryId: String(req.headers["x-bi-delivery-id"]), signature: String(req.headers["x-bi-signature"]) });
      if (state.up) return void res.writeHead(204).end();
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "cannot verify", echo: req.headers }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/on-call`;
  return { state, url, close: () => new Promise((r) => server.close(r)) };
}

async function read<T>(page: Page, path: string, input?: unknown): Promise<T> {
  const res = await callProcedure(page, path, "query", input);
  expect(res.status(), path).toBe(200);
  return (await res.json()).result.data.json as T;
}

/** The page's calls of one procedure; `once()` asserts one submission (one Idempotency-Key for all requests). */
function watch(page: Page, path: string) {
  const keys: (string | undefined)[] = [];
  const on = (r: Request) => {
    const url = new URL(r.url());
    if (r.method() === "POST" && url.pathname.startsWith("/api/trpc/") && url.pathname.slice("/api/trpc/".length).split(",").includes(path))
      keys.push(r.headers()["idempotency-key"]);
  };
  page.on("request", on);
  return {
    once() {
      page.off("request", on);
      expect(keys.length, `${path} was called`).toBeGreaterThan(0);
      expect(keys.every((k) => !!k)).toBe(true);
      expect(new Set(keys).size, `${path} was submitted once`).toBe(1);
    },
  };
}

/** axe-core's serious and critical WCAG 2.1 A/AA findings on the page as it stands (e2e/every-page.spec.ts checks every page). */
async function axeFindings(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`);
}

type Hook = { id: string; url: string; state: string; lastSuccessAt: string | null; recent: { delivered: number } };
type Delivery = { id: string; status: string; webhookId: string };

test("an endpoint's outage from the console: test event, attempts with answers, recover, disable and enable, each submitted once", async ({
  page,
  request,
}) => {
  const rx = await receiver();
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const reg = await request.post("/v1/admin/webhooks", { headers: auth, data: { url: rx.url, events: ["*"] } });
  expect(reg.status()).toBe(201);
  const hookId = (await reg.json()).id as string;
  await signIn(page, org, uniq("owner"));
  await page.goto("/console/webhooks");
  const row = page.getByRole("row", { name: /on-call/ });
  await expect(row.getByText("active", { exact: true })).toBeVisible();

  // Send a test event: one submission however many clicks.
  await row.getByRole("button", { name: "Send test" }).click();
  const testDialog = page.getByRole("dialog", { name: "Send a test event" });
  await testDialog.getByLabel("Event").selectOption("kyc.approved");
  expect(await axeFindings(page)).toEqual([]);
  await shoot(page, "webhook-send-test", { fullPage: false });
  let calls = watch(page, "webhooks.sendTest");
  await testDialog.getByRole("button", { name: "Send test" }).dblclick();
  await expect(page.getByRole("dialog", { name: "Test event queued" })).toBeVisible();
  calls.once();
  await page.getByRole("button", { name: "Done" }).click();

  // The receiver is down: 2 quick attempts and the delivery is dead; the endpoint shows as failing.
  await expect
    .poll(async () => (await read<{ deliveries: Delivery[] }>(page, "webhooks.deliveries", { status: "dead" })).deliveries.length, {
      timeout: 30_000,
    })
    .toBe(1);
  const [dead] = (await read<{ deliveries: Delivery[] }>(page, "webhooks.deliveries", { status: "dead" })).deliveries;
  await page.reload();
  await expect(row.getByText("failing", { exact: true })).toBeVisible();
  await expect(row.getByText("never")).toBeVisible();
  expect(await axeFindings(page)).toEqual([]);
  await shoot(page, "webhooks-health");

  // The attempts, with the receiver's answer: its echo of our signature is redacted.
  await page
    .getByRole("table", { name: "Deliveries" })
    .getByRole("row")
    .filter({ hasText: "dead" })
    .getByRole("button", { name: "Attempts" })
    .click();
  const attempts = page.getByRole("dialog", { name: "Attempts of kyc.approved" });
  await expect(attempts.getByText("HTTP 500").first()).toBeVisible();
  await expect(attempts.getByText(/cannot verify/).first()).toBeVisible();
  const shown = (await attempts.textContent()) ?? "";
  expect(shown).toContain("[redacted]");
  for (const sig of rx.state.received.map((r) => r.signature)) expect(shown).not.toContain(sig);
  expect(await axeFindings(page)).toEqual([]);
  await shoot(page, "webhook-attempts", { fullPage: false });
  await page.keyboard.press("Escape");

  // The receiver is back: recover the last day, once, and watch it complete.
  rx.state.up = true;
  const before = rx.state.received.length;
  await row.getByRole("button", { name: "Recover" }).click();
  const recoverDialog = page.getByRole("dialog", { name: "Recover deliveries" });
  await expect(recoverDialog.getByLabel("Created since")).not.toHaveValue("");
  expect(await axeFindings(page)).toEqual([]);
  calls = watch(page, "webhooks.recover");
  await recoverDialog.getByRole("button", { name: "Recover" }).dblclick();
  const progress = page.getByTestId("recover-progress");
  await expect(progress.getByText("completed")).toBeVisible({ timeout: 20_000 });
  await expect(progress).toContainText("1 of 1 sent again, 1 delivered");
  calls.once();
  await shoot(page, "webhook-recover", { fullPage: false });
  await page.getByRole("button", { name: "Done" }).click();
  expect(rx.state.received.slice(before).map((r) => r.deliveryId)).toEqual([dead!.id]);

  // Disable, then enable: enabling offers the recover from when the endpoint began failing.
  await row.getByRole("button", { name: "Disable" }).click();
  calls = watch(page, "webhooks.disable");
  await page.getByRole("alertdialog").getByRole("button", { name: "Disable", exact: true }).dblclick();
  await expect(row.getByText("disabled", { exact: true })).toBeVisible();
  calls.once();
  await row.getByRole("button", { name: "Enable" }).click();
  calls = watch(page, "webhooks.enable");
  await page.getByRole("alertdialog").getByRole("button", { name: "Enable", exact: true }).dblclick();
  const offered = page.getByRole("dialog", { name: "Recover deliveries" });
  await expect(offered.getByText(/Enabled\. Recover what it missed/)).toBeVisible();
  calls.once();
  await offered.getByRole("button", { name: "Cancel" }).click();
  await expect(row.getByText("active", { exact: true })).toBeVisible();

  const hooks = (await read<{ webhooks: Hook[] }>(page, "webhooks.list")).webhooks;
  expect(hooks.find((h) => h.id === hookId)).toMatchObject({ state: "active", recent: { delivered: 1 } });
  const entries = (await read<{ entries: { action: string }[] }>(page, "audit.list", { limit: "200" })).entries;
  const count = (a: string) => entries.filter((e) => e.action === a).length;
  expect([count("webhook.test_sent"), count("webhook.recover_requested"), count("webhook.disabled"), count("webhook.enabled")]).toEqual([
    1, 1, 1, 1,
  ]);
  await rx.close();
});

test("roles: a viewer does not get the page, an operator tests and recovers but cannot disable or rotate", async ({
  page,
  browser,
  request,
}) => {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const hookId = (
    await (await request.post("/v1/admin/webhooks", { headers: auth, data: { url: "http://127.0.0.1:9/roles", events: ["*"] } })).json()
  ).id as string;
  const [operatorEmail, viewerEmail] = [uniq("operator"), uniq("viewer")];
  await signIn(page, org, uniq("owner"));
  expect((await callProcedure(page, "members.add", "mutation", { email: operatorEmail, role: "operator" })).status()).toBe(200);
  expect((await callProcedure(page, "members.add", "mutation", { email: viewerEmail, role: "viewer" })).status()).toBe(200);

  const viewer = await memberPage(browser, org, viewerEmail);
  await viewer.goto("/console/webhooks");
  await expect(viewer.getByRole("heading", { name: "Not available to your role" })).toBeVisible();
  expect((await callProcedure(viewer, "webhooks.sendTest", "mutation", { id: hookId, body: { event: "kyc.approved" } })).status()).toBe(
    403,
  );

  const operator = await memberPage(browser, org, operatorEmail);
  await operator.goto("/console/webhooks");
  const row = operator.getByRole("row", { name: /127\.0\.0\.1:9\/roles/ });
  await expect(row.getByRole("button", { name: "Send test" })).toBeVisible();
  await expect(row.getByRole("button", { name: "Recover" })).toBeVisible();
  for (const name of ["Rotate secret", "Disable", "Deactivate"]) await expect(row.getByRole("button", { name })).toHaveCount(0);
  expect((await callProcedure(operator, "webhooks.disable", "mutation", { id: hookId })).status()).toBe(403);
  expect((await callProcedure(operator, "webhooks.sendTest", "mutation", { id: hookId, body: { event: "kyc.approved" } })).status()).toBe(
    200,
  );
  // The operator's test event went out; the refused disable changed nothing (nothing listens on port 9, so it is failing, not disabled).
  const deliveries = (await (await request.get("/v1/admin/webhooks/deliveries", { headers: auth })).json()).deliveries;
  expect(deliveries.map((d: Delivery & { event: string }) => d.event)).toEqual(["kyc.approved"]);
  const hook = (await (await request.get("/v1/admin/webhooks", { headers: auth })).json()).webhooks[0];
  expect(hook).toMatchObject({ id: hookId, active: true, disabledAt: null });
});
