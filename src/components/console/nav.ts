import type { Role } from "@/lib/roles";

/** Console pages and the weakest role that can use each (the same minimum as their procedures). */
export const NAV: { href: string; label: string; min: Role }[] = [
  { href: "/console", label: "Dashboard", min: "viewer" },
  { href: "/console/aml", label: "AML queue", min: "compliance_officer" },
  { href: "/console/screening", label: "Screening", min: "compliance_officer" },
  { href: "/console/accounts", label: "Accounts", min: "viewer" },
  { href: "/console/people", label: "People", min: "operator" },
  { href: "/console/organizations", label: "Organizations", min: "operator" },
  { href: "/console/risk", label: "Risk", min: "compliance_officer" },
  { href: "/console/webhooks", label: "Webhooks", min: "operator" },
  { href: "/console/audit", label: "Audit log", min: "compliance_officer" },
  { href: "/console/members", label: "Members", min: "admin" },
  { href: "/console/api-keys", label: "API keys", min: "admin" },
  { href: "/console/billing", label: "Billing", min: "admin" },
  { href: "/console/settings", label: "Settings", min: "admin" },
];
