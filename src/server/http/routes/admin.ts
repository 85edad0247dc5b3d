import type { RouteDef } from "../types";

/** /v1/admin/*: API keys, signing, IP allowlist, country policy, DPA, tenant and policy (scope `admin`). */
export const adminRoutes: RouteDef[] = [];
