import * as accounts from "../../services/accounts";
import * as aml from "../../services/aml";
import * as audit from "../../services/audit";
import * as billing from "../../services/billing";
import * as contacts from "../../services/contacts";
import * as dashboard from "../../services/dashboard";
import * as kyc from "../../services/kyc";
import * as org from "../../services/org";
import * as people from "../../services/people";
import * as screening from "../../services/screening";
import * as webhooks from "../../services/webhooks";
import { buildOpenApiDocument } from "../openapi";
import type { RouteDef } from "../types";
import { accountRoutes } from "./accounts";
import { amlAdminRoutes, amlRoutes } from "./aml";
import { apiKeyRoutes } from "./api-keys";
import { attestationRoutes } from "./attestations";
import { auditRoutes } from "./audit";
import { billingRoutes, sandboxChainRoutes } from "./billing";
import { bindRoutes } from "./bind";
import { claimRoutes } from "./claims";
import { contactRoutes } from "./contacts";
import { dashboardRoutes } from "./dashboard";
import { didRoutes } from "./did";
import { docsRoutes } from "./docs";
import { kycRoutes } from "./kyc";
import { memberRoutes } from "./members";
import { opsRoutes } from "./ops";
import { peopleRoutes } from "./people";
import { riskAdminRoutes, riskRoutes } from "./risk";
import { sandboxNodeRoutes } from "./sandbox-node";
import { screeningRoutes } from "./screening";
import { tenantAdminRoutes, tenantRoutes } from "./tenant";
import { walletRoutes } from "./wallet";
import { walletPresentationRoutes } from "./wallet-presentations";
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
  ...attestationRoutes,
  ...claimRoutes,
  ...amlAdminRoutes,
  ...riskAdminRoutes,
  ...dashboardRoutes,
  ...webhookRoutes,
  ...billingRoutes,
  ...sandboxChainRoutes,
  ...sandboxNodeRoutes,
  ...screeningRoutes,
  ...walletRoutes,
  ...walletPresentationRoutes,
];

let cached: Record<string, unknown> | undefined;

/** The domains whose exported zod schemas become named components of the OpenAPI document, under their export names. */
const schemaModules = [accounts, contacts, kyc, aml, screening, people, audit, webhooks, org, billing, dashboard];

/** The OpenAPI document of the served route table, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument(routes, schemaModules);
  return cached;
}
