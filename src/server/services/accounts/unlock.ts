import type { ServiceContext } from "../../context";
import type { Tx } from "../../db/client";
import { conflict } from "../../errors";
import { findAccount } from "../../platform/account-ref";
import { emitEvent } from "../../platform/outbox";
import { chainAdapter } from "../../providers/chain";
import { appendAudit } from "../audit";

/**
 * POST /v1/accounts/unlock: the faucet cosigner leaves the owner permission, lifecycle `unlocked`,
 * `account.unlocked` event and audit entry. Only a bound account unlocks (409 otherwise). Safe to
 * retry after a crash between the chain and our commit: the chain then has no cosigner left and
 * the adapter sends nothing.
 */
async function unlockedBefore(tx: Tx, orgId: string, accountDid: string) {
  const entry = await tx.auditEntry.findFirst({
    where: { orgId, action: "account.unlocked", subject: accountDid },
    orderBy: { seq: "desc" },
    select: { data: true },
  });
  const transactionId = (entry?.data as { transactionId?: string | null } | null)?.transactionId ?? null;
  return { accountDid, lifecycle: "unlocked" as const, transactionId };
}

export async function unlockAccount(ctx: ServiceContext, accountDid: string) {
  return ctx.db.$transaction(
    async (tx) => {
      const found = await findAccount(tx, ctx.org.id, accountDid);
      const [row] = await tx.$queryRaw<
        { lifecycle: string }[]
      >`SELECT lifecycle::text FROM accounts WHERE id = ${found.id}::uuid FOR UPDATE`;
      // Safe to retry: a lost answer is given again, from the unlock's own audit entry, and nothing happens twice.
      if (row!.lifecycle === "unlocked") return unlockedBefore(tx, ctx.org.id, found.did);
      if (row!.lifecycle !== "bound") throw conflict("not_bound", "Only a bound account can be unlocked.");
      const { transactionId } = await chainAdapter(tx).removeCosigner(found.name);
      await tx.account.update({ where: { id: found.id }, data: { lifecycle: "unlocked" } });
      await emitEvent(tx, ctx.org.id, "account.unlocked", { accountDid: found.did });
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "account.unlocked",
          subjectType: "account",
          subject: found.did,
          data: { transactionId: transactionId || null },
        },
      );
      return { accountDid: found.did, lifecycle: "unlocked" as const, transactionId: transactionId || null };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}
