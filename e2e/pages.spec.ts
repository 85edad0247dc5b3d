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
