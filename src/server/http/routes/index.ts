import { buildOpenApiDocument } from "../openapi";
import type { RouteDef } from "../types";
import { accountRoutes } from "./accounts";
import { amlAdminRoutes, amlRoutes } from "./aml";
import { apiKeyRoutes } from "./api-keys";
import { auditRoutes } from "./audit";
import { billingRoutes, sandboxChainRoutes } from "./billing";
import { bindRoutes } from "./bind";
import { contactRoutes } from "./contacts";
import { dashboardRoutes } from "./dashboard";
import { didRoutes } from "./did";
import { docsRoutes } from "./docs";
import { kycRoutes } from "./kyc";
import { memberRoutes } from "./members";
import { opsRoutes } from "./ops";
import { peopleRoutes } from "./people";
import { riskAdminRoutes, riskRoutes } from "./risk";
import { screeningRoutes } from "./screening";
import { tenantAdminRoutes, tenantRoutes } from "./tenant";
import { webhookRoutes } from "./webhooks";

/** Every route the pipeline serves. The OpenAPI document and the security suite are built from this list. */
export const routes: RouteDef[] = [
  ...opsRoutes,
  ...tenantRoutes,
  ...apiKeyRoutes,
  ...tenantAdminRoutes,
  ...auditRoutes,
  ...docsRoutes(() => openApiDocument()),
  ...didRoutes,
  ...accountRoutes,
  ...contactRoutes,
  ...memberRoutes,
  ...kycRoutes,
  ...bindRoutes,
  ...amlRoutes,
  ...riskRoutes,
  ...peopleRoutes,
  ...amlAdminRoutes,
  ...riskAdminRoutes,
  ...dashboardRoutes,
  ...webhookRoutes,
  ...billingRoutes,
  ...sandboxChainRoutes,
  ...screeningRoutes,
];

let cached: Record<string, unknown> | undefined;

/** The OpenAPI document of the served route table, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument(routes);
  return cached;
}
