import type { RegistrationResponseJSON, VerifiedRegistrationResponse } from "@simplewebauthn/server";
import { Secret, TOTP } from "otpauth";
import type { ConsoleMember, Organization } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { randomToken, sha256Hex } from "../../crypto/hash";
import { hashPassword } from "../../crypto/password";
import { open, seal } from "../../crypto/secret-box";
import type { Db, Tx } from "../../db/client";
import { AppError, conflict, notFound } from "../../errors";
import { logger } from "../../log";
import { normalizeEmail } from "../../platform/contact-address";
import { messaging } from "../../providers/messaging";
import { appendAudit } from "../audit";
import {
  CREDENTIAL_FAILURES,
  countFailure,
  ipBucket,
  refuseWhileLimited,
  relyingParty,
  spendChallenge,
  storeChallenge,
} from "./console-auth-challenges";
import { revokeSharedPasswordSessionsOf } from "./console-auth-sessions";
import { webauthn } from "./webauthn";

/** An invitation link works once, for 72 hours. */
export const INVITATION_TTL_SEC = 72 * 60 * 60;

/** TOTP as authenticator apps expect it: SHA-1, 6 digits, 30 seconds; one step of clock drift either way. */
export const TOTP_PARAMS = { algorithm: "SHA1", digits: 6, period: 30, window: 1 } as const;

/** The link in the email: on the relying party's origin, where a passkey can be made. */
export const invitationUrl = (token: string) => `${relyingParty().origin}/console/invite/${token}`;

/** Whether a member has credentials of their own (a passkey, or a password with TOTP). */
export async function hasOwnCredentials(db: Db | Tx, member: Pick<ConsoleMember, "id" | "passwordHash">) {
  return member.passwordHash !== null || (await db.consolePasskey.count({ where: { memberId: member.id } })) > 0;
}

/**
 * Creates the member's invitation, replacing any earlier one (its link stops working), and audits
 * it. Returns the token, which exists only in the email (and, for a member setting up their own
 * credentials, in the answer to them).
 */
export async function issueInvitation(tx: Tx, ctx: ServiceContext, member: ConsoleMember, reason: "invited" | "resent" | "self") {
  const token = randomToken();
  const expiresAt = new Date(ctx.now().getTime() + INVITATION_TTL_SEC * 1000);
  const data = { tokenHash: sha256Hex(token), expiresAt, invitedBy: actorId(ctx.actor), pendingTotp: null };
  await tx.consoleInvitation.upsert({
    where: { memberId: member.id },
    create: { orgId: member.orgId, memberId: member.id, ...data },
    update: data,
  });
  await appendAudit(
    tx,
    { orgId: ctx.org.id, actor: ctx.actor },
    { action: "member.invited", subjectType: "member", subject: member.email, data: { reason, expiresAt: expiresAt.toISOString() } },
  );
  return token;
}

/**
 * Emails the link, after the invitation has committed. A failed send leaves the invitation in
 * place (an admin can send it again) and is logged, not thrown: the member was added either way.
 */
export async function sendInvitation(db: Db, org: Organization, member: Pick<ConsoleMember, "email" | "role">, token: string) {
  try {
    await messaging(db).sendEmail({
      to: member.email,
      orgId: org.id,
      subject: `You are invited to the ${org.name} console on Bind Identity`,
      text: [
        `You were added to the ${org.name} console on Bind Identity as ${member.role.replace("_", " ")}.`,
        "Set up your own sign-in (a passkey, or a password with an authenticator app) here:",
        invitationUrl(token),
        "The link works once and expires in 72 hours. If you did not expect this, ignore this email.",
      ].join("\n"),
    });
    return true;
  } catch (err) {
    logger().warn({ err, orgId: org.id }, "invitation email not sent");
    return false;
  }
}

/** Voids the member's invitation (removal, deactivation, acceptance). */
export const voidInvitation = (tx: Tx, memberId: string) => tx.consoleInvitation.deleteMany({ where: { memberId } });

/** An admin sends a member's invitation again: a new link, and the old one stops working. */
export async function resendInvitation(ctx: ServiceContext, rawEmail: string) {
  const email = normalizeEmail(rawEmail);
  const { member, token } = await ctx.db.$transaction(async (tx) => {
    const member = await tx.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email } } });
    if (!member) throw notFound("Member");
    if (!member.active) throw conflict("member_inactive", "Reactivate the member before inviting them.");
    if (await hasOwnCredentials(tx, member)) throw conflict("credentials_set", "This member has already set up their own sign-in.");
    return { member, token: await issueInvitation(tx, ctx, member, "resent") };
  });
  const sent = await sendInvitation(ctx.db, ctx.org, member, token);
  return { email: member.email, sent };
}

/** The same answer for an unknown, spent, expired or voided link. */
const invitationInvalid = () =>
  new AppError("NOT_FOUND", "This invitation link is not valid: it was used, replaced or has expired. Ask an admin to send a new one.", {
    reason: "invitation_invalid",
  });

/** The invitation behind a token, with its member and organization; failures count against the client address. */
async function findInvitation(db: Db | Tx, token: string, clientIp: string) {
  await refuseWhileLimited(db, ipBucket(clientIp), CREDENTIAL_FAILURES.perClientIp);
  const inv =
    token.length >= 20 && token.length <= 100
      ? await db.consoleInvitation.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { member: { include: { org: true } } } })
      : null;
  if (!inv || inv.expiresAt <= new Date() || !inv.member.active) {
    await countFailure(db, ipBucket(clientIp));
    throw invitationInvalid();
  }
  return inv;
}

