import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { shoot, signIn, uniq } from "./console-helpers";
import { addMembers, CONSOLE_PAGES, PUBLIC_PAGES, seededOrg } from "./console-seed";
import { expectNoSideScroll } from "./shoot";

// Every page once per width, with data in every table, and at each stop what a person needs of it:
// - it renders its heading and no error state;
// - axe-core finds no serious or critical WCAG 2.1 A/AA violation (open dialogs, the case page and
//   the phone menu included);
// - at a phone's 390×844 nothing scrolls sideways and the control the page exists for can be
//   reached; tables are cards; the AML case dialog keeps Propose and Confirm on screen.
// One walk per width checks all of it: a page load and its render are most of what each check costs.
// With SCREENSHOTS=1 the laptop walk writes the console's screenshots in docs/screenshots.

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** axe-core's serious and critical findings on the page as it stands, as text ("" when none). */
async function axe(page: Page, where: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${where}: [${v.impact}] ${v.id}: ${v.help}\n${v.nodes
          .slice(0, 5)
          .map((n) => `    at ${n.target.join(" ")}\n      ${n.failureSummary?.replace(/\n/g, "\n      ")}`)
          .join("\n")}`,
    )
    .join("\n");
}

/** The control is on screen whole once scrolled to: a phone user can reach it. */
async function reachable(target: ReturnType<Page["getByRole"]>) {
  await target.scrollIntoViewIfNeeded();
  await expect(target).toBeInViewport({ ratio: 1 });
}

const WIDTHS = [
  [1440, 900],
  [390, 844],
] as const;

// Each test makes its own organization, so they run side by side on the two workers.
test.describe.configure({ mode: "parallel" });

for (const [width, height] of WIDTHS) {
  const phone = width < 768;
  test(`console pages with data at ${width} px: rendered, accessible${phone ? ", fit a phone with their main action reachable" : ""}`, async ({
    page,
    request,
  }) => {
    // Axe over every console page, its dialogs and the case page: minutes on a busy 2-core machine.
    test.setTimeout(360_000);
    await page.setViewportSize({ width, height });
    const org = await seededOrg(request);
    await signIn(page, org, uniq(`owner-${width}`));
    await addMembers(page, [
      [uniq("compliance-officer-with-a-long-address"), "compliance_officer"],
      [uniq("viewer"), "viewer"],
    ]);
    const reports: string[] = [];

    for (const { path, heading, action, shot } of CONSOLE_PAGES) {
      await test.step(path, async () => {
        await page.goto(path);
        await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
        await page.waitForLoadState("networkidle");
        await expect(page.getByText("This could not be loaded.")).toHaveCount(0);
        reports.push(await axe(page, `${path} at ${width}px`));
        if (phone) {
          await expectNoSideScroll(page);
          await reachable(action(page));
        } else if (shot) {
          await shoot(page, shot);
        }
      });
    }

    if (phone) {
      // Tables are cards below the `sm` breakpoint: "label: value" lines, no sideways scroll.
      await page.goto("/console/accounts");
      const cards = page.getByRole("list", { name: "Accounts" }).getByRole("listitem");
      await expect(cards).toHaveCount(3);
      await expect(cards.first().getByRole("definition").first()).toBeVisible();
      await expect(page.getByRole("table")).toHaveCount(0);
    }

    await test.step("the AML case dialog and page", async () => {
      await page.goto("/console/aml");
      await page.getByRole("button", { name: "Review" }).first().click();
      const dialog = page.getByRole("dialog");
      await expect(dialog).toBeVisible();
      await page.waitForLoadState("networkidle");
      reports.push(await axe(page, `AML case dialog at ${width}px`));
      if (phone) {
        const box = (await dialog.boundingBox())!;
        // Centred and inside the viewport.
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(box.y + box.height).toBeLessThanOrEqual(height);
        expect(Math.abs(box.x + box.width / 2 - width / 2)).toBeLessThanOrEqual(1);
        await expect(dialog.getByRole("button", { name: "Propose clear" })).toBeInViewport({ ratio: 1 });
        await expect(dialog.getByRole("button", { name: "Confirm match" })).toBeInViewport({ ratio: 1 });
        // Typing the reason (the keyboard's field) keeps both in reach.
        await dialog.getByLabel("Reason").fill("Namesake: a different date of birth.");
        await expect(dialog.getByRole("button", { name: "Propose clear" })).toBeEnabled();
        await expect(dialog.getByRole("button", { name: "Propose clear" })).toBeInViewport({ ratio: 1 });
        await expectNoSideScroll(page);
        if (process.env.SCREENSHOTS === "1") await page.screenshot({ path: "docs/screenshots/console-aml-case-dialog-phone.png" });
        await dialog.getByLabel("Reason").fill("");
      } else {
        await shoot(page, "aml-case", { fullPage: false });
      }
      await page.keyboard.press("Escape");
      await page.getByRole("link", { name: "Open case" }).first().click();
      await expect(page.getByRole("list", { name: "Case timeline" })).toBeVisible();
      await page.waitForLoadState("networkidle");
      reports.push(await axe(page, `AML case page at ${width}px`));
    });

    await page.goto("/console/members");
    await page.getByRole("button", { name: "Add member" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    reports.push(await axe(page, `add member dialog at ${width}px`));
    await page.keyboard.press("Escape");
    if (phone) {
      await page.getByRole("button", { name: "Menu", exact: true }).click();
      await expect(page.getByRole("dialog", { name: "Bind Identity console" })).toBeVisible();
      reports.push(await axe(page, "phone menu"));
    }
    const found = reports.filter(Boolean).join("\n");
    expect(found, `accessibility violations:\n${found}`).toBe("");
  });
}

for (const [width, height] of WIDTHS) {
  const phone = width < 768;
  test(`public pages at ${width} px: accessible${phone ? ", fit a phone with their main action reachable" : ""}`, async ({ page }) => {
    // Axe over the whole API reference takes a good part of a minute on a busy 2-core machine.
    test.setTimeout(240_000);
    const reports: string[] = [];
    await page.setViewportSize({ width, height });
    for (const { path, heading, action } of [...PUBLIC_PAGES, { path: "/console/sign-in", heading: /.+/, action: null }]) {
      await test.step(path, async () => {
        await page.goto(path);
        await expect(page.getByRole("heading", { level: 1, name: heading }).first()).toBeVisible();
        await page.waitForLoadState("networkidle");
        reports.push(await axe(page, `${path} at ${width}px`));
        if (phone && action) {
          await expectNoSideScroll(page);
          await reachable(action(page));
        }
      });
    }
    const found = reports.filter(Boolean).join("\n");
    expect(found, `accessibility violations:\n${found}`).toBe("");
  });
}
