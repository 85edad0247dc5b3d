import { expect, test } from "@playwright/test";

// Screenshots go to docs/screenshots when SCREENSHOTS=1 (a developer looking at the pages);
// CI only checks the pages work.
const shoot = async (page: import("@playwright/test").Page, name: string) => {
  if (process.env.SCREENSHOTS === "1") await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: false });
};

test("home page links to the API reference", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Know who is behind every chain account." })).toBeVisible();
  await shoot(page, "home");
  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);
});

test("API reference lists every route of the served OpenAPI document, with scopes", async ({ page, request }) => {
  const doc = await (await request.get("/v1/openapi.json")).json();
  const count = Object.values(doc.paths as Record<string, object>).reduce((n, methods) => n + Object.keys(methods).length, 0);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: "Bind Identity API" })).toBeVisible();
  await expect(page.locator("article")).toHaveCount(count);
  const freeCreate = page.locator("article", { has: page.getByText("/v1/accounts/free", { exact: true }) });
  await expect(freeCreate.getByText("scope: accounts_write")).toBeVisible();
  await expect(freeCreate.getByText("ownerPublicKey")).toBeVisible();
  await shoot(page, "docs");
  await page.getByPlaceholder("Filter endpoints").fill("audit");
  await expect(page.locator("nav a").first()).toContainText("audit");
});
