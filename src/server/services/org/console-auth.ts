import type { Organization } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { hashPassword, verifyPassword } from "../../crypto/password";
import type { Db } from "../../db/client";
import { AppError, forbidden, isAppError, rateLimited } from "../../errors";
import { logger } from "../../log";
import { normalizeEmail } from "../../platform/contact-address";
import { isUuid } from "../../platform/ids";
import { hitWindow, peekWindow } from "../../platform/rate-limit";
import { appendAudit } from "../audit";
import { confirmChallenge, startChallenge } from "../contacts";
import { attachSession, createConsoleSession, signedInWithOwnCredentials } from "./console-auth-sessions";
import type { MemberRole } from "./members.schema";
import { hasOwnCredentials } from "./members-invitations";

/**
 * Failed sign-ins in a 15-minute window. Wrong organization or password counts against the client
 * address that sent it; once the password is right, a wrong code counts against that member of that
 * organization. Nobody without the password can use up a member's budget.
 */
export const CONSOLE_SIGN_IN = { windowSec: 15 * 60, failuresPerClientIp: 20, failuresPerMember: 10 } as const;

export type SignInCredentials = { organizationId: string; email: string; password: string };

/**
 * What the session token carries; the role is read again from the member row on every request,
 * and `sid` names the session's row in console_sessions, which can be revoked.
 */
export type ConsoleSessionClaims = { orgId: string; email: string; bootstrap: boolean; pwf: string; sid: string };

/** One answer for every wrong part, so a failure never tells which one was wrong. */
export const signInFailed = () =>
  new AppError("UNAUTHORIZED", "Sign-in failed: check the organization ID, email, password and code.", { reason: "sign_in_failed" });

// A wrong organization costs the same scrypt work as a wrong password, so timing does not tell them apart.
let decoyHash: Promise<string> | undefined;

/** Sessions carry a fingerprint of the password hash: changing the password ends every session. */
export const passwordFingerprint = (org: Organization) => sha256Hex(`console-session:${org.consolePasswordHash ?? ""}`).slice(0, 16);

const ipFailures = (clientIp: string) => `console-sign-in:failed:ip:${clientIp}`;
const memberFailures = (orgId: string, email: string) => `console-sign-in:failed:member:${orgId.toLowerCase()}:${sha256Hex(email)}`;

/** 429 while `bucket` holds `limit` failures in the current window (nothing is counted here). */
async function refuseWhileLimited(db: Db, bucket: string, limit: number) {
  const now = new Date();
  if ((await peekWindow(db, bucket, CONSOLE_SIGN_IN.windowSec, now)) < limit) return;
  const windowMs = CONSOLE_SIGN_IN.windowSec * 1000;
  throw rateLimited(
    Math.ceil((windowMs - (now.getTime() % windowMs)) / 1000),
    "Too many failed sign-ins; wait a few minutes and try again.",
  );
}

const countFailure = (db: Db, bucket: string) => hitWindow(db, bucket, Number.MAX_SAFE_INTEGER, CONSOLE_SIGN_IN.windowSec);

/**
 * Checks the organization's console password and who may use it: while the organization has no
 * members any address is its owner (bootstrap); after that only an active member's address.
 */
async function checkPassword(db: Db, creds: SignInCredentials, clientIp: string) {
  const email = normalizeEmail(creds.email);
  await refuseWhileLimited(db, ipFailures(clientIp), CONSOLE_SIGN_IN.failuresPerClientIp);
  const failed = async () => {
    await countFailure(db, ipFailures(clientIp));
    return signInFailed();
  };
  const org = isUuid(creds.organizationId) ? await db.organization.findUnique({ where: { id: creds.organizationId } }) : null;
  if (!org?.consolePasswordHash) {
    decoyHash ??= hashPassword("decoy");
    await verifyPassword(creds.password, await decoyHash);
    throw await failed();
  }
  if (!(await verifyPassword(creds.password, org.consolePasswordHash))) throw await failed();
  const members = await db.consoleMember.count({ where: { orgId: org.id } });
  if (members === 0) return { org, email, bootstrap: true as const, role: "owner" as MemberRole, memberId: null };
  const member = await db.consoleMember.findUnique({ where: { orgId_email: { orgId: org.id, email } } });
  // A member with a passkey or a password of their own signs in with those, never with the shared password.
  if (!member?.active || (await hasOwnCredentials(db, member))) throw await failed();
  await refuseWhileLimited(db, memberFailures(org.id, email), CONSOLE_SIGN_IN.failuresPerMember);
  return { org, email, bootstrap: false as const, role: member.role as MemberRole, memberId: member.id };
}

/**
 * Step one. Bootstrap sign-in needs no code; a member gets a 6-digit code by email (the dev outbox
 * in sandbox). The code is never returned here, even when dev codes are on: it is what proves the
 * person behind the address, which the four-eyes check relies on.
 */
export async function startConsoleSignIn(db: Db, creds: SignInCredentials, clientIp: string) {
  const who = await checkPassword(db, creds, clientIp);
  if (who.bootstrap) return { codeRequired: false as const };
  const { challenge, devCode } = await startChallenge(db, {
    orgId: who.org.id,
    purpose: "console_login",
    channel: "email",
    address: who.email,
    clientIp,
    message: (code) => ({
      subject: "Your Bind Identity console sign-in code",
      text: `Your sign-in code for the ${who.org.name} console is ${code}.\nIt is valid for 10 minutes. If you did not try to sign in, tell your organization's owner.`,
    }),
  });
  // Dev codes are on only for a local sandbox (src/env.ts, BI_DEV_CODES), never in production.
  return { codeRequired: true as const, challengeId: challenge.id, ...(devCode ? { devCode } : {}) };
}

