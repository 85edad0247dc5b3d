import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { getDb } from "../../db/client";
import { listOutbox } from "../../providers/messaging/dev-outbox";
import { createTestOrg, type TestOrg } from "../../testing/harness";
import { appErrorOf } from "../../testing/rejection";
import { OTP, startChallenge } from "../contacts";
import { CONSOLE_SIGN_IN, changeConsolePassword, completeConsoleSignIn, resolveConsoleSession, startConsoleSignIn } from "./console-auth";
import { addMember, removeMember } from "./members";

const IP = "203.0.113.9";
const req = { clientIp: IP, correlationId: "t" };

async function latestCode(email: string) {
  const [msg] = await listOutbox(await getDb(), { to: email, limit: 1 });
  return /\b(\d{6})\b/.exec(msg!.body)![1]!;
}

async function signInMember(org: TestOrg, email: string, ip = IP) {
  const db = await getDb();
  const creds = { organizationId: org.orgId, email, password: org.consolePassword };
  const started = await startConsoleSignIn(db, creds, ip);
  expect(started.codeRequired).toBe(true);
  const challengeId = (started as { challengeId: string }).challengeId;
  return completeConsoleSignIn(db, { ...creds, challengeId, code: await latestCode(email) }, ip);
}

/** boss@example.com signed in while there are no members yet: the password alone makes them owner. */
async function bootstrapOwner(org: TestOrg) {
  const db = await getDb();
  const claims = await completeConsoleSignIn(
    db,
    { organizationId: org.orgId, email: "boss@example.com", password: org.consolePassword },
    IP,
  );
  return { claims, ctx: (await resolveConsoleSession(db, claims, req))! };
}

const ownerCtx = async (org: TestOrg) => (await bootstrapOwner(org)).ctx;

