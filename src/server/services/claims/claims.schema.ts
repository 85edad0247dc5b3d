import { z } from "zod";

/** An action a person may claim once: a short name the tenant chooses ("airdrop-2026-06", "vote:42"). */
export const ClaimParams = z.object({
  action: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, "letters, digits and . _ : - (1 to 100, starting with a letter or digit)"),
});

export const ClaimInput = z
  .strictObject({
    accountDid: z.string().min(1).max(300).describe("The account claiming: its bound person is who claims"),
  })
  .meta({ id: "ClaimInput" });

export const ClaimResult = z
  .object({
    action: z.string(),
    accountDid: z.string(),
    claimed: z.literal(true),
    claimedAt: z.iso.datetime(),
    pairwiseId: z.string().describe("The claimant's id for this organization: the same for every account of one human here"),
  })
  .meta({ id: "ClaimResult" });
