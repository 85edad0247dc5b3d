import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { ConsoleMember, Organization } from "@/generated/prisma/client.ts";
import { hashPassword, verifyPassword } from "../../crypto/password";
import { open } from "../../crypto/secret-box";
import type { Db } from "../../db/client";
import { AppError, isAppError } from "../../errors";
import { normalizeEmail } from "../../platform/contact-address";
import { appendAudit } from "../audit";
import {
  CREDENTIAL_FAILURES,
  countFailure,
  ipBucket,
  issueTicket,
  memberBucket,
  refuseWhileLimited,
  relyingParty,
  spendChallenge,
  spendTicket,
  storeChallenge,
} from "./console-auth-challenges";
import { createConsoleSession, type SessionMeta, type SignInMethod } from "./console-auth-sessions";
import type { MemberRole } from "./members.schema";
import { totpStep } from "./members-invitations";
import { webauthn } from "./webauthn";

/** One answer for every failure of the member's own credentials, known address or not. */
export const ownSignInFailed = () =>
  new AppError("UNAUTHORIZED", "Sign-in failed: check your email, password and authenticator code, or try your passkey again.", {
    reason: "sign_in_failed",
  });

/** What the session cookie carries (see ConsoleSessionClaims in console-auth.ts). */
export type MemberClaims = { orgId: string; email: string; bootstrap: false; pwf: string; sid: string; role: MemberRole };

let decoyHash: Promise<string> | undefined;

/** A session for a member who proved their own credentials, with its audit entry. */
async function openSession(db: Db, member: ConsoleMember & { org: Organization }, method: SignInMethod, meta: SessionMeta) {
  const session = await db.$transaction(async (tx) => {
    const s = await createConsoleSession(tx, { orgId: member.orgId, memberId: member.id, email: member.email, method }, meta);
    await appendAudit(
      tx,
      { orgId: member.orgId, actor: { type: "member", email: member.email, role: member.role } },
      { action: "console.signed_in", subjectType: "member", subject: member.email, data: { method, clientIp: meta.clientIp } },
    );
    return s;
  });
  return {
    orgId: member.orgId,
    email: member.email,
    bootstrap: false as const,
    pwf: "",
    sid: session.id,
    role: member.role as MemberRole,
  } satisfies MemberClaims;
}

/**
 * Step one of the password path: the address, the member's own password and a code from their
 * authenticator app. An unknown address costs the same scrypt as a known one and answers the same
 * sentence. The answer names the organizations only after both were right; a ticket then opens
 * the session for the one chosen (completeTicketSignIn).
 */
export async function startPasswordSignIn(db: Db, input: { email: string; password: string; code: string }, clientIp: string) {
  await refuseWhileLimited(db, ipBucket(clientIp), CREDENTIAL_FAILURES.perClientIp);
  const email = normalizeEmail(input.email);
  const candidates = await db.consoleMember.findMany({
    where: { email, active: true, passwordHash: { not: null } },
    include: { org: true },
    orderBy: { createdAt: "asc" },
    take: 10,
  });
  const withPassword: typeof candidates = [];
  for (const m of candidates) if (await verifyPassword(input.password, m.passwordHash!)) withPassword.push(m);
  if (candidates.length === 0) {
    decoyHash ??= hashPassword("decoy");
    await verifyPassword(input.password, await decoyHash);
  }
  if (withPassword.length === 0) {
    await countFailure(db, ipBucket(clientIp));
    throw ownSignInFailed();
  }
  // Past the password, a wrong code counts against that member: only the password holder can use up their budget.
  for (const m of withPassword) await refuseWhileLimited(db, memberBucket(m.id), CREDENTIAL_FAILURES.perMember);
  const now = Date.now();
  const passed: typeof candidates = [];
  for (const m of withPassword) {
    const step = m.totpSecret ? totpStep(open(m.totpSecret), input.code.trim(), now) : null;
    if (step === null) continue;
    // Each code once: the step must be newer than the last one accepted (a conditional write, so two racing requests cannot both pass).
    const { count } = await db.consoleMember.updateMany({
      where: { id: m.id, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    if (count === 1) passed.push(m);
  }
  if (passed.length === 0) {
    for (const m of withPassword) await countFailure(db, memberBucket(m.id));
    throw ownSignInFailed();
  }
  return {
    ticket: await issueTicket(
      db,
      passed.map((m) => m.id),
    ),
    organizations: passed.map((m) => ({ id: m.orgId, name: m.org.name })),
  };
}

/** Step two of the password path (next-auth's authorize): the ticket, once, for one of its organizations. */
export async function completeTicketSignIn(db: Db, input: { ticket: string; organizationId?: string }, meta: SessionMeta) {
  const ids = input.ticket ? await spendTicket(db, input.ticket) : null;
  if (!ids) throw ownSignInFailed();
  const members = await db.consoleMember.findMany({ where: { id: { in: ids }, active: true }, include: { org: true } });
  const chosen = input.organizationId
    ? members.find((m) => m.orgId === input.organizationId)
    : members.length === 1
      ? members[0]
      : undefined;
  if (!chosen) throw ownSignInFailed();
  return openSession(db, chosen, "password_totp", meta);
}

/**
 * Options for a usernameless passkey sign-in: no address is sent and no credential is listed, so
 * the answer is the same for everyone; the assertion's credential names the member.
 */
export async function passkeySignInOptions(db: Db, clientIp: string) {
  await refuseWhileLimited(db, ipBucket(clientIp), CREDENTIAL_FAILURES.perClientIp);
  const { generateAuthenticationOptions } = await webauthn();
  // User verification required (docs/security.md, "Console credentials"): the passkey is the member's only factor.
  const options = await generateAuthenticationOptions({ rpID: relyingParty().rpID, userVerification: "required" });
  const stored = await storeChallenge(db, "authenticate", options.challenge, null);
  return { challengeId: stored.id, options };
}

/** Verifies a passkey assertion against its stored challenge and opens the session of the member it belongs to. */
export async function completePasskeySignIn(
  db: Db,
  input: { challengeId: string; response: AuthenticationResponseJSON },
  meta: SessionMeta,
) {
  await refuseWhileLimited(db, ipBucket(meta.clientIp), CREDENTIAL_FAILURES.perClientIp);
  const failed = async () => {
    await countFailure(db, ipBucket(meta.clientIp));
    return ownSignInFailed();
  };
  const challenge = await spendChallenge(db, { id: input.challengeId }, "authenticate");
  const credentialId = typeof input.response?.id === "string" ? input.response.id : "";
  const passkey =
    challenge && credentialId
      ? await db.consolePasskey.findUnique({ where: { credentialId }, include: { member: { include: { org: true } } } })
      : null;
  if (!challenge || !passkey?.member.active) throw await failed();
  const rp = relyingParty();
  try {
    const { verifyAuthenticationResponse } = await webauthn();
    const result = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
    if (!result.verified) throw await failed();
    await db.consolePasskey.update({
      where: { id: passkey.id },
      data: { counter: BigInt(result.authenticationInfo.newCounter), lastUsedAt: new Date() },
    });
  } catch (err) {
    if (isAppError(err)) throw err;
    throw await failed();
  }
  return openSession(db, passkey.member, "passkey", meta);
}
