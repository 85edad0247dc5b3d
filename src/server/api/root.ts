import { createCallerFactory, router } from "./trpc";
import { tenantRouter } from "./routers/tenant";
import { sessionRouter } from "./routers/session";
import { membersRouter } from "./routers/members";
import { apiKeysRouter } from "./routers/api-keys";
import { auditRouter } from "./routers/audit";
import { accountsRouter } from "./routers/accounts";
import { amlRouter } from "./routers/aml";
import { webhooksRouter } from "./routers/webhooks";
import { dashboardRouter } from "./routers/dashboard";
import { organizationsRouter } from "./routers/kyc";
import { peopleRouter } from "./routers/people";
import { riskRouter } from "./routers/risk";

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
});
export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
