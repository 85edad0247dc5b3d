import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

/**
 * What each procedure returns, read off the router so the pages cannot drift from the services.
 * Types only: browser code may not load server modules.
 */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
