import { randomUUID } from "node:crypto";
import { getToken } from "next-auth/jwt";
import { env } from "@/env";
import type { ServiceContext } from "../context";
import { getDb } from "../db/client";
import { type ConsoleSessionClaims, resolveConsoleSession } from "../services/org";
import { clientIpFrom } from "./client-ip";
import { consoleAuthSecret } from "./options";

type CookieSource = { getAll(): { name: string; value: string }[] };

/**
 * The signed-in member's ServiceContext for one request, or null. The session cookie only says who
 * signed in; whether they may still act (active, role) is read from the database every time.
 */
export async function consoleContextFrom(cookies: CookieSource, headers: Headers): Promise<ServiceContext | null> {
  const claims = await getToken({
    req: { cookies, headers } as never,
    secret: consoleAuthSecret(),
    secureCookie: env().BI_ENV === "production",
  });
  const correlationId = randomUUID();
  return resolveConsoleSession(await getDb(), claims as Partial<ConsoleSessionClaims> | null, {
    clientIp: clientIpFrom(headers),
    correlationId,
  });
}
