import type { ConsoleMember } from "@/generated/prisma/client.ts";
import { roleRank } from "@/lib/roles";
import type { ServiceContext } from "../../context";
import type { Prisma, Tx } from "../../db/client";
import { conflict, forbidden, notFound } from "../../errors";
import { normalizeEmail } from "../../platform/contact-address";
import { appendAudit } from "../audit";
import { actingRole } from "./acting-person";
import { revokeSessionsOf } from "./console-auth-sessions";
import type { AddMemberInput, MemberRole, UpdateMemberInput } from "./members.schema";
import { hasOwnCredentials, invitationUrl, issueInvitation, sendInvitation, voidInvitation } from "./members-invitations";
import { assertOwnCredentialSession } from "./own-credentials";

export const memberView = (m: ConsoleMember) => ({
  email: m.email,
  role: m.role,
  active: m.active,
  createdAt: m.createdAt.toISOString(),
  updatedAt: m.updatedAt.toISOString(),
});

export async function listMembers(ctx: ServiceContext) {
  const members = await ctx.db.consoleMember.findMany({ where: { orgId: ctx.org.id }, orderBy: [{ active: "desc" }, { email: "asc" }] });
  return { members: members.map(memberView) };
}

/**
 * The console's list: each member with how they sign in ("passkey", "password_totp", "invited"
 * while an invitation is open, "org_password" for a member from before own credentials who has
 * not set them up) and how many sessions they have open.
 */
export async function listMembersForConsole(ctx: ServiceContext) {
  const members = await ctx.db.consoleMember.findMany({
    where: { orgId: ctx.org.id },
    orderBy: [{ active: "desc" }, { email: "asc" }],
    include: { invitation: { select: { expiresAt: true } }, _count: { select: { passkeys: true } } },
  });
  const open = await ctx.db.consoleSession.groupBy({
    by: ["email"],
    where: { orgId: ctx.org.id, revokedAt: null, lastSeenAt: { gt: new Date(ctx.now().getTime() - SESSION_LIFETIME_MS) } },
    _count: { _all: true },
  });
  const sessionsOf = new Map(open.map((o) => [o.email, o._count._all]));
  return {
    members: members.map((m) => ({
      ...memberView(m),
      signIn: (m._count.passkeys > 0
        ? "passkey"
        : m.passwordHash
          ? "password_totp"
          : m.invitation && m.invitation.expiresAt > ctx.now()
            ? "invited"
            : "org_password") as "passkey" | "password_totp" | "invited" | "org_password",
      invitationExpiresAt: m.invitation?.expiresAt.toISOString() ?? null,
      openSessions: sessionsOf.get(m.email) ?? 0,
    })),
  };
}

/** Console sessions last a working day (src/server/auth/options.ts); older rows are no longer open. */
const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

/**
 * A console member cannot grant a role above their own, nor change someone who holds a higher
 * one; nor can a key a member minted, which acts with that member's current role. The tenant's
 * backend keys act for the whole organization and have no ceiling (it is how an organization
 * recovers when nobody can sign in).
 */
async function assertCeiling(tx: Tx, ctx: ServiceContext, roles: (MemberRole | undefined)[]) {
  const acting = await actingRole(ctx, tx);
  if (acting === null) return;
  const own = acting === "none" ? -1 : roleRank(acting);
  for (const r of roles) {
    if (r && roleRank(r) > own)
      throw forbidden("console_role", `A ${acting === "none" ? "former member" : acting} cannot act on the ${r} role.`);
  }
}

/**
 * Refuses a change that would leave the organization with no active owner, when `target` is one
 * today. The organization row is locked by the caller, so two parallel demotions cannot both pass.
 */
async function assertNotLastOwner(tx: Tx, orgId: string, target: ConsoleMember, after: { role: MemberRole; active: boolean }) {
  if (target.role !== "owner" || !target.active || (after.role === "owner" && after.active)) return;
  const others = await tx.consoleMember.count({ where: { orgId, role: "owner", active: true, id: { not: target.id } } });
  if (others === 0) throw conflict("last_owner", "The last active owner cannot be removed or demoted; make another member owner first.");
}

