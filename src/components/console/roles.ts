/** Console roles weakest first (interface spec); the server enforces them, the pages only hide what would be refused. */
export const ROLES = ["viewer", "operator", "compliance_officer", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];
export const rank = (r: string) => ROLES.indexOf(r as Role);
export const atLeast = (role: string, min: Role) => rank(role) >= rank(min);
export const roleLabel = (r: string) => r.replace("_", " ");
