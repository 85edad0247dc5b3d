import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { signIn, uniq } from "./console-helpers";
import { addMembers, CONSOLE_PAGES, PUBLIC_PAGES, seededOrg } from "./console-seed";

// axe-core over every page, with data in the tables, at laptop and phone width: no serious or
// critical WCAG 2.1 A/AA violation. Open dialogs and the phone menu are checked as well.

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

async function axe(page: Page, where: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = bad
    .map(
      (v) =>
        `${where}: [${v.impact}] ${v.id}: ${v.help}\n${v.nodes
          .slice(0, 5)
          .map((n) => `    at ${n.target.join(" ")}\n      ${n.failureSummary?.replace(/\n/g, "\n      ")}`)
          .join("\n")}`,
    )
    .join("\n");
  return report;
}

const WIDTHS = [
  [1440, 900],
  [390, 844],
] as const;

// Each test makes its own organization, so they run side by side on the two workers.
test.describe.configure({ mode: "parallel" });

for (const [width, height] of WIDTHS) {
  test(`console pages with data at ${width} px: no serious or critical violations`, async ({ page, request }) => {
    // Axe over every console page, its dialogs and the case page: minutes on a busy 2-core machine.
    test.setTimeout(360_000);
    const org = await seededOrg(request);
    await signIn(page, org, uniq("owner-a11y"));
    await addMembers(page, [[uniq("officer"), "compliance_officer"]]);
    const reports: string[] = [];
    await page.setViewportSize({ width, height });
    for (const { path, heading } of CONSOLE_PAGES) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      await page.waitForLoadState("networkidle");
      reports.push(await axe(page, `${path} at ${width}px`));
    }
    await page.goto("/console/aml");
    await page.getByRole("button", { name: "Review" }).first().click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await page.waitForLoadState("networkidle");
    reports.push(await axe(page, `AML case dialog at ${width}px`));
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: "Open case" }).first().click();
    await expect(page.getByRole("list", { name: "Case timeline" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    reports.push(await axe(page, `AML case page at ${width}px`));
    await page.goto("/console/members");
    await page.getByRole("button", { name: "Add member" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    reports.push(await axe(page, `add member dialog at ${width}px`));
    await page.keyboard.press("Escape");
    if (width < 768) {
      await page.getByRole("button", { name: "Menu", exact: true }).click();
      await expect(page.getByRole("dialog", { name: "Bind Identity console" })).toBeVisible();
      reports.push(await axe(page, "phone menu"));
    }
    const found = reports.filter(Boolean).join("\n");
    expect(found, `accessibility violations:\n${found}`).toBe("");
  });
}

test("public pages: no serious or critical violations", async ({ page }) => {
  // Axe over the whole API reference at two widths takes most of a minute on a busy 2-core machine.
  test.setTimeout(360_000);
  const reports: string[] = [];
  for (const [width, height] of WIDTHS) {
    await page.setViewportSize({ width, height });
    for (const { path, heading } of [...PUBLIC_PAGES, { path: "/console/sign-in", heading: /.+/ }]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading }).first()).toBeVisible();
      await page.waitForLoadState("networkidle");
      reports.push(await axe(page, `${path} at ${width}px`));
    }
  }
  const found = reports.filter(Boolean).join("\n");
  expect(found, `accessibility violations:\n${found}`).toBe("");
});
