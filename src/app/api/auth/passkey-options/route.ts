import { z } from "zod";
import { jsonRoute } from "@/server/auth/json-route";
import { getDb } from "@/server/db/client";
import { passkeySignInOptions } from "@/server/services/org";

export const dynamic = "force-dynamic";

/** Options for a usernameless passkey sign-in; the assertion then goes to next-auth's "passkey" provider. */
export const POST = jsonRoute(z.object({}), async (_input, clientIp) => passkeySignInOptions(await getDb(), clientIp));
