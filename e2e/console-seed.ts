import { type APIRequestContext, expect, type Page } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { callProcedure, createOrg, type Org } from "./console-helpers";

// An organization with something in every console table (people and an open AML case, accounts,
// a KYB organization, a webhook, a minted key, members), for the phone and accessibility checks.

export async function seededOrg(request: APIRequestContext): Promise<Org> {
  const org = await createOrg(undefined, "institutional");
  const auth = { authorization: `Bearer ${org.apiKey}` };
  for (const outcome of ["pep", "approved", "rejected"] as const) {
    const started = await request.post("/v1/kyc/start", { headers: auth, data: {} });
    expect(started.status()).toBe(200);
    const { personDid } = await started.json();
    expect((await request.post("/v1/sandbox/kyc/complete", { headers: auth, data: { personDid, outcome } })).status()).toBe(200);
  }
  for (let i = 0; i < 3; i++) {
    const created = await request.post("/v1/accounts/free", {
      headers: auth,
      data: { ownerPublicKey: PrivateKey.generate("K1").toPublic().toString() },
    });
    expect(created.status()).toBe(201);
  }
  const kyb = await request.post("/v1/kyb/start", {
    headers: auth,
    data: {
      legalName: "Northwind Payments Incorporated Limited",
      registrationNumber: "HRB 123456/2019",
      country: "DE",
      address: { line1: "Friedrichstraße 123, Hinterhaus, 3. Obergeschoss", city: "Berlin", postalCode: "10117", country: "DE" },
    },
  });
  expect(kyb.status()).toBeLessThan(300);
  const hook = await request.post("/v1/admin/webhooks", {
    headers: auth,
    data: {
      url: "http://127.0.0.1:9/a-rather-long-webhook-receiver-path/for-the-compliance-team",
      events: ["kyc.approved", "account.created"],
    },
  });
  expect(hook.status()).toBe(201);
  const key = await request.post("/v1/admin/api-keys", {
    headers: auth,
    data: { name: "Wallet backend (production mirror)", scopes: ["read"] },
  });
  expect(key.status()).toBeLessThan(300);
  return org;
}

/** Adds members from a signed-in owner's page (their rows fill the members table). */
export async function addMembers(page: Page, emails: [email: string, role: string][]) {
  for (const [email, role] of emails) {
    expect((await callProcedure(page, "members.add", "mutation", { email, role })).status()).toBe(200);
  }
}

/**
 * Every console page: its path, its heading, the control a person comes to the page for, and the
 * name of its screenshot in docs/screenshots (console-<shot>-desktop.png and -phone.png).
 */
export const CONSOLE_PAGES: {
  path: string;
  heading: string;
  action: (page: Page) => ReturnType<Page["getByRole"]>;
  shot?: string;
}[] = [
  {
    path: "/console",
    heading: "Dashboard",
    action: (p) => p.getByRole("main").getByRole("link", { name: "All accounts" }),
    shot: "dashboard-data",
  },
  { path: "/console/aml", heading: "AML queue", action: (p) => p.getByRole("button", { name: "Review" }).first(), shot: "aml" },
  {
    path: "/console/accounts",
    heading: "Accounts",
    action: (p) => p.getByRole("button", { name: "Suspend" }).first(),
    shot: "accounts-data",
  },
  { path: "/console/people", heading: "People", action: (p) => p.getByRole("searchbox", { name: /Filter/ }), shot: "people" },
  {
    path: "/console/organizations",
    heading: "Organizations",
    action: (p) => p.getByRole("searchbox", { name: /Filter/ }),
    shot: "organizations",
  },
  { path: "/console/screening", heading: "Screening", action: (p) => p.getByRole("button", { name: "Upload list" }) },
  { path: "/console/risk", heading: "Risk", action: (p) => p.getByRole("searchbox", { name: /Filter/ }), shot: "risk" },
  {
    path: "/console/webhooks",
    heading: "Webhooks",
    action: (p) => p.getByRole("button", { name: "Register webhook" }),
    shot: "webhooks-list",
  },
  { path: "/console/audit", heading: "Audit log", action: (p) => p.getByRole("button", { name: "Verify the chain" }), shot: "audit-log" },
  { path: "/console/members", heading: "Members", action: (p) => p.getByRole("button", { name: "Add member" }), shot: "members-list" },
  { path: "/console/api-keys", heading: "API keys", action: (p) => p.getByRole("button", { name: "Mint key" }), shot: "api-keys-list" },
  { path: "/console/billing", heading: "Billing", action: (p) => p.getByRole("main").getByRole("heading", { level: 2 }).first() },
  {
    path: "/console/settings",
    heading: "Settings",
    action: (p) => p.getByRole("button", { name: "Save allowlist" }),
    shot: "settings-page",
  },
];

/** Every public page, with the same. */
export const PUBLIC_PAGES: { path: string; heading: string | RegExp; action: (page: Page) => ReturnType<Page["getByRole"]> }[] = [
  {
    path: "/",
    heading: "Know who is behind every free chain account.",
    action: (p) => p.getByRole("main").getByRole("link", { name: "Start free with Builder" }).first(),
  },
  { path: "/pricing", heading: "Start free, grow when you need to", action: (p) => p.getByRole("main").getByRole("link").first() },
  { path: "/signup", heading: /.+/, action: (p) => p.getByRole("button", { name: "Send the code" }) },
  { path: "/docs", heading: "Bind Identity API", action: (p) => p.getByRole("main").getByRole("link", { name: "Quickstart" }).first() },
  {
    path: "/docs/guides/quickstart",
    heading: /Quickstart/,
    action: (p) => p.getByRole("link", { name: "All docs and the API reference" }),
  },
  { path: "/identity", heading: "Identity verification", action: (p) => p.getByRole("link", { name: "API documentation" }) },
  { path: "/billing/return", heading: "Your subscription", action: (p) => p.getByRole("alert").first() },
  { path: "/legal/dpa", heading: "Data processing terms", action: (p) => p.getByRole("main").getByRole("link", { name: "settings" }) },
];