/** What the acceptance page shows: the organization and the address, nothing else. */
export async function viewInvitation(db: Db, token: string, clientIp: string) {
  const inv = await findInvitation(db, token, clientIp);
  return {
    organizationName: inv.member.org.name,
    email: inv.member.email,
    role: inv.member.role,
    expiresAt: inv.expiresAt.toISOString(),
  };
}

/**
 * WebAuthn registration options for the invitee: a discoverable credential, user verification
 * required (the passkey is the member's only factor, so it must prove who holds it, not only that
 * someone touched it).
 */
export async function invitationPasskeyOptions(db: Db, token: string, clientIp: string) {
  const inv = await findInvitation(db, token, clientIp);
  const rp = relyingParty();
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpID,
    userName: inv.member.email,
    userDisplayName: `${inv.member.email} (${inv.member.org.name})`,
    userID: new TextEncoder().encode(inv.member.id),
    attestationType: "none",
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
  });
  const stored = await storeChallenge(db, "register", options.challenge, inv.id);
  return { challengeId: stored.id, options };
}

/**
 * Stores the member's first own credential and spends the invitation, in one transaction. The
 * sessions the member opened with the shared password end with it: from now on they sign in with
 * what they just set up, which the shared password no longer replaces.
 */
async function acceptInTransaction(tx: Tx, inv: { id: string; memberId: string; orgId: string }, email: string, method: string) {
  const { count } = await tx.consoleInvitation.deleteMany({ where: { id: inv.id } });
  if (count !== 1) throw invitationInvalid();
  const ended = await revokeSharedPasswordSessionsOf(tx, inv.orgId, email, new Date());
  await appendAudit(
    tx,
    { orgId: inv.orgId, actor: { type: "member", email, role: "invitee" } },
    {
      action: "member.invitation_accepted",
      subjectType: "member",
      subject: email,
      data: { method, ...(ended > 0 ? { sharedPasswordSessionsEnded: ended } : {}) },
    },
  );
}

/** Verifies the new passkey against the stored challenge, saves it and spends the invitation. */
export async function acceptInvitationWithPasskey(
  db: Db,
  input: { token: string; challengeId: string; response: RegistrationResponseJSON },
  clientIp: string,
) {
  const inv = await findInvitation(db, input.token, clientIp);
  const challenge = await spendChallenge(db, { id: input.challengeId }, "register");
  const rp = relyingParty();
  const failed = async (message: string) => {
    await countFailure(db, ipBucket(clientIp));
    return new AppError("VALIDATION_ERROR", message, { reason: "passkey_not_verified" });
  };
  if (!challenge || challenge.subject !== inv.id) throw await failed("The passkey request expired. Try again.");
  const { verifyRegistrationResponse } = await webauthn();
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
    });
  } catch {
    throw await failed("The passkey could not be verified. Try again.");
  }
  if (!verified.verified) throw await failed("The passkey could not be verified. Try again.");
  const { credential } = verified.registrationInfo;
  await db.$transaction(async (tx) => {
    await acceptInTransaction(tx, inv, inv.member.email, "passkey");
    await tx.consolePasskey.create({
      data: {
        orgId: inv.orgId,
        memberId: inv.memberId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey),
        counter: BigInt(credential.counter),
        transports: credential.transports ?? [],
      },
    });
  });
  return { accepted: true as const, email: inv.member.email, method: "passkey" as const };
}

const totpFor = (secret: string, org: string, email: string) =>
  new TOTP({
    issuer: "Bind Identity",
    label: `${org} (${email})`,
    secret: Secret.fromBase32(secret),
    algorithm: TOTP_PARAMS.algorithm,
    digits: TOTP_PARAMS.digits,
    period: TOTP_PARAMS.period,
  });

/** A new TOTP secret for the invitee's authenticator app, kept (sealed) on the invitation until confirmed. */
export async function invitationTotpSecret(db: Db, token: string, clientIp: string) {
  const inv = await findInvitation(db, token, clientIp);
  const secret = new Secret({ size: 20 }).base32;
  await db.consoleInvitation.update({ where: { id: inv.id }, data: { pendingTotp: seal(secret) } });
  return { secret, uri: totpFor(secret, inv.member.org.name, inv.member.email).toString() };
}

/** The TOTP time step a code matches (within one step of drift), or null. */
export function totpStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    algorithm: TOTP_PARAMS.algorithm,
    digits: TOTP_PARAMS.digits,
    period: TOTP_PARAMS.period,
    timestamp: now,
    window: TOTP_PARAMS.window,
  });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PARAMS.period) + delta;
}

/** Saves the invitee's own password (scrypt) and the TOTP secret once a code from it is right. */
export async function acceptInvitationWithPassword(db: Db, input: { token: string; password: string; code: string }, clientIp: string) {
  const inv = await findInvitation(db, input.token, clientIp);
  const secret = inv.pendingTotp ? open(inv.pendingTotp) : null;
  const step = secret ? totpStep(secret, input.code.trim()) : null;
  if (!secret || step === null) {
    await countFailure(db, ipBucket(clientIp));
    throw new AppError("VALIDATION_ERROR", "That code is not right. Type the 6-digit code your authenticator app shows now.", {
      reason: "totp_code_wrong",
    });
  }
  const passwordHash = await hashPassword(input.password);
  await db.$transaction(async (tx) => {
    await acceptInTransaction(tx, inv, inv.member.email, "password_totp");
    await tx.consoleMember.update({
      where: { id: inv.memberId },
      data: { passwordHash, totpSecret: seal(secret), totpLastStep: step },
    });
  });
  return { accepted: true as const, email: inv.member.email, method: "password_totp" as const };
}
