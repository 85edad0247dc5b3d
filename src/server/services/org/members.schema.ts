import { z } from "zod";
import type { MemberRole as DbMemberRole } from "@/generated/prisma/enums.ts";
import { ROLES } from "@/lib/roles";

export const MemberRole = z.enum(ROLES);
export type MemberRole = z.output<typeof MemberRole>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The database enum and the shared role list must name the same roles: this line stops compiling if they drift.
true satisfies Same<MemberRole, DbMemberRole>;

/** Stored lower case: one person, one membership, however they type their address. */
const Email = z
  .email()
  .max(254)
  .transform((e) => e.trim().toLowerCase());

export const AddMemberInput = z.strictObject({ email: Email, role: MemberRole });
export type AddMemberInput = z.output<typeof AddMemberInput>;

export const UpdateMemberInput = z
  .strictObject({ role: MemberRole.optional(), active: z.boolean().optional() })
  .refine((p) => p.role !== undefined || p.active !== undefined, { message: "give role, active or both" })
  .meta({ minProperties: 1, description: "At least one of role and active." });
export type UpdateMemberInput = z.output<typeof UpdateMemberInput>;

/** `{email}` arrives URL-decoded; anything that is not an address cannot name a member (404, not 400). */
export const MemberEmailParams = z.object({ email: z.string().min(1).max(254) });

export const MemberView = z.object({
  email: z.string(),
  role: MemberRole,
  active: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type MemberView = z.output<typeof MemberView>;

export const MemberList = z.object({ members: z.array(MemberView) });
