import type { ServiceContext } from "../../context";
import { hmacSha256Hex } from "../../crypto/hash";
import { deriveKey } from "../../crypto/secret-box";
import { conflict } from "../../errors";
import { findAccount } from "../../platform/account-ref";
import { appendAudit } from "../audit";
import { pairwiseIdOf } from "../kyc";

/**
 * POST /v1/claims/{action}: one claim of an action per human in an organization (an airdrop, a
 * vote, a faucet drip), checked and recorded in one statement. The claimant is the person bound
 * to the account; the human is their document's human id (services/kyc/unique-person.ts), so two
 * accounts of one human, even through two verifications, claim once. The claim row holds only a
 * nullifier, HMAC(organization, action, human): not the person, not the account, and an erasure
 * leaves it (the action stays claimed) while nothing links it back to anyone.
 */
const nullifierOf = (orgId: string, action: string, human: string) =>
  hmacSha256Hex(deriveKey("claim-nullifier"), `${orgId}|${action}|${human}`);

export async function claim(ctx: ServiceContext, action: string, input: { accountDid: string }) {
  const account = await findAccount(ctx.db, ctx.org.id, input.accountDid);
  const binding = await ctx.db.accountBinding.findFirst({
    where: { orgId: ctx.org.id, accountId: account.id, status: "active" },
    include: { person: { select: { id: true, humanId: true, pairwiseId: true, erasedAt: true, kycStatus: true } } },
    orderBy: { createdAt: "desc" },
  });
  const person = binding?.person;
  if (!person || person.erasedAt || person.kycStatus !== "approved")
    throw conflict("not_bound", "The account has no active binding to a verified person; only a bound account can claim.");
  const nullifier = nullifierOf(ctx.org.id, action, person.humanId ?? person.id);
  const now = ctx.now();
  // A burst of claims by one human queues on the first one's row until it commits: Prisma's
  // defaults (2 s to get a connection, 5 s in all) turned that queue into 500s on a loaded host.
  return ctx.db.$transaction(async (tx) => {
    const inserted = await tx.$executeRaw`
      INSERT INTO claims ("orgId", action, nullifier, "claimedAt") VALUES (${ctx.org.id}::uuid, ${action}, ${nullifier}, ${now})
      ON CONFLICT DO NOTHING`;
    if (inserted === 0) throw conflict("already_claimed", "This person has already claimed this action.");
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      { action: "claim.recorded", subjectType: "claim", subject: action, data: { nullifier } },
    );
    return {
      action,
      accountDid: account.did,
      claimed: true as const,
      claimedAt: now.toISOString(),
      pairwiseId: person.pairwiseId ?? pairwiseIdOf(ctx.org.id, person.id),
    };
  }, CLAIM_TX);
}

const CLAIM_TX = { timeout: 20_000, maxWait: 10_000 } as const;
