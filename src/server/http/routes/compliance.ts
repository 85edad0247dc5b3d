import type { RouteDef } from "../types";

/** Audit log reads, chain verification and signed exports. */
export const complianceRoutes: RouteDef[] = [];