/** Step two (next-auth's authorize): the password again, plus the code when a member signs in. */
export async function completeConsoleSignIn(
  db: Db,
  input: SignInCredentials & { challengeId?: string; code?: string },
  clientIp: string,
  userAgent?: string | null,
): Promise<ConsoleSessionClaims & { role: MemberRole }> {
  const who = await checkPassword(db, input, clientIp);
  if (!who.bootstrap) {
    const codeFailed = async () => {
      await countFailure(db, memberFailures(who.org.id, who.email));
      return signInFailed();
    };
    if (!input.challengeId || !isUuid(input.challengeId) || !input.code) throw await codeFailed();
    try {
      const challenge = await confirmChallenge(db, {
        orgId: who.org.id,
        purpose: "console_login",
        channel: "email",
        challengeId: input.challengeId,
        code: input.code,
      });
      if (challenge.address !== who.email) throw signInFailed();
    } catch (err) {
      if (isAppError(err) && err.code === "RATE_LIMITED") throw err;
      throw await codeFailed();
    }
  }
  const session = await db.$transaction(async (tx) => {
    const s = await createConsoleSession(
      tx,
      { orgId: who.org.id, memberId: who.memberId, email: who.email, method: "org_password" },
      { clientIp, userAgent },
    );
    await appendAudit(
      tx,
      { orgId: who.org.id, actor: { type: "member", email: who.email, role: who.role } },
      {
        action: "console.signed_in",
        subjectType: "member",
        subject: who.email,
        data: { bootstrap: who.bootstrap, method: "org_password", clientIp },
      },
    );
    return s;
  });
  return {
    orgId: who.org.id,
    email: who.email,
    bootstrap: who.bootstrap,
    role: who.role,
    pwf: passwordFingerprint(who.org),
    sid: session.id,
  };
}

/**
 * Turns a session's claims into the member's ServiceContext, checking the database on every
 * request: a revoked or unknown session, a deactivated member, a member whose organization now has
 * other members (bootstrap ended without them), or a shared-password session older than a change
 * of that password gets null (401).
 */
export async function resolveConsoleSession(
  db: Db,
  claims: Partial<ConsoleSessionClaims> | null | undefined,
  request: { clientIp: string; correlationId: string },
): Promise<ServiceContext | null> {
  if (!claims?.orgId || !claims.email || !isUuid(claims.orgId) || !claims.sid || !isUuid(claims.sid)) return null;
  const session = await db.consoleSession.findUnique({ where: { id: claims.sid } });
  if (!session || session.revokedAt || session.orgId !== claims.orgId || session.email !== claims.email) return null;
  const org = await db.organization.findUnique({ where: { id: claims.orgId } });
  if (!org) return null;
  if (session.method === "org_password" && claims.pwf !== passwordFingerprint(org)) return null;
  const member = await db.consoleMember.findUnique({ where: { orgId_email: { orgId: org.id, email: claims.email } } });
  let role: MemberRole | null = member?.active ? (member.role as MemberRole) : null;
  if (!member && claims.bootstrap && (await db.consoleMember.count({ where: { orgId: org.id } })) === 0) role = "owner";
  if (!role) return null;
  const now = new Date();
  // Last seen is kept to the minute: one write a minute per session, not one per request.
  if (now.getTime() - session.lastSeenAt.getTime() > 60_000) {
    await db.consoleSession.updateMany({ where: { id: session.id, revokedAt: null }, data: { lastSeenAt: now } });
  }
  const ctx: ServiceContext = {
    db,
    org,
    actor: { type: "member", email: claims.email, role },
    correlationId: request.correlationId,
    clientIp: request.clientIp,
    log: logger().child({ correlationId: request.correlationId, orgId: org.id }),
    now: () => new Date(),
  };
  attachSession(ctx, session);
  return ctx;
}

/** An owner changes the console password; every session (theirs too) ends at its next request. */
export async function changeConsolePassword(ctx: ServiceContext, input: { currentPassword: string; newPassword: string }) {
  const org = await ctx.db.organization.findUniqueOrThrow({ where: { id: ctx.org.id } });
  if (!org.consolePasswordHash || !(await verifyPassword(input.currentPassword, org.consolePasswordHash))) {
    throw forbidden("wrong_password", "The current password is not correct.");
  }
  const hash = await hashPassword(input.newPassword);
  await ctx.db.$transaction(async (tx) => {
    await tx.organization.update({ where: { id: org.id }, data: { consolePasswordHash: hash } });
    await appendAudit(
      tx,
      { orgId: org.id, actor: ctx.actor },
      { action: "console_password.changed", subjectType: "organization", subject: org.id },
    );
  });
  return { changed: true as const };
}

/** The signed-in member and their organization, for the console's layout. */
export function consoleSession(ctx: ServiceContext) {
  const { actor, org } = ctx;
  if (actor.type !== "member") throw forbidden("console_role", "Only a console member has a console session.");
  return { email: actor.email, role: actor.role, organizationId: org.id, organizationName: org.name, environment: org.environment };
}

/**
 * How the signed-in member signs in: whether this session was opened with their own credentials,
 * whether they have any yet, and whether they are a member at all (a bootstrap session is not).
 * The console asks those without own credentials to set them up.
 */
export async function credentialStatus(ctx: ServiceContext) {
  if (ctx.actor.type !== "member") throw forbidden("console_role", "Only a console member has a console session.");
  const member = await ctx.db.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email: ctx.actor.email } } });
  const passkeys = member ? await ctx.db.consolePasskey.count({ where: { memberId: member.id } }) : 0;
  return {
    signedInWithOwnCredentials: signedInWithOwnCredentials(ctx) === true,
    isMember: member?.active === true,
    passkeys,
    password: member?.passwordHash != null,
  };
}
