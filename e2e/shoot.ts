import { expect, type Page } from "@playwright/test";

/**
 * Screenshots at laptop (1440×900) and phone (390×844) width into docs/screenshots/<name>-desktop.png
 * and -phone.png when SCREENSHOTS=1. At each width the page must not scroll sideways.
 * `fullPage: false` for open dialogs: a modal is fixed to the viewport and the page behind it does not scroll.
 */
export async function shoot(page: Page, name: string, opts: { fullPage?: boolean } = {}) {
  if (process.env.SCREENSHOTS !== "1") return;
  const size = page.viewportSize();
  for (const [label, width, height] of [
    ["desktop", 1440, 900],
    ["phone", 390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(200);
    await page.evaluate(() => window.scrollTo(0, 0));
    await expectNoSideScroll(page);
    // Transient toasts would cover the page in a still picture.
    await page.screenshot({
      path: `docs/screenshots/${name}-${label}.png`,
      fullPage: opts.fullPage ?? true,
      style: ".toast-viewport{display:none!important}",
    });
  }
  if (size) await page.setViewportSize(size);
}

/** The page is no wider than the viewport: nothing makes a phone scroll sideways. */
export async function expectNoSideScroll(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, "the page scrolls sideways").toBeLessThanOrEqual(client);
}
