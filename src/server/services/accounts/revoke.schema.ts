import { z } from "zod";

export const BindingParams = z.object({ id: z.string().max(100) });

export const RevokeBindingInput = z
  .object({
    reason: z.string().trim().min(3).max(500).describe("Why the binding ends; kept in the audit log and sent in identity.unbound"),
  })
  .strict();

export const BindingRevoked = z
  .object({
    bindingId: z.string(),
    accountDid: z.string(),
    personDid: z.string(),
    bindingVcHash: z.string(),
    status: z.literal("revoked"),
    revokedAt: z.iso.datetime(),
    reason: z.string(),
    lifecycle: z.enum(["provisional", "bound", "unlocked", "suspended"]),
  })
  .meta({ id: "BindingRevoked" });
