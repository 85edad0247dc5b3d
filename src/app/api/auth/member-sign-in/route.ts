import { z } from "zod";
import { jsonRoute } from "@/server/auth/json-route";
import { getDb } from "@/server/db/client";
import { startPasswordSignIn } from "@/server/services/org";

export const dynamic = "force-dynamic";

const Body = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(200), code: z.string().min(1).max(20) });

/**
 * The password path's first step: the member's own password and authenticator code. The answer is
 * a single-use ticket for next-auth's "ticket" provider and the organizations it opens.
 */
export const POST = jsonRoute(Body, async (input, clientIp) => startPasswordSignIn(await getDb(), input, clientIp));
