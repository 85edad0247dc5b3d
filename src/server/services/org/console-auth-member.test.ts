import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { getDb } from "../../db/client";
import { listOutbox } from "../../providers/messaging/dev-outbox";
import { createTestOrg, type TestOrg } from "../../testing/harness";
import { appErrorOf } from "../../testing/rejection";
import { SoftAuthenticator } from "../../testing/webauthn-authenticator";
import { approveClear } from "../aml";
import { completeConsoleSignIn, credentialStatus, resolveConsoleSession, startConsoleSignIn } from "./console-auth";
import { CREDENTIAL_FAILURES, relyingParty } from "./console-auth-challenges";
import { completePasskeySignIn, completeTicketSignIn, passkeySignInOptions, startPasswordSignIn } from "./console-auth-member";
import { endSignedOutSession, listOwnSessions, revokeOwnSession, signedInWithOwnCredentials } from "./console-auth-sessions";
import { addMember, endMemberSessions, listMembersForConsole, removeMember, startOwnCredentialsSetup } from "./members";
import {
  acceptInvitationWithPasskey,
  acceptInvitationWithPassword,
  invitationPasskeyOptions,
  invitationTotpSecret,
  resendInvitation,
  TOTP_PARAMS,
  totpStep,
  viewInvitation,
} from "./members-invitations";

const IP = "203.0.113.20";
const req = { clientIp: IP, correlationId: "t" };
const meta = { clientIp: IP, userAgent: "Vitest" };
const origin = () => relyingParty().origin;

let n = 0;
const addr = (local: string) => `${local}-${process.pid}-${++n}@creds.test`;

/** The organization's first member signs in with the organization password (bootstrap) and becomes its owner. */
async function owner(org: TestOrg, email = addr("owner")) {
  const db = await getDb();
  const claims = await completeConsoleSignIn(db, { organizationId: org.orgId, email, password: org.consolePassword }, IP);
  return { claims, ctx: (await resolveConsoleSession(db, claims, req))! };
}

/** The token in the newest invitation emailed to `email`. */
async function invitationToken(email: string) {
  const [mail] = await listOutbox(await getDb(), { to: email, limit: 1 });
  const m = /\/console\/invite\/([A-Za-z0-9_-]+)/.exec(mail?.body ?? "");
  if (!m) throw new Error(`no invitation reached ${email}`);
  return m[1]!;
}

const codeAt = (secret: string, timestamp = Date.now()) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: TOTP_PARAMS.period, timestamp });

async function acceptWithPasskey(email: string, ip = IP) {
  const db = await getDb();
  const token = await invitationToken(email);
  const authenticator = new SoftAuthenticator(origin());
  const { challengeId, options } = await invitationPasskeyOptions(db, token, ip);
  await acceptInvitationWithPasskey(db, { token, challengeId, response: authenticator.register(options) as never }, ip);
  return authenticator;
}

async function signInWithPasskey(authenticator: SoftAuthenticator, ip = IP) {
  const db = await getDb();
  const { challengeId, options } = await passkeySignInOptions(db, ip);
  return completePasskeySignIn(db, { challengeId, response: authenticator.authenticate(options) as never }, { ...meta, clientIp: ip });
}

