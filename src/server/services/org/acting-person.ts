import type { Role } from "@/lib/roles";
import { actorId, type ServiceContext } from "../../context";
import type { DbOrTx } from "../../db/client";

/**
 * Who is really acting. A key minted by a console member acts as that member (directly, or through
 * keys that key minted); the tenant's backend keys (provisioning, or minted by such a key) are each
 * a person of their own. While an organization has no members, anyone with the console password
 * signs in as owner under any address, so every member address is one and the same person.
 */
const BOOTSTRAP = "console:password";
const MAX_KEY_CHAIN = 8;

async function hasMembers(db: DbOrTx, orgId: string): Promise<boolean> {
  return (await db.consoleMember.count({ where: { orgId } })) > 0;
}

/** The member address behind an actor id (`member:` itself, or a key minted by one), or null. */
async function memberBehind(db: DbOrTx, orgId: string, id: string): Promise<string | null> {
  let current = id;
  for (let i = 0; i < MAX_KEY_CHAIN && current.startsWith("api_key:"); i++) {
    const key = await db.apiKey.findFirst({ where: { id: current.slice("api_key:".length), orgId }, select: { createdBy: true } });
    if (!key) return null;
    current = key.createdBy;
  }
  return current.startsWith("member:") ? current.slice("member:".length) : null;
}

/** The person behind a recorded actor id, for comparing two actors in four-eyes checks. */
export async function personOf(db: DbOrTx, orgId: string, id: string): Promise<string> {
  const email = await memberBehind(db, orgId, id);
  if (email === null) return id;
  return (await hasMembers(db, orgId)) ? `member:${email}` : BOOTSTRAP;
}

/** Whether two recorded actor ids are the same person (four-eyes: a proposer may not approve). */
export async function samePerson(db: DbOrTx, orgId: string, a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  return (await personOf(db, orgId, a)) === (await personOf(db, orgId, b));
}

/**
 * The console role the caller acts with, for limits that follow a member's role: the member's own,
 * or the current role of the member who minted the key ("none" once that member is gone or
 * deactivated). Null for the tenant's backend keys and the system: they act for the organization.
 */
export async function actingRole(ctx: ServiceContext, db: DbOrTx = ctx.db): Promise<Role | "none" | null> {
  if (ctx.actor.type === "member") return ctx.actor.role as Role;
  const email = await memberBehind(db, ctx.org.id, actorId(ctx.actor));
  if (email === null) return null;
  if (!(await hasMembers(db, ctx.org.id))) return "owner";
  const m = await db.consoleMember.findFirst({ where: { orgId: ctx.org.id, email }, select: { role: true, active: true } });
  return m?.active ? m.role : "none";
}