/** Serialises membership changes per organization (NO KEY UPDATE: other writers' inserts are not blocked). */
async function lockOrg(tx: Tx, orgId: string) {
  await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${orgId}::uuid FOR NO KEY UPDATE`;
}

const audit = (tx: Tx, ctx: ServiceContext, action: string, email: string, data: Prisma.InputJsonObject) =>
  appendAudit(tx, { orgId: ctx.org.id, actor: ctx.actor }, { action, subjectType: "member", subject: email, data });

/**
 * Adds a member, or updates the role of and reactivates an existing one (interface spec). The
 * first member added from a bootstrap console session (no members yet, signed in as owner by the
 * password alone) also makes the signed-in address an owner: otherwise adding a colleague would
 * lock the person who added them out of the console.
 */
export async function addMember(ctx: ServiceContext, input: AddMemberInput) {
  const invites: { member: ConsoleMember; token: string }[] = [];
  const view = await addMemberInTransaction(ctx, input, invites);
  for (const i of invites) await sendInvitation(ctx.db, ctx.org, i.member, i.token);
  return view;
}

/** A new or reactivated member without credentials of their own gets an invitation (emailed once this commits). */
async function invite(tx: Tx, ctx: ServiceContext, member: ConsoleMember, invites: { member: ConsoleMember; token: string }[]) {
  if (await hasOwnCredentials(tx, member)) return;
  invites.push({ member, token: await issueInvitation(tx, ctx, member, "invited") });
}

async function addMemberInTransaction(ctx: ServiceContext, input: AddMemberInput, invites: { member: ConsoleMember; token: string }[]) {
  const email = normalizeEmail(input.email);
  return ctx.db.$transaction(async (tx) => {
    await lockOrg(tx, ctx.org.id);
    const existing = await tx.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email } } });
    await assertCeiling(tx, ctx, [input.role, existing?.role]);
    if (!existing && ctx.actor.type === "member" && ctx.actor.email !== email) {
      const count = await tx.consoleMember.count({ where: { orgId: ctx.org.id } });
      if (count === 0) {
        const self = await tx.consoleMember.create({ data: { orgId: ctx.org.id, email: ctx.actor.email, role: "owner" } });
        await audit(tx, ctx, "member.added", ctx.actor.email, { role: "owner", bootstrap: true });
        await invite(tx, ctx, self, invites);
      }
    }
    if (!existing) {
      const created = await tx.consoleMember.create({ data: { orgId: ctx.org.id, email, role: input.role } });
      await audit(tx, ctx, "member.added", email, { role: input.role });
      await invite(tx, ctx, created, invites);
      return memberView(created);
    }
    if (existing.active && existing.role === input.role) return memberView(existing);
    await assertNotLastOwner(tx, ctx.org.id, existing, { role: input.role, active: true });
    const updated = await tx.consoleMember.update({ where: { id: existing.id }, data: { role: input.role, active: true } });
    await audit(tx, ctx, "member.updated", email, {
      before: { role: existing.role, active: existing.active },
      after: { role: updated.role, active: true },
    });
    if (!existing.active) await invite(tx, ctx, updated, invites);
    return memberView(updated);
  });
}

async function findMember(tx: Tx, orgId: string, rawEmail: string) {
  const member = await tx.consoleMember.findUnique({ where: { orgId_email: { orgId, email: normalizeEmail(rawEmail) } } });
  if (!member) throw notFound("Member");
  return member;
}

/** Changes role and/or active; a change that changes nothing writes nothing. */
export async function updateMember(ctx: ServiceContext, rawEmail: string, input: UpdateMemberInput) {
  return ctx.db.$transaction(async (tx) => {
    await lockOrg(tx, ctx.org.id);
    const member = await findMember(tx, ctx.org.id, rawEmail);
    const after = { role: input.role ?? member.role, active: input.active ?? member.active };
    await assertCeiling(tx, ctx, [member.role, after.role]);
    if (after.role === member.role && after.active === member.active) return memberView(member);
    await assertNotLastOwner(tx, ctx.org.id, member, after);
    const updated = await tx.consoleMember.update({ where: { id: member.id }, data: after });
    await audit(tx, ctx, "member.updated", member.email, { before: { role: member.role, active: member.active }, after });
    if (!after.active) await endAccess(tx, ctx, member);
    return memberView(updated);
  });
}

/** A deactivated member's open invitation is void and every session they have ends at its next request. */
async function endAccess(tx: Tx, ctx: ServiceContext, member: ConsoleMember) {
  await voidInvitation(tx, member.id);
  await revokeSessionsOf(tx, ctx.org.id, member.email, ctx.now());
}

/** An admin ends every session of a member (a lost laptop): they must sign in again. */
export async function endMemberSessions(ctx: ServiceContext, rawEmail: string) {
  return ctx.db.$transaction(async (tx) => {
    const member = await findMember(tx, ctx.org.id, rawEmail);
    await assertCeiling(tx, ctx, [member.role]);
    const ended = await revokeSessionsOf(tx, ctx.org.id, member.email, ctx.now());
    if (ended > 0) await audit(tx, ctx, "member.sessions_ended", member.email, { sessions: ended });
    return { email: member.email, ended };
  });
}

/** Deactivates (the row and its audit history stay); the member's sessions end at once and an open invitation is void. */
export async function removeMember(ctx: ServiceContext, rawEmail: string) {
  return ctx.db.$transaction(async (tx) => {
    await lockOrg(tx, ctx.org.id);
    const member = await findMember(tx, ctx.org.id, rawEmail);
    await assertCeiling(tx, ctx, [member.role]);
    if (!member.active) return memberView(member);
    await assertNotLastOwner(tx, ctx.org.id, member, { role: member.role, active: false });
    const updated = await tx.consoleMember.update({ where: { id: member.id }, data: { active: false } });
    await audit(tx, ctx, "member.deactivated", member.email, { role: member.role });
    await endAccess(tx, ctx, member);
    return memberView(updated);
  });
}

/**
 * A signed-in member sets up their own credentials now, or adds another (a second passkey, or a
 * password with an authenticator app): a fresh invitation whose
 * link is handed straight back to them (no email round trip; they are already signed in). The
 * first owner of a new organization, signed in with the organization password alone, becomes its
 * owner member on the way.
 */
export async function startOwnCredentialsSetup(ctx: ServiceContext) {
  if (ctx.actor.type !== "member") throw forbidden("console_role", "Only a console member can set up console credentials.");
  const email = ctx.actor.email;
  const existing = await ctx.db.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email } } });
  if (!existing) await addMemberInTransaction(ctx, { email, role: "owner" }, []);
  return ctx.db.$transaction(async (tx) => {
    const member = await tx.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email } } });
    if (!member?.active) throw conflict("not_a_member", "You are not an active member of this organization.");
    // Adding another passkey or replacing the password and app needs a session opened with them
    // (own-credentials.ts): the shared password must never add a sign-in to a member who has one.
    if (await hasOwnCredentials(tx, member)) assertOwnCredentialSession(ctx);
    return { url: invitationUrl(await issueInvitation(tx, ctx, member, "self")) };
  });
}
