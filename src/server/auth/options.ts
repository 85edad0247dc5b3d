import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "@/env";
import { deriveKey } from "../crypto/secret-box";
import { getDb } from "../db/client";
import { isAppError } from "../errors";
import {
  type ConsoleSessionClaims,
  completeConsoleSignIn,
  completePasskeySignIn,
  completeTicketSignIn,
  endSignedOutSession,
} from "../services/org";
import { clientIpFrom } from "./client-ip";

/** Console sessions last a working day; the member row is still checked on every request. */
export const SESSION_MAX_AGE_SEC = 8 * 60 * 60;

/**
 * NEXTAUTH_SECRET keys the session cookie (next-auth encrypts and authenticates it). Production
 * must set it (src/env.ts refuses to start otherwise); locally it is derived from the local key
 * material, so sessions survive restarts without one more file to manage.
 */
export function consoleAuthSecret(): string {
  return env().NEXTAUTH_SECRET ?? deriveKey("nextauth-secret").toString("base64url");
}

type AuthorizeRequest = { headers?: Record<string, string | string[] | undefined> };

const userAgentOf = (req: AuthorizeRequest) => {
  const ua = req.headers?.["user-agent"];
  return (Array.isArray(ua) ? ua[0] : ua) ?? null;
};

/**
 * Runs one sign-in check for next-auth's authorize: the claims become the token's user; a refused
 * sign-in is null (next-auth answers its generic error), and "too many attempts" is passed on so
 * the form can say when to try again.
 */
async function authorizeWith(run: () => Promise<ConsoleSessionClaims>) {
  try {
    const claims = await run();
    return { id: `${claims.orgId}:${claims.email}`, ...claims };
  } catch (err) {
    if (isAppError(err) && err.code === "RATE_LIMITED") throw new Error(`rate_limited:${err.headers?.["Retry-After"] ?? ""}`);
    if (isAppError(err)) return null;
    throw err;
  }
}

export function authOptions(): NextAuthOptions {
  const production = env().BI_ENV === "production";
  return {
    secret: consoleAuthSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SEC, updateAge: 15 * 60 },
    jwt: { maxAge: SESSION_MAX_AGE_SEC },
    // HTTP-only, SameSite=Lax cookies (next-auth's defaults), Secure with the __Secure- prefix in production.
    useSecureCookies: production,
    pages: { signIn: "/console/sign-in", error: "/console/sign-in" },
    providers: [
      CredentialsProvider({
        id: "console",
        name: "Console",
        credentials: {
          organizationId: { type: "text" },
          email: { type: "email" },
          password: { type: "password" },
          challengeId: { type: "text" },
          code: { type: "text" },
        },
        async authorize(credentials, req) {
          if (!credentials?.organizationId || !credentials.email || !credentials.password) return null;
          return authorizeWith(async () =>
            completeConsoleSignIn(
              await getDb(),
              {
                organizationId: credentials.organizationId.trim(),
                email: credentials.email,
                password: credentials.password,
                challengeId: credentials.challengeId || undefined,
                code: credentials.code?.trim() || undefined,
              },
              clientIpFrom(req.headers ?? {}),
              userAgentOf(req),
            ),
          );
        },
      }),
      // A member's own passkey: the assertion, verified against the challenge the server stored.
      CredentialsProvider({
        id: "passkey",
        name: "Passkey",
        credentials: { challengeId: { type: "text" }, response: { type: "text" } },
        async authorize(credentials, req) {
          if (!credentials?.challengeId || !credentials.response) return null;
          let response: unknown;
          try {
            response = JSON.parse(credentials.response);
          } catch {
            return null;
          }
          return authorizeWith(async () =>
            completePasskeySignIn(
              await getDb(),
              { challengeId: credentials.challengeId, response: response as never },
              { clientIp: clientIpFrom(req.headers ?? {}), userAgent: userAgentOf(req) },
            ),
          );
        },
      }),
      // A member's own password and authenticator code, already checked by /api/auth/member-sign-in,
      // which handed out this single-use ticket; the organization is chosen when there are several.
      CredentialsProvider({
        id: "ticket",
        name: "Password and authenticator code",
        credentials: { ticket: { type: "text" }, organizationId: { type: "text" } },
        async authorize(credentials, req) {
          if (!credentials?.ticket) return null;
          return authorizeWith(async () =>
            completeTicketSignIn(
              await getDb(),
              { ticket: credentials.ticket, organizationId: credentials.organizationId || undefined },
              { clientIp: clientIpFrom(req.headers ?? {}), userAgent: userAgentOf(req) },
            ),
          );
        },
      }),
    ],
    events: {
      async signOut({ token }) {
        await endSignedOutSession(await getDb(), token?.sid);
      },
    },
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const u = user as unknown as ConsoleSessionClaims;
          Object.assign(token, { orgId: u.orgId, email: u.email, bootstrap: u.bootstrap, pwf: u.pwf, sid: u.sid });
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, user: { email: token.email as string }, orgId: token.orgId as string };
      },
    },
  };
}
