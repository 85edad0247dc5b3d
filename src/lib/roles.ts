/**
 * Console member roles, weakest first. The one order the
 * server enforces (procedures, the role ceiling on member changes) and the pages follow to hide
 * what the server would refuse. Browser and server code both import this file, so it imports nothing.
 */
export const ROLES = ["viewer", "operator", "compliance_officer", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** 0 for viewer up to 4 for owner; -1 for anything that is not a role. */
export const roleRank = (role: string): number => ROLES.indexOf(role as Role);

/** Whether `role` holds at least `min`. */
export const atLeast = (role: string, min: Role): boolean => roleRank(role) >= roleRank(min);

export const roleLabel = (role: string): string => role.replace("_", " ");