async function acceptWithPassword(email: string, password = "a long own password") {
  const db = await getDb();
  const token = await invitationToken(email);
  const { secret, uri } = await invitationTotpSecret(db, token, IP);
  expect(uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
  // The code is for the step before this one: a later sign-in in this same step is then still a new step.
  await acceptInvitationWithPassword(db, { token, password, code: codeAt(secret, Date.now() - 30_000) }, IP);
  return secret;
}

describe("invitations", () => {
  it("adding a member emails a single-use link; only its hash is stored; re-sending replaces it; acceptance is audited", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("co");
    await addMember(ctx, { email, role: "compliance_officer" });
    const first = await invitationToken(email);
    const [mail] = await listOutbox(db, { to: email, limit: 1 });
    expect(mail!.body).toContain(`${origin()}/console/invite/${first}`);
    const row = await db.consoleInvitation.findFirstOrThrow({ where: { orgId: org.orgId, member: { email } } });
    expect(row.tokenHash).toBe(sha256Hex(first));
    expect(JSON.stringify(row)).not.toContain(first);
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(71 * 3600_000);
    expect(await viewInvitation(db, first, IP)).toMatchObject({ email, role: "compliance_officer" });

    await resendInvitation(ctx, email);
    const second = await invitationToken(email);
    expect(second).not.toBe(first);
    expect((await appErrorOf(viewInvitation(db, first, IP))).details).toEqual({ reason: "invitation_invalid" });

    const authenticator = await acceptWithPasskey(email);
    expect(authenticator.id).toBeTruthy();
    // Spent: the same link no longer works, and the member can no longer be re-invited.
    expect((await appErrorOf(viewInvitation(db, second, IP))).code).toBe("NOT_FOUND");
    expect((await appErrorOf(resendInvitation(ctx, email))).details).toMatchObject({ reason: "credentials_set" });
    const actions = await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: email }, orderBy: { seq: "asc" } });
    expect(actions.map((a) => a.action)).toEqual(["member.added", "member.invited", "member.invited", "member.invitation_accepted"]);
    expect(actions[3]!.data).toEqual({ method: "passkey" });
    const list = await listMembersForConsole(ctx);
    expect(list.members.find((m) => m.email === email)).toMatchObject({ signIn: "passkey" });
  });

  it("an expired link and the link of a deactivated member do not work", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const [late, gone] = [addr("late"), addr("gone")];
    await addMember(ctx, { email: late, role: "viewer" });
    await addMember(ctx, { email: gone, role: "viewer" });
    const lateToken = await invitationToken(late);
    const goneToken = await invitationToken(gone);
    await db.consoleInvitation.updateMany({ where: { tokenHash: sha256Hex(lateToken) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await appErrorOf(viewInvitation(db, lateToken, IP))).details).toEqual({ reason: "invitation_invalid" });
    await removeMember(ctx, gone);
    expect(await db.consoleInvitation.count({ where: { tokenHash: sha256Hex(goneToken) } })).toBe(0);
    expect((await appErrorOf(invitationPasskeyOptions(db, goneToken, IP))).code).toBe("NOT_FOUND");
  });
});

describe("passkeys", () => {
  it("registers at acceptance and signs in without an address; the challenge is single use; a wrong origin fails", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("pk");
    await addMember(ctx, { email, role: "compliance_officer" });
    const authenticator = await acceptWithPasskey(email);
    const stored = await db.consolePasskey.findFirstOrThrow({ where: { credentialId: authenticator.id } });
    expect(stored.transports).toEqual(["internal"]);

    const claims = await signInWithPasskey(authenticator);
    expect(claims).toMatchObject({ orgId: org.orgId, email, role: "compliance_officer" });
    const svc = (await resolveConsoleSession(db, claims, req))!;
    expect(svc.actor).toMatchObject({ type: "member", email });
    expect(signedInWithOwnCredentials(svc)).toBe(true);
    expect(await credentialStatus(svc)).toMatchObject({ signedInWithOwnCredentials: true, passkeys: 1, password: false });
    expect((await db.consolePasskey.findFirstOrThrow({ where: { id: stored.id } })).counter).toBe(1n);

    // The same assertion again: its challenge is spent.
    const { challengeId, options } = await passkeySignInOptions(db, IP);
    const response = authenticator.authenticate(options) as never;
    await completePasskeySignIn(db, { challengeId, response }, meta);
    expect((await appErrorOf(completePasskeySignIn(db, { challengeId, response }, meta))).details).toEqual({ reason: "sign_in_failed" });
    // Signed for another origin (a phishing site relaying the challenge).
    const phished = await passkeySignInOptions(db, IP);
    const bad = authenticator.authenticate(phished.options, "https://bind-identity.example.net") as never;
    expect((await appErrorOf(completePasskeySignIn(db, { challengeId: phished.challengeId, response: bad }, meta))).code).toBe(
      "UNAUTHORIZED",
    );
    // The shared organization password no longer works for this member.
    const shared = { organizationId: org.orgId, email, password: org.consolePassword };
    expect((await appErrorOf(startConsoleSignIn(db, shared, "192.0.2.80"))).details).toEqual({ reason: "sign_in_failed" });
  });
});

