import { buildOpenApiDocument } from "../openapi";
import type { RouteDef } from "../types";
import { opsRoutes } from "./ops";
import { tenantAdminRoutes, tenantRoutes } from "./tenant";
import { apiKeyRoutes } from "./api-keys";
import { auditRoutes } from "./audit";
import { docsRoutes } from "./docs";
import { didRoutes } from "./did";
import { accountRoutes } from "./accounts";
import { contactRoutes } from "./contacts";
import { memberRoutes } from "./members";
import { kycRoutes } from "./kyc";
import { bindRoutes } from "./bind";
import { amlAdminRoutes, amlRoutes } from "./aml";
import { riskAdminRoutes, riskRoutes } from "./risk";
import { peopleRoutes } from "./people";
import { dashboardRoutes } from "./dashboard";
import { webhookRoutes } from "./webhooks";
import { billingRoutes, sandboxChainRoutes } from "./billing";
import { screeningRoutes } from "./screening";

/** Every route the pipeline serves. The OpenAPI document and the security suite are built from this list. */
export const routes: RouteDef[] = [...opsRoutes, ...tenantRoutes, ...apiKeyRoutes, ...tenantAdminRoutes, ...auditRoutes, ...docsRoutes(() => openApiDocument()), ...didRoutes, ...accountRoutes, ...contactRoutes, ...memberRoutes, ...kycRoutes, ...bindRoutes, ...amlRoutes, ...riskRoutes, ...peopleRoutes, ...amlAdminRoutes, ...riskAdminRoutes, ...dashboardRoutes, ...webhookRoutes, ...billingRoutes, ...sandboxChainRoutes, ...screeningRoutes];

let cached: Record<string, unknown> | undefined;

/** The OpenAPI document of the served route table, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument(routes);
  return cached;
}
