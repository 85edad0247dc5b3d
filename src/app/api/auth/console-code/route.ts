import { z } from "zod";
import { jsonRoute } from "@/server/auth/json-route";
import { getDb } from "@/server/db/client";
import { startConsoleSignIn } from "@/server/services/org";

export const dynamic = "force-dynamic";

const Body = z.object({ organizationId: z.string().max(100), email: z.string().max(254), password: z.string().max(200) });

/**
 * Step one of bootstrap sign-in with the organization password: checks it and, for a member
 * without own credentials, emails the 6-digit code. Errors in the /v1 envelope, Retry-After on a 429.
 */
export const POST = jsonRoute(Body, async (input, clientIp) => startConsoleSignIn(await getDb(), input, clientIp));
