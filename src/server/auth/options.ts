import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "@/env";
import { deriveKey } from "../crypto/secret-box";
import { getDb } from "../db/client";
import { isAppError } from "../errors";
import { type ConsoleSessionClaims, completeConsoleSignIn } from "../services/org";
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
          try {
            const claims = await completeConsoleSignIn(
              await getDb(),
              {
                organizationId: credentials.organizationId.trim(),
                email: credentials.email,
                password: credentials.password,
                challengeId: credentials.challengeId || undefined,
                code: credentials.code?.trim() || undefined,
              },
              clientIpFrom(req.headers ?? {}),
            );
            return { id: `${claims.orgId}:${claims.email}`, ...claims };
          } catch (err) {
            // next-auth passes a thrown message to the form; only "too many attempts" is worth saying.
            if (isAppError(err) && err.code === "RATE_LIMITED") throw new Error("rate_limited");
            if (isAppError(err)) return null;
            throw err;
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const u = user as unknown as ConsoleSessionClaims;
          Object.assign(token, { orgId: u.orgId, email: u.email, bootstrap: u.bootstrap, pwf: u.pwf });
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, user: { email: token.email as string }, orgId: token.orgId as string };
      },
    },
  };
}
