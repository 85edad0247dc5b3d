import type { RouteDef } from "../types";
import { opsRoutes } from "./ops";
import { tenantRoutes } from "./tenant";

/** Every route the pipeline serves. The OpenAPI document and the security suite are built from this list. */
export const routes: RouteDef[] = [...opsRoutes, ...tenantRoutes];
