import { createCallerFactory, router } from "./trpc";
import { tenantRouter } from "./routers/tenant";

/** The console's API; the HTTP handler and the next-auth session come with the console. */
export const appRouter = router({ tenant: tenantRouter });
export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
