import type { Page } from "@playwright/test";

/**
 * Holds the page's script chunks until `release` is called, so the server's HTML is on screen
 * without React: the interleaving a slow connection makes, and that a test acting right after
 * loading a page can meet by chance. Open the page with `waitUntil: "commit"` after this.
 */
export async function holdScripts(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/_next/static/chunks/**", async (route) => {
    await held;
    await route.continue();
  });
  return release;
}
