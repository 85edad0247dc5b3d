/** API key scopes (interface spec, Scopes table). */
export const SCOPES = [
  "read",
  "accounts_write",
  "kyc_write",
  "bind_write",
  "unlock_write",
  "admin",
  "compliance_export",
  "webhook_manage",
] as const;
export type Scope = (typeof SCOPES)[number];