describe("passkeys need user verification", () => {
  it("registration asks for it and refuses a passkey made without it; the invitation stays usable", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("uv-reg");
    await addMember(ctx, { email, role: "compliance_officer" });
    const token = await invitationToken(email);
    const ip = "192.0.2.101";
    const authenticator = new SoftAuthenticator(origin());
    const unverified = await invitationPasskeyOptions(db, token, ip);
    expect(unverified.options.authenticatorSelection?.userVerification).toBe("required");
    const response = authenticator.register(unverified.options, undefined, { userVerified: false }) as never;
    const refused = await appErrorOf(acceptInvitationWithPasskey(db, { token, challengeId: unverified.challengeId, response }, ip));
    expect([refused.code, refused.details]).toEqual(["VALIDATION_ERROR", { reason: "passkey_not_verified" }]);
    expect(await db.consolePasskey.count({ where: { orgId: org.orgId } })).toBe(0);
    expect(await viewInvitation(db, token, ip)).toMatchObject({ email });

    const verified = await invitationPasskeyOptions(db, token, ip);
    const ok = authenticator.register(verified.options) as never;
    expect(await acceptInvitationWithPasskey(db, { token, challengeId: verified.challengeId, response: ok }, ip)).toMatchObject({
      accepted: true,
      method: "passkey",
    });
    expect(await db.consolePasskey.count({ where: { orgId: org.orgId, credentialId: authenticator.id } })).toBe(1);
  });

  it("sign-in asks for it and refuses an assertion without it: no session opens and the counter stays", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("uv-sign-in");
    await addMember(ctx, { email, role: "compliance_officer" });
    const authenticator = await acceptWithPasskey(email);
    const ip = "192.0.2.102";
    const { challengeId, options } = await passkeySignInOptions(db, ip);
    expect(options.userVerification).toBe("required");
    const response = authenticator.authenticate(options, undefined, { userVerified: false }) as never;
    const refused = await appErrorOf(completePasskeySignIn(db, { challengeId, response }, { ...meta, clientIp: ip }));
    expect([refused.code, refused.details]).toEqual(["UNAUTHORIZED", { reason: "sign_in_failed" }]);
    expect(await db.consoleSession.count({ where: { orgId: org.orgId, email } })).toBe(0);
    expect((await db.consolePasskey.findFirstOrThrow({ where: { credentialId: authenticator.id } })).counter).toBe(0n);

    const claims = await signInWithPasskey(authenticator, ip);
    expect(claims).toMatchObject({ orgId: org.orgId, email, role: "compliance_officer" });
    expect(await db.consoleSession.count({ where: { orgId: org.orgId, email, method: "passkey" } })).toBe(1);
  });
});

