import { buildOpenApiDocument } from "../openapi";
import type { RouteDef } from "../types";
import { opsRoutes } from "./ops";
import { tenantRoutes } from "./tenant";
import { adminRoutes } from "./admin";
import { complianceRoutes } from "./compliance";
import { docsRoutes } from "./docs";
import { didRoutes } from "./did";
import { accountRoutes } from "./accounts";
import { contactRoutes } from "./contacts";
import { memberRoutes } from "./members";
import { kycRoutes } from "./kyc";
import { bindRoutes } from "./bind";
import { amlRoutes } from "./aml";
import { riskRoutes } from "./risk";
import { adminListRoutes } from "./admin-lists";
import { webhookRoutes } from "./webhooks";
import { billingRoutes } from "./billing";
import { sandboxChainRoutes } from "./sandbox-chain";
import { screeningRoutes } from "./screening";

/** Every route the pipeline serves. The OpenAPI document and the security suite are built from this list. */
export const routes: RouteDef[] = [...opsRoutes, ...tenantRoutes, ...adminRoutes, ...complianceRoutes, ...docsRoutes(() => openApiDocument()), ...didRoutes, ...accountRoutes, ...contactRoutes, ...memberRoutes, ...kycRoutes, ...bindRoutes, ...amlRoutes, ...riskRoutes, ...adminListRoutes, ...webhookRoutes, ...billingRoutes, ...sandboxChainRoutes, ...screeningRoutes];

let cached: Record<string, unknown> | undefined;

/** The OpenAPI document of the served route table, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument(routes);
  return cached;
}
