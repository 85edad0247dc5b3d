import type { Role } from "./roles";

/** Console pages and the weakest role that can use each (the same minimum as their procedures). */
export const NAV: { href: string; label: string; min: Role }[] = [
  { href: "/console", label: "Dashboard", min: "viewer" },
  { href: "/console/accounts", label: "Accounts", min: "viewer" },
  { href: "/console/audit", label: "Audit log", min: "compliance_officer" },
  { href: "/console/members", label: "Members", min: "admin" },
  { href: "/console/api-keys", label: "API keys", min: "admin" },
  { href: "/console/settings", label: "Settings", min: "admin" },
];
