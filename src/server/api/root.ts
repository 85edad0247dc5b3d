import { accountsRouter } from "./routers/accounts";
import { amlRouter } from "./routers/aml";
import { apiKeysRouter } from "./routers/api-keys";
import { auditRouter } from "./routers/audit";
import { billingRouter } from "./routers/billing";
import { dashboardRouter } from "./routers/dashboard";
import { organizationsRouter } from "./routers/kyc";
import { membersRouter } from "./routers/members";
import { peopleRouter } from "./routers/people";
import { riskRouter } from "./routers/risk";
import { screeningRouter } from "./routers/screening";
import { sessionRouter } from "./routers/session";
import { tenantRouter } from "./routers/tenant";
import { webhooksRouter } from "./routers/webhooks";
import { createCallerFactory, router } from "./trpc";

/** The console's API, served over HTTP at /api/trpc (src/app/api/trpc) with the member's session as context. */
export const appRouter = router({
  tenant: tenantRouter,
  session: sessionRouter,
  members: membersRouter,
  apiKeys: apiKeysRouter,
  audit: auditRouter,
  accounts: accountsRouter,
  dashboard: dashboardRouter,
  aml: amlRouter,
  webhooks: webhooksRouter,
  people: peopleRouter,
  organizations: organizationsRouter,
  risk: riskRouter,
  billing: billingRouter,
  screening: screeningRouter,
});
export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