describe("console sign-in", () => {
  it("shows a local sandbox the emailed code in the answer, and nothing of it when dev codes are off", async () => {
    const org = await createTestOrg();
    const { ctx } = await bootstrapOwner(org);
    const email = `dev-code-${randomUUID()}@example.com`;
    await addMember(ctx, { email, role: "viewer" });
    const db = await getDb();
    const creds = { organizationId: org.orgId, email, password: org.consolePassword };
    const started = await startConsoleSignIn(db, creds, IP);
    expect((started as { devCode?: string }).devCode).toBe(await latestCode(email));
    process.env.BI_DEV_CODES = "false";
    resetEnvCache();
    try {
      const quiet = await startConsoleSignIn(db, creds, IP);
      expect(quiet).not.toHaveProperty("devCode");
    } finally {
      delete process.env.BI_DEV_CODES;
      resetEnvCache();
    }
  });

  it("while there are no members, any address with the right password is owner, without a code", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const creds = { organizationId: org.orgId, email: "Founder@Example.com", password: org.consolePassword };
    expect(await startConsoleSignIn(db, creds, IP)).toEqual({ codeRequired: false });
    const claims = await completeConsoleSignIn(db, creds, IP);
    expect(claims).toMatchObject({ orgId: org.orgId, email: "founder@example.com", role: "owner", bootstrap: true });
    const svc = await resolveConsoleSession(db, claims, req);
    expect(svc?.actor).toEqual({ type: "member", email: "founder@example.com", role: "owner" });
    const entry = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "console.signed_in" } });
    expect(entry.actor).toBe("member:founder@example.com");
  });

  it("once there are members, only an active member signs in, and only with the emailed code", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { claims: owner } = await bootstrapOwner(org);
    const bossCtx = (await resolveConsoleSession(db, owner, req))!;
    await addMember(bossCtx, { email: "co@example.com", role: "compliance_officer" });

    // The bootstrap session carries on as the owner member it became; a stranger no longer gets in.
    expect((await resolveConsoleSession(db, owner, req))?.actor).toMatchObject({ email: "boss@example.com", role: "owner" });
    const stranger = { organizationId: org.orgId, email: "stranger@example.com", password: org.consolePassword };
    expect((await appErrorOf(startConsoleSignIn(db, stranger, IP))).details).toEqual({ reason: "sign_in_failed" });

    // No code, a wrong code: refused with the same answer as a wrong password.
    const creds = { organizationId: org.orgId, email: "co@example.com", password: org.consolePassword };
    const wrongPassword = await appErrorOf(startConsoleSignIn(db, { ...creds, password: "nope" }, IP));
    const { challengeId } = (await startConsoleSignIn(db, creds, IP)) as { challengeId: string };
    const noCode = await appErrorOf(completeConsoleSignIn(db, creds, IP));
    const code = await latestCode("co@example.com");
    const wrongCode = await appErrorOf(
      completeConsoleSignIn(db, { ...creds, challengeId, code: code === "000000" ? "111111" : "000000" }, IP),
    );
    for (const e of [wrongPassword, noCode, wrongCode])
      expect([e.code, e.message, e.details]).toEqual(["UNAUTHORIZED", wrongPassword.message, { reason: "sign_in_failed" }]);

    const claims = await completeConsoleSignIn(db, { ...creds, challengeId, code }, IP);
    expect(claims).toMatchObject({ role: "compliance_officer", bootstrap: false });
    // The code is single use.
    expect((await appErrorOf(completeConsoleSignIn(db, { ...creds, challengeId, code }, IP))).code).toBe("UNAUTHORIZED");
  });

  it("a deactivated member's session stops at the next request; the role is read from the row each time", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const { claims: owner } = await bootstrapOwner(org);
    const boss = (await resolveConsoleSession(db, owner, req))!;
    await addMember(boss, { email: "op@example.com", role: "operator" });
    const op = await signInMember(org, "op@example.com");
    expect((await resolveConsoleSession(db, op, req))?.actor).toMatchObject({ role: "operator" });
    await addMember(boss, { email: "op@example.com", role: "viewer" });
    expect((await resolveConsoleSession(db, op, req))?.actor).toMatchObject({ role: "viewer" });
    await removeMember(boss, "op@example.com");
    expect(await resolveConsoleSession(db, op, req)).toBeNull();
  });

  it("changing the console password ends every session and checks the current one", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    const claims = await completeConsoleSignIn(
      db,
      { organizationId: org.orgId, email: "boss@example.com", password: org.consolePassword },
      IP,
    );
    const ctx = (await resolveConsoleSession(db, claims, req))!;
    expect((await appErrorOf(changeConsolePassword(ctx, { currentPassword: "wrong", newPassword: "a-new-password-1" }))).code).toBe(
      "FORBIDDEN",
    );
    await changeConsolePassword(ctx, { currentPassword: org.consolePassword, newPassword: "a-new-password-1" });
    expect(await resolveConsoleSession(db, claims, req)).toBeNull();
    const again = await completeConsoleSignIn(
      db,
      { organizationId: org.orgId, email: "boss@example.com", password: "a-new-password-1" },
      IP,
    );
    expect(await resolveConsoleSession(db, again, req)).not.toBeNull();
    expect(
      await db.auditEntry.count({ where: { orgId: org.orgId, action: "console_password.changed", actor: "member:boss@example.com" } }),
    ).toBe(1);
  });

  it("wrong passwords slow the client address that sends them, and never keep a member out from their own", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    await addMember(await ownerCtx(org), { email: "co@example.com", role: "compliance_officer" });
    const attacker = "198.51.100.7";
    const victim = { organizationId: org.orgId, email: "co@example.com" };
    for (let i = 0; i < CONSOLE_SIGN_IN.failuresPerClientIp; i++) {
      expect((await appErrorOf(startConsoleSignIn(db, { ...victim, password: `guess-${i}` }, attacker))).code).toBe("UNAUTHORIZED");
    }
    // The attacker's address is refused whatever it sends, without saying which part was wrong.
    const limited = await appErrorOf(startConsoleSignIn(db, { ...victim, password: org.consolePassword }, attacker));
    expect(limited.code).toBe("RATE_LIMITED");
    expect(limited.message).not.toMatch(/password|organization|email/i);
    // The officer, from their own address, signs in as usual.
    expect(await signInMember(org, "co@example.com", "192.0.2.44")).toMatchObject({ email: "co@example.com", role: "compliance_officer" });
  });

  it("after the right password, failed codes are limited per member of the organization", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    await addMember(await ownerCtx(org), { email: "co@example.com", role: "compliance_officer" });
    const creds = { organizationId: org.orgId, email: "co@example.com", password: org.consolePassword };
    const ip = "192.0.2.45";
    const { challengeId } = (await startConsoleSignIn(db, creds, ip)) as { challengeId: string };
    for (let i = 0; i < CONSOLE_SIGN_IN.failuresPerMember; i++) {
      // A wrong code for the real challenge, then guesses at challenges that do not exist.
      const guess = { ...creds, challengeId: i === 0 ? challengeId : randomUUID(), code: String(100000 + i) };
      expect((await appErrorOf(completeConsoleSignIn(db, guess, ip))).code).toBe("UNAUTHORIZED");
    }
    expect((await appErrorOf(startConsoleSignIn(db, creds, "192.0.2.46"))).code).toBe("RATE_LIMITED");
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "console.signed_in", subject: "co@example.com" } })).toBe(0);
  });

  it("codes sent to an address for another purpose do not use up its console sign-in codes", async () => {
    const org = await createTestOrg();
    const db = await getDb();
    await addMember(await ownerCtx(org), { email: "co@example.com", role: "compliance_officer" });
    for (let i = 0; i < OTP.sendsPerAddressPerHour; i++) {
      await startChallenge(db, {
        orgId: null,
        purpose: "billing_signup",
        channel: "email",
        address: "co@example.com",
        clientIp: `192.0.2.${100 + i}`,
        message: (code) => ({ subject: "Your code", text: `Your code is ${code}.` }),
      });
    }
    const refused = await appErrorOf(
      startChallenge(db, {
        orgId: null,
        purpose: "billing_signup",
        channel: "email",
        address: "co@example.com",
        clientIp: "192.0.2.99",
        message: (code) => ({ subject: "Your code", text: `Your code is ${code}.` }),
      }),
    );
    expect(refused.code).toBe("RATE_LIMITED");
    expect(await signInMember(org, "co@example.com", "192.0.2.47")).toMatchObject({ email: "co@example.com" });
  });

  it("rejects an unknown organization and a malformed id like a wrong password", async () => {
    const db = await getDb();
    const org = await createTestOrg();
    const a = await appErrorOf(
      startConsoleSignIn(
        db,
        { organizationId: "00000000-0000-4000-8000-000000000000", email: "x@example.com", password: org.consolePassword },
        IP,
      ),
    );
    const b = await appErrorOf(
      startConsoleSignIn(db, { organizationId: "not-a-uuid", email: "y@example.com", password: org.consolePassword }, IP),
    );
    expect([a.details, b.details]).toEqual([{ reason: "sign_in_failed" }, { reason: "sign_in_failed" }]);
  });
});