describe("password and authenticator code", () => {
  it("accepts a code from the current step or one either side, and no older", () => {
    const secret = new Secret({ size: 20 }).base32;
    const now = Date.now();
    const step = Math.floor(now / 30_000);
    expect(totpStep(secret, codeAt(secret, now), now)).toBe(step);
    expect(totpStep(secret, codeAt(secret, now - 30_000), now)).toBe(step - 1);
    expect(totpStep(secret, codeAt(secret, now + 30_000), now)).toBe(step + 1);
    expect(totpStep(secret, codeAt(secret, now - 90_000), now)).toBeNull();
    expect(totpStep(secret, "12345", now)).toBeNull();
  });

  it("sets up at acceptance only with a right code, signs in with a ticket, and never takes a code twice", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("pw");
    await addMember(ctx, { email, role: "admin" });
    const token = await invitationToken(email);
    const { secret } = await invitationTotpSecret(db, token, IP);
    const wrong = codeAt(secret) === "000000" ? "111111" : "000000";
    expect(
      (await appErrorOf(acceptInvitationWithPassword(db, { token, password: "a long own password", code: wrong }, IP))).details,
    ).toEqual({ reason: "totp_code_wrong" });
    await acceptInvitationWithPassword(db, { token, password: "a long own password", code: codeAt(secret, Date.now() - 30_000) }, IP);
    const member = await db.consoleMember.findFirstOrThrow({ where: { orgId: org.orgId, email } });
    expect(member.passwordHash).toMatch(/^scrypt\$/);
    expect(member.totpSecret).not.toContain(secret);

    const code = codeAt(secret);
    const started = await startPasswordSignIn(db, { email: email.toUpperCase(), password: "a long own password", code }, IP);
    expect(started.organizations).toEqual([{ id: org.orgId, name: expect.any(String) }]);
    const claims = await completeTicketSignIn(db, { ticket: started.ticket }, meta);
    expect(claims).toMatchObject({ orgId: org.orgId, email, role: "admin" });
    expect(signedInWithOwnCredentials((await resolveConsoleSession(db, claims, req))!)).toBe(true);
    // The ticket and the code are each good once.
    expect((await appErrorOf(completeTicketSignIn(db, { ticket: started.ticket }, meta))).code).toBe("UNAUTHORIZED");
    expect((await appErrorOf(startPasswordSignIn(db, { email, password: "a long own password", code }, IP))).code).toBe("UNAUTHORIZED");
  });

  it("answers an unknown address exactly like a wrong password, and wrong codes are limited per member", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("enum");
    await addMember(ctx, { email, role: "viewer" });
    const secret = await acceptWithPassword(email);
    const unknown = await appErrorOf(startPasswordSignIn(db, { email: addr("nobody"), password: "whatever it is", code: "123456" }, IP));
    const wrongPassword = await appErrorOf(startPasswordSignIn(db, { email, password: "not the password", code: codeAt(secret) }, IP));
    expect([unknown.code, unknown.message, unknown.details]).toEqual([wrongPassword.code, wrongPassword.message, wrongPassword.details]);

    const wrong = codeAt(secret) === "000000" ? "111111" : "000000";
    const ip = "192.0.2.90";
    for (let i = 0; i < CREDENTIAL_FAILURES.perMember; i++) {
      expect((await appErrorOf(startPasswordSignIn(db, { email, password: "a long own password", code: wrong }, ip))).code).toBe(
        "UNAUTHORIZED",
      );
    }
    const limited = await appErrorOf(startPasswordSignIn(db, { email, password: "a long own password", code: codeAt(secret) }, ip));
    expect(limited.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers?.["Retry-After"])).toBeGreaterThan(0);
  });
});

