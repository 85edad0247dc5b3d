import { randomUUID } from "node:crypto";
import { getToken } from "next-auth/jwt";
import { env } from "@/env";
import { getDb } from "../db/client";
import type { ServiceContext } from "../context";
import { resolveConsoleSession, type ConsoleSessionClaims } from "../services/org";
import { consoleAuthSecret } from "./options";
import { clientIpFrom } from "./client-ip";

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
  return resolveConsoleSession(await getDb(), claims as Partial<ConsoleSessionClaims> | null, { clientIp: clientIpFrom(headers), correlationId });
}
