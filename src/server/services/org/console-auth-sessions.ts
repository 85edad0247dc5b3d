import type { ServiceContext } from "../../context";
import type { Db, DbOrTx, Tx } from "../../db/client";
import { forbidden, notFound } from "../../errors";
import { isUuid } from "../../platform/ids";
import { appendAudit } from "../audit";

/**
 * How a session was signed in. "passkey" and "password_totp" are the member's own credentials;
 * "org_password" is the organization's shared console password (bootstrap, or a member who has
 * not set up their own credentials yet) and does not prove which person is behind the address.
 */
export type SignInMethod = "passkey" | "password_totp" | "org_password";

export const OWN_CREDENTIALS: readonly SignInMethod[] = ["passkey", "password_totp"];

/** Longer than a user agent needs to be recognised; the rest is dropped. */
const MAX_USER_AGENT = 300;

export type SessionMeta = { clientIp: string; userAgent?: string | null };

/** One row per sign-in; its id travels in the session cookie. */
export async function createConsoleSession(
  db: DbOrTx,
  input: { orgId: string; memberId: string | null; email: string; method: SignInMethod },
  meta: SessionMeta,
) {
  return db.consoleSession.create({
    data: { ...input, clientIp: meta.clientIp, userAgent: meta.userAgent?.slice(0, MAX_USER_AGENT) || null },
  });
}

/** The console session behind a ServiceContext built by resolveConsoleSession (none for /v1 or tests' own contexts). */
const sessions = new WeakMap<ServiceContext, { id: string; method: SignInMethod }>();

export const attachSession = (ctx: ServiceContext, session: { id: string; method: string }) =>
  sessions.set(ctx, { id: session.id, method: session.method as SignInMethod });

/**
 * Whether the caller signed in to the console with their own credentials: false for a console
 * session opened with the shared organization password, null when the caller is not a console
 * session at all (an API key, the system).
 */
export function signedInWithOwnCredentials(ctx: ServiceContext): boolean | null {
  const s = sessions.get(ctx);
  return s ? OWN_CREDENTIALS.includes(s.method) : null;
}

const sessionView = (
  s: {
    id: string;
    createdAt: Date;
    lastSeenAt: Date;
    userAgent: string | null;
    clientIp: string | null;
    method: string;
    revokedAt: Date | null;
  },
  current: string | undefined,
) => ({
  id: s.id,
  method: s.method as SignInMethod,
  createdAt: s.createdAt.toISOString(),
  lastSeenAt: s.lastSeenAt.toISOString(),
  userAgent: s.userAgent,
  clientIp: s.clientIp,
  current: s.id === current,
});

function memberOf(ctx: ServiceContext) {
  if (ctx.actor.type !== "member") throw forbidden("console_role", "Only a console member has console sessions.");
  return ctx.actor.email;
}

/** The signed-in member's own sessions that are still open, newest first; the one making this request is marked. */
export async function listOwnSessions(ctx: ServiceContext) {
  const email = memberOf(ctx);
  const rows = await ctx.db.consoleSession.findMany({
    where: { orgId: ctx.org.id, email, revokedAt: null },
    orderBy: { lastSeenAt: "desc" },
    take: 100,
  });
  const current = sessions.get(ctx)?.id;
  return { sessions: rows.map((r) => sessionView(r, current)) };
}

/** Ends one of the member's own sessions (this one too, if asked). */
export async function revokeOwnSession(ctx: ServiceContext, sessionId: string) {
  const email = memberOf(ctx);
  if (!isUuid(sessionId)) throw notFound("Session");
  return ctx.db.$transaction(async (tx) => {
    const row = await tx.consoleSession.findFirst({ where: { id: sessionId, orgId: ctx.org.id, email } });
    if (!row) throw notFound("Session");
    if (row.revokedAt) return { revoked: true as const, current: row.id === sessions.get(ctx)?.id };
    await tx.consoleSession.update({ where: { id: row.id }, data: { revokedAt: ctx.now() } });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      { action: "console.session_revoked", subjectType: "member", subject: email, data: { sessionId: row.id } },
    );
    return { revoked: true as const, current: row.id === sessions.get(ctx)?.id };
  });
}

/** Ends every open session of an address in the organization; the number ended. */
export async function revokeSessionsOf(tx: Tx, orgId: string, email: string, now: Date) {
  const { count } = await tx.consoleSession.updateMany({ where: { orgId, email, revokedAt: null }, data: { revokedAt: now } });
  return count;
}

/**
 * Ends the sessions an address opened with the organization's shared password; the number ended.
 * Called when the member finishes setting up credentials of their own (docs/security.md, "Console
 * credentials"): the shared password no longer signs them in, so no session it opened stays.
 */
export async function revokeSharedPasswordSessionsOf(tx: Tx, orgId: string, email: string, now: Date) {
  const method: SignInMethod = "org_password";
  const { count } = await tx.consoleSession.updateMany({ where: { orgId, email, method, revokedAt: null }, data: { revokedAt: now } });
  return count;
}

/** Signing out ends the session's row too, so a copy of the cookie stops working; audited like the sign-in. */
export async function endSignedOutSession(db: Db, sessionId: unknown) {
  if (typeof sessionId !== "string" || !isUuid(sessionId)) return;
  await db.$transaction(async (tx) => {
    const [ended] = await tx.consoleSession.updateManyAndReturn({
      where: { id: sessionId, revokedAt: null },
      data: { revokedAt: new Date() },
      select: { id: true, orgId: true, email: true, member: { select: { role: true } } },
    });
    if (!ended) return;
    // A bootstrap session has no member row: it is the owner's (console-auth.ts).
    const role = ended.member?.role ?? "owner";
    await appendAudit(
      tx,
      { orgId: ended.orgId, actor: { type: "member", email: ended.email, role } },
      { action: "console.signed_out", subjectType: "member", subject: ended.email, data: { sessionId: ended.id } },
    );
  });
}
