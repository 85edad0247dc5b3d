/** API key scopes, in the order the API lists them. Browser and server code both import this file, so it imports nothing. */
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