describe("sessions", () => {
  it("lists the member's own sessions with this one marked; a revoked session is refused at its next request", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx, claims: ownerClaims } = await owner(org);
    const email = addr("sess");
    await addMember(ctx, { email, role: "operator" });
    const authenticator = await acceptWithPasskey(email);
    const laptop = await signInWithPasskey(authenticator);
    const phone = await signInWithPasskey(authenticator);
    const onLaptop = (await resolveConsoleSession(db, laptop, req))!;
    const { sessions } = await listOwnSessions(onLaptop);
    expect(sessions.map((s) => [s.id, s.current, s.method, s.userAgent])).toEqual(
      expect.arrayContaining([
        [laptop.sid, true, "passkey", "Vitest"],
        [phone.sid, false, "passkey", "Vitest"],
      ]),
    );
    await revokeOwnSession(onLaptop, phone.sid);
    expect(await resolveConsoleSession(db, phone, req)).toBeNull();
    expect(await resolveConsoleSession(db, laptop, req)).not.toBeNull();
    // Another member's session is not theirs to end.
    expect((await appErrorOf(revokeOwnSession(onLaptop, ownerClaims.sid))).code).toBe("NOT_FOUND");
  });

  it("deactivation and an admin's 'end all sessions' end the member's sessions at once", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { ctx } = await owner(org);
    const email = addr("leaver");
    await addMember(ctx, { email, role: "compliance_officer" });
    const authenticator = await acceptWithPasskey(email);
    const first = await signInWithPasskey(authenticator);
    expect(await endMemberSessions(ctx, email)).toEqual({ email, ended: 1 });
    expect(await resolveConsoleSession(db, first, req)).toBeNull();
    const second = await signInWithPasskey(authenticator);
    expect(await resolveConsoleSession(db, second, req)).not.toBeNull();
    await removeMember(ctx, email);
    expect(await resolveConsoleSession(db, second, req)).toBeNull();
    // And the passkey no longer opens a session.
    expect((await appErrorOf(signInWithPasskey(authenticator))).code).toBe("UNAUTHORIZED");
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "member.sessions_ended", subject: email } })).toBe(1);
  });

  it("setting up own credentials ends that member's shared-password sessions, and nobody else's", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const isOpen = async (claims: Parameters<typeof resolveConsoleSession>[1]) => (await resolveConsoleSession(db, claims, req)) !== null;
    // The first owner, signed in with the shared password on two devices (bootstrap: no members yet).
    const ownerEmail = addr("founder");
    const laptop = await owner(org, ownerEmail);
    const phone = await owner(org, ownerEmail);
    const { url } = await startOwnCredentialsSetup(laptop.ctx);
    const ownerToken = /\/console\/invite\/([A-Za-z0-9_-]+)$/.exec(url)![1]!;
    // A member invited meanwhile signs in with the shared password and the emailed code.
    const colleague = addr("colleague");
    await addMember(laptop.ctx, { email: colleague, role: "operator" });
    const colleagueToken = await invitationToken(colleague);
    const creds = { organizationId: org.orgId, email: colleague, password: org.consolePassword };
    const started = await startConsoleSignIn(db, creds, IP);
    if (!started.codeRequired) throw new Error("a member's shared-password sign-in asks for a code");
    const [mail] = await listOutbox(db, { to: colleague, limit: 1 });
    const code = /\b(\d{6})\b/.exec(mail!.body)![1]!;
    const colleagueShared = await completeConsoleSignIn(db, { ...creds, challengeId: started.challengeId, code }, IP);
    expect(await isOpen(colleagueShared)).toBe(true);

    // The owner finishes with a password and authenticator app: both shared-password sessions end at once.
    const { secret } = await invitationTotpSecret(db, ownerToken, IP);
    const password = "the founder's own password";
    await acceptInvitationWithPassword(db, { token: ownerToken, password, code: codeAt(secret, Date.now() - 30_000) }, IP);
    expect(await isOpen(laptop.claims)).toBe(false);
    expect(await isOpen(phone.claims)).toBe(false);
    const ended = await db.consoleSession.findMany({ where: { id: { in: [laptop.claims.sid, phone.claims.sid] } } });
    expect(ended.map((s) => s.revokedAt)).toEqual([expect.any(Date), expect.any(Date)]);
    const accepted = await db.auditEntry.findFirstOrThrow({
      where: { orgId: org.orgId, action: "member.invitation_accepted", subject: ownerEmail },
    });
    expect(accepted.data).toEqual({ method: "password_totp", sharedPasswordSessionsEnded: 2 });
    // The colleague's shared-password session is theirs, and stays.
    expect(await isOpen(colleagueShared)).toBe(true);
    // The owner signs in with what they set up.
    const own = await startPasswordSignIn(db, { email: ownerEmail, password, code: codeAt(secret) }, IP);
    const ownClaims = await completeTicketSignIn(db, { ticket: own.ticket }, meta);
    expect(signedInWithOwnCredentials((await resolveConsoleSession(db, ownClaims, req))!)).toBe(true);

    // The colleague sets up a passkey from their invitation: their shared-password session ends too.
    const authenticator = new SoftAuthenticator(origin());
    const { challengeId, options } = await invitationPasskeyOptions(db, colleagueToken, IP);
    await acceptInvitationWithPasskey(db, { token: colleagueToken, challengeId, response: authenticator.register(options) as never }, IP);
    expect(await isOpen(colleagueShared)).toBe(false);
    expect(await isOpen(ownClaims)).toBe(true);
  });

  it("four-eyes approval needs a session opened with the member's own credentials", async () => {
    const org = await createTestOrg();
    const { ctx } = await owner(org);
    expect(signedInWithOwnCredentials(ctx)).toBe(false);
    const refused = await appErrorOf(approveClear(ctx, "00000000-0000-4000-8000-000000000000", {}));
    expect(refused.details).toEqual({ reason: "own_credentials_required" });
  });
});

describe("signing out", () => {
  it("ends the session's row and writes one audit entry, however often the sign-out arrives", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { claims } = await owner(org);
    await endSignedOutSession(db, claims.sid);
    await endSignedOutSession(db, claims.sid);
    await endSignedOutSession(db, "not-a-session");
    expect(await resolveConsoleSession(db, claims, req)).toBeNull();
    const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId, action: "console.signed_out" } });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: `member:${claims.email}`, subject: claims.email, data: { sessionId: claims.sid } });
  });
});
