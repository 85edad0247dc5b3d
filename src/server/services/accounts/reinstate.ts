import type { Account, Person } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import type { DbOrTx } from "../../db/client";
import { AppError, conflict } from "../../errors";
import { personDidOf } from "../../platform/account-ref";
import { lockAmlSubject, recordKeyChange } from "../aml";
import { liftLocked, lockBindings } from "../credential-status";

/**
 * The binding of this account to this person that is suspended because the account's keys
 * changed, if any: the bind challenge and confirm then reinstate it with a signature by a key the
 * account holds now, instead of binding anew.
 */
export function keyChangedBinding(db: DbOrTx, account: Account, person: Person) {
  return db.accountBinding.findFirst({
    where: { orgId: account.orgId, accountId: account.id, personId: person.id, status: "suspended", suspendedFor: { has: "key_changed" } },
  });
}

/**
 * The permission a reinstating signature must come from: the owner when the owner held the key
 * that signed the binding (whoever holds owner controls the account, active included), else active.
 */
export function assertReinstatingSigner(binding: { signingPermissions: string[] }, signer: { signingPermissions: string[] }) {
  const needed = binding.signingPermissions.length === 0 || binding.signingPermissions.includes("owner") ? "owner" : "active";
  if (!signer.signingPermissions.includes(needed)) {
    throw new AppError(
      "INVALID_SIGNATURE",
      `Reinstating this binding needs a signature by a key the account's ${needed} permission holds now.`,
    );
  }
}

/**
 * A new wallet signature by a current key reinstates a binding suspended for a key change: the
 * nonce is spent, the binding remembers the new key, the key_changed reason is lifted (the bit is
 * cleared when no other reason stands), the person's open case notes it, all in one transaction.
 * The credential is the one issued at binding: its status list now says it is active again.
 */
export async function reinstateBinding(
  ctx: ServiceContext,
  input: {
    nonceId: string;
    account: Pick<Account, "did" | "lifecycle">;
    person: Pick<Person, "id">;
    bindingId: string;
    signer: { signingKey: string; signingKeys: string[]; signingPermissions: string[] };
  },
) {
  const { account, person } = input;
  return ctx.db.$transaction(
    async (tx) => {
      const spent = await tx.signatureNonce.updateMany({
        where: { id: input.nonceId, consumedAt: null },
        data: { consumedAt: new Date() },
      });
      if (spent.count === 0) throw conflict("nonce_used", "This nonce was already used; request a new challenge.");
      await lockAmlSubject(tx, ctx.org.id, person.id);
      const [b] = await lockBindings(tx, ctx.org.id, { bindingId: input.bindingId });
      if (!b || b.status === "revoked" || !b.suspendedFor.includes("key_changed"))
        throw conflict("already_bound", "This account is already bound to a person.");
      await tx.accountBinding.update({ where: { id: b.id }, data: input.signer });
      await liftLocked(tx, b, "key_changed", ctx.actor, ctx.now());
      const personDid = personDidOf(issuerDid(), person.id);
      await recordKeyChange(tx, {
        orgId: ctx.org.id,
        personId: person.id,
        subjectDid: personDid,
        accountDid: account.did,
        bindingId: b.id,
        change: "reinstated",
        actor: actorId(ctx.actor),
      });
      const row = await tx.accountBinding.findUniqueOrThrow({ where: { id: b.id } });
      const lifecycle = account.lifecycle === "unlocked" ? ("unlocked" as const) : ("bound" as const);
      return {
        bound: true as const,
        accountDid: account.did,
        personDid,
        bindingVcHash: row.bindingVcHash,
        lifecycle,
        credential: row.credential as Record<string, unknown>,
        reinstated: true,
      };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}
