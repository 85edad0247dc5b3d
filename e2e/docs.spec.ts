import fs from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { expectNoSideScroll, shoot } from "./shoot";

type Doc = { paths: Record<string, Record<string, { operationId?: string; requestBody?: any; responses: Record<string, any> }>> };

/** Console errors that mean the CSP refused something (a script, style, font or connection). */
function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (m) => m.type() === "error" && /Content Security Policy|Refused to/.test(m.text()) && seen.push(m.text()));
  return seen;
}

test("the reference lists every operation of /v1/openapi.json, grouped by topic, and searches them", async ({ page, request }) => {
  const doc = (await (await request.get("/v1/openapi.json")).json()) as Doc;
  const paths = Object.keys(doc.paths).length;
  const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
  const violations = cspViolations(page);
  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: "Bind Identity API", level: 1 })).toBeVisible();
  await expect(page.locator("article[data-path]")).toHaveCount(operations);
  const shownPaths = await page
    .locator("article[data-path]")
    .evaluateAll((els) => new Set(els.map((e) => e.getAttribute("data-path"))).size);
  expect(shownPaths).toBe(paths);
  // Every guide is one click away from the index.
  for (const name of ["Quickstart", "Binding a verified person", "Sandbox", "Request signing", "Receiving webhooks"]) {
    await expect(page.getByRole("navigation", { name: "Guides" }).getByRole("link", { name: new RegExp(`^${name}`) })).toBeVisible();
  }

  await page.getByLabel("Search operations").first().fill("bind/confirm unbroadcast");
  await expect(page.locator("article[data-path]")).toHaveCount(1);
  await expect(page.locator("article[data-path]")).toHaveAttribute("data-path", "/v1/bind/confirm");
  await page.getByLabel("Search operations").first().fill("no such operation anywhere");
  await expect(page.getByText("No operation matches")).toBeVisible();
  expect(violations).toEqual([]);
});

test("a deep link opens the operation with its scope, fields, curl line and request and response examples", async ({ page, request }) => {
  const doc = (await (await request.get("/v1/openapi.json")).json()) as Doc;
  const op = doc.paths["/v1/accounts/free"]!.post!;
  const requestExample = op.requestBody?.content?.["application/json"]?.example;
  const responseExample = op.responses["201"]?.content?.["application/json"]?.example;
  expect(requestExample, "the document gives POST /v1/accounts/free a request example").toBeTruthy();
  expect(responseExample, "and a response example").toBeTruthy();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/docs#${op.operationId}`);
  const card = page.locator(`article[id="${op.operationId}"]`);
  await expect(card.locator("details")).toHaveAttribute("open", "");
  await expect(card.getByText("scope: accounts_write")).toBeVisible();
  await expect(card.getByText("ownerPublicKey", { exact: true }).first()).toBeVisible();
  await expect(card.getByRole("heading", { name: "Request example" })).toBeVisible();
  const after = (heading: string) => card.getByRole("heading", { name: heading }).locator("xpath=following-sibling::figure[1]//pre");
  await expect(after("Request example")).toHaveText(JSON.stringify(requestExample, null, 2));
  await expect(card.getByRole("heading", { name: "Response example (201)" })).toBeVisible();
  await expect(after("Response example (201)")).toHaveText(JSON.stringify(responseExample, null, 2));
  await expect(card.locator("pre", { hasText: "curl -sS -X POST" })).toContainText('"$BI_URL/v1/accounts/free"');
  await expect(card.getByRole("cell", { name: "IDEMPOTENCY_KEY_REUSED" })).toBeVisible();
  await expect(card).toBeInViewport();
  // The picture: the index above, and this one operation open (a search narrows the list to it).
  await page.getByLabel("Search operations").first().fill("post /v1/accounts/free");
  await expect(page.locator("article[data-path]")).toHaveCount(1);
  await expect(card.locator("details")).toHaveAttribute("open", "");
  await shoot(page, "docs-reference");

  // At phone width the topic list folds away and nothing scrolls sideways, long code included.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.locator("aside").first()).toBeHidden();
  await expect(page.getByText("Browse by topic")).toBeVisible();
  await expectNoSideScroll(page);
});

test("a guide renders from docs/api/guides with its code blocks, and links to the next guide", async ({ page }) => {
  const source = fs.readFileSync("docs/api/guides/quickstart.md", "utf8");
  const blocks = source.match(/^```/gm)!.length / 2;
  const violations = cspViolations(page);
  await page.goto("/docs/guides/quickstart");
  await expect(
    page.getByRole("heading", { name: "Quickstart: from nothing to a bound account and a verified credential", level: 1 }),
  ).toBeVisible();
  await expect(page.locator("main figure")).toHaveCount(blocks);
  await expect(page.locator("main pre").first()).toContainText('BI_URL="${BI_URL:-http://localhost:3000}"');
  await expect(page.locator("main figcaption").first()).toContainText("sh");
  await expect(page.locator('[id="2-prove-the-email-address"]')).toBeVisible();
  await shoot(page, "docs-guide-quickstart");

  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoSideScroll(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByRole("main").getByRole("link", { name: "Sandbox", exact: true }).click();
  await expect(page).toHaveURL(/\/docs\/guides\/sandbox$/);
  await expect(page.getByRole("heading", { name: "The sandbox", level: 1 })).toBeVisible();
  expect(violations).toEqual([]);
});

test("the binding guide shows the proof forms and each refusal reason, and fits a phone", async ({ page }) => {
  await page.goto("/docs/guides/binding");
  await expect(page.getByRole("heading", { name: "Proof forms", level: 3 })).toBeVisible();
  const forms = page.locator("main table").filter({ hasText: "Confirm field" });
  await expect(forms.getByRole("row")).toHaveCount(4);
  await expect(page.locator("main table").filter({ hasText: "threshold_not_met" })).toBeVisible();
  await shoot(page, "docs-guide-binding");
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoSideScroll(page);
  await page.goto("/docs/guides/sandbox#binding-with-a-wharfkit-session");
  await expect(page.locator("figcaption", { hasText: "examples/typescript/bind-with-wharfkit.ts" })).toBeVisible();
  await expectNoSideScroll(page);
});

test("a guide quoting a source file names it and keeps long lines inside the block at 390 px", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/docs/guides/signing");
  await expect(page.locator("figcaption", { hasText: "examples/typescript/client.ts" })).toBeVisible();
  await expectNoSideScroll(page);
  const response = await page.goto("/docs/guides/no-such-guide");
  expect(response?.status()).toBe(404);
});
