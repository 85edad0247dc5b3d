import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page } from "@playwright/test";
import { createOrg } from "./console-helpers";

export type Tenant = { apiKey: string; auth: { authorization: string } };

/** A fresh organization on the plan that may bind and offer credentials, with its API key's header. */
export async function walletTenant(name = `Wallet E2E ${Date.now()}`): Promise<Tenant> {
  const org = await createOrg(name, "institutional");
  return { apiKey: org.apiKey, auth: { authorization: `Bearer ${org.apiKey}` } };
}

/** A person whose sandbox KYC is approved: started over the API, completed as the sandbox provider's review. */
export async function approvedPerson(request: APIRequestContext, tenant: Tenant): Promise<{ personDid: string }> {
  const started = await request.post("/v1/kyc/start", { headers: tenant.auth, data: {} });
  expect(started.status(), await started.text()).toBe(200);
  const { personDid } = (await started.json()) as { personDid: string };
  const completed = await request.post("/v1/sandbox/kyc/complete", { headers: tenant.auth, data: { personDid, outcome: "approved" } });
  expect(completed.status(), await completed.text()).toBe(200);
  const status = await (await request.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`, { headers: tenant.auth })).json();
  expect(status.status).toBe("approved");
  return { personDid };
}

/** docs/screenshots/<name>.png when SCREENSHOTS=1. */
export const shoot = async (page: Page, name: string) => {
  if (process.env.SCREENSHOTS === "1") await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true });
};

/** No serious or critical WCAG 2.1 A/AA violation on the page as it is now. */
export async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
}
