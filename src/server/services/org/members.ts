import type { ConsoleMember } from "@/generated/prisma/client.ts";
import { roleRank } from "@/lib/roles";
import type { ServiceContext } from "../../context";
import type { Prisma, Tx } from "../../db/client";
import { conflict, forbidden, notFound } from "../../errors";
import { normalizeEmail } from "../../platform/contact-address";
import { appendAudit } from "../audit";
import { actingRole } from "./acting-person";
import type { AddMemberInput, MemberRole, UpdateMemberInput } from "./members.schema";

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
  const email = normalizeEmail(input.email);
  return ctx.db.$transaction(async (tx) => {
    await lockOrg(tx, ctx.org.id);
    const existing = await tx.consoleMember.findUnique({ where: { orgId_email: { orgId: ctx.org.id, email } } });
    await assertCeiling(tx, ctx, [input.role, existing?.role]);
    if (!existing && ctx.actor.type === "member" && ctx.actor.email !== email) {
      const count = await tx.consoleMember.count({ where: { orgId: ctx.org.id } });
      if (count === 0) {
        await tx.consoleMember.create({ data: { orgId: ctx.org.id, email: ctx.actor.email, role: "owner" } });
        await audit(tx, ctx, "member.added", ctx.actor.email, { role: "owner", bootstrap: true });
      }
    }
    if (!existing) {
      const created = await tx.consoleMember.create({ data: { orgId: ctx.org.id, email, role: input.role } });
      await audit(tx, ctx, "member.added", email, { role: input.role });
      return memberView(created);
    }
    if (existing.active && existing.role === input.role) return memberView(existing);
    await assertNotLastOwner(tx, ctx.org.id, existing, { role: input.role, active: true });
    const updated = await tx.consoleMember.update({ where: { id: existing.id }, data: { role: input.role, active: true } });
    await audit(tx, ctx, "member.updated", email, {
      before: { role: existing.role, active: existing.active },
      after: { role: updated.role, active: true },
    });
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
    return memberView(updated);
  });
}

/** Deactivates (the row and its audit history stay); the member's session stops at its next request. */
export async function removeMember(ctx: ServiceContext, rawEmail: string) {
  return ctx.db.$transaction(async (tx) => {
    await lockOrg(tx, ctx.org.id);
    const member = await findMember(tx, ctx.org.id, rawEmail);
    await assertCeiling(tx, ctx, [member.role]);
    if (!member.active) return memberView(member);
    await assertNotLastOwner(tx, ctx.org.id, member, { role: member.role, active: false });
    const updated = await tx.consoleMember.update({ where: { id: member.id }, data: { active: false } });
    await audit(tx, ctx, "member.deactivated", member.email, { role: member.role });
    return memberView(updated);
  });
}
