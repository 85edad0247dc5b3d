import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { NextRequest } from "next/server";
import { limitConsoleBody } from "@/server/api/body-limit";
import { refuseNonJsonPost } from "@/server/api/json-only";
import { appRouter } from "@/server/api/root";
import { IDEMPOTENCY_HEADER } from "@/server/api/trpc";
import { consoleContextFrom } from "@/server/auth/session";
import { logger } from "@/server/log";

export const dynamic = "force-dynamic";

/** The console's tRPC door over HTTP: the session becomes the member's ServiceContext, checked per request. */
function handler(req: NextRequest) {
  const refused = refuseNonJsonPost(req);
  if (refused) return refused;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    // At most CONSOLE_MAX_BODY_BYTES: more is 413 in the console's error envelope.
    req: limitConsoleBody(req),
    router: appRouter,
    createContext: async () => ({
      svc: await consoleContextFrom(req.cookies, req.headers),
      idempotencyKey: req.headers.get(IDEMPOTENCY_HEADER),
    }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") logger().error({ err: error.cause ?? error, path }, "console procedure failed");
    },
  });
}

export { handler as GET, handler as POST };
