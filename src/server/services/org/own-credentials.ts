import type { ServiceContext } from "../../context";
import { conflict, forbidden, notFound } from "../../errors";
import { appendAudit } from "../audit";
import { signedInWithOwnCredentials } from "./console-auth-sessions";

// A member's own console credentials after set-up (docs/security.md, "Console sign-in"): the
// passkeys and the password with authenticator app they hold, each removable, never the last one.
// Changing them needs a session opened with them: the organization's shared password, which
// anyone in the team may know, must not be able to add or remove a member's own sign-in.

async function memberOf(ctx: ServiceContext) {
  if (ctx.actor.type !== "member") throw forbidden("console_role", "Only a console member has console credentials.");
  const member = await ctx.db.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email: ctx.actor.email } } });
  if (!member?.active) throw conflict("not_a_member", "You are not an active member of this organization.");
  return member;
}

/** Refuses unless this session was opened with the member's own passkey or password and code. */
export function assertOwnCredentialSession(ctx: ServiceContext) {
  if (signedInWithOwnCredentials(ctx) !== true)
    throw forbidden("own_credentials_required", "Sign in with your own passkey or password to change your sign-in.");
}

/** The Security page's list: each passkey (when added, when last used) and whether a password with an authenticator app is set. */
export async function listOwnCredentials(ctx: ServiceContext) {
  if (ctx.actor.type !== "member") throw forbidden("console_role", "Only a console member has console credentials.");
  const member = await ctx.db.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email: ctx.actor.email } } });
  // A new organization's first owner is not a member row until they set up their own sign-in.
  if (!member) return { passkeys: [], password: false };
  const passkeys = await ctx.db.consolePasskey.findMany({
    where: { memberId: member.id },
    orderBy: { createdAt: "asc" },
    select: { id: true, createdAt: true, lastUsedAt: true, transports: true },
  });
  return {
    passkeys: passkeys.map((p) => ({
      id: p.id,
      createdAt: p.createdAt.toISOString(),
      lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
      transports: p.transports,
    })),
    password: member.passwordHash !== null,
  };
}

/**
 * Removes one of the member's own credentials, unless it is the last: a member without any would
 * be sent back to the shared password, which their own sign-in exists to replace.
 */
export async function removeOwnCredential(ctx: ServiceContext, which: { passkeyId: string } | { password: true }) {
  assertOwnCredentialSession(ctx);
  const member = await memberOf(ctx);
  return ctx.db.$transaction(async (tx) => {
    // The member row is the lock two removals in two tabs queue on, so they cannot both pass the last-one check.
    await tx.$queryRaw`SELECT id FROM console_members WHERE id = ${member.id}::uuid FOR UPDATE`;
    const fresh = await tx.consoleMember.findUniqueOrThrow({ where: { id: member.id } });
    const passkeys = await tx.consolePasskey.count({ where: { memberId: member.id } });
    const held = passkeys + (fresh.passwordHash ? 1 : 0);
    if ("passkeyId" in which) {
      const found = await tx.consolePasskey.findFirst({ where: { id: which.passkeyId, memberId: member.id } });
      if (!found) throw notFound("Passkey");
      if (held <= 1) throw conflict("last_credential", "This is your only way to sign in: add another before you remove it.");
      await tx.consolePasskey.delete({ where: { id: found.id } });
    } else {
      if (!fresh.passwordHash) throw notFound("Password");
      if (held <= 1) throw conflict("last_credential", "This is your only way to sign in: add a passkey before you remove it.");
      await tx.consoleMember.update({ where: { id: member.id }, data: { passwordHash: null, totpSecret: null, totpLastStep: null } });
    }
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "member.credential_removed",
        subjectType: "member",
        subject: member.email,
        data: { kind: "passkeyId" in which ? "passkey" : "password_totp" },
      },
    );
    return { removed: true as const };
  });
}
