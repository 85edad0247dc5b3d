import type { Account, AccountBinding } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { openContacts } from "../../crypto/account-box";
import { issuerDid } from "../../crypto/issuer-keys";
import { findAccount, personDidOf } from "../../platform/account-ref";
import { maskEmail, maskPhone } from "../../platform/contact-address";
import { chainAdapter, isValidAccountName } from "../../providers/chain";
import { appendAudit, mayReadAmlDetail } from "../audit";

/** Every lifecycle but `pending`, a create still waiting for the chain. */
export type VisibleLifecycle = Exclude<Account["lifecycle"], "pending">;

/** A binding as account reads show it: its status is the one its credential's status list publishes. */
const bindingView = (issuer: string, b: AccountBinding) => ({
  bindingId: b.id,
  personDid: personDidOf(issuer, b.personId),
  bindingVcHash: b.bindingVcHash,
  createdAt: b.createdAt.toISOString(),
  status: b.status,
  suspendedFor: b.suspendedFor,
});

export function accountView(a: Account, bindings: AccountBinding[] = []) {
  const issuer = issuerDid();
  // Sealed under the account's data key (crypto/account-box.ts): opened here, shown masked only.
  const { email, phone } = openContacts(a);
  return {
    accountDid: a.did,
    name: a.name,
    chain: a.chain,
    // Pending accounts never reach a view (findAccount and the lists skip them).
    lifecycle: a.lifecycle as VisibleLifecycle,
    ownerPublicKey: a.ownerPublicKey,
    activePublicKey: a.activePublicKey,
    contacts: {
      email: email ? maskEmail(email) : null,
      emailVerified: !!a.emailVerifiedAt,
      phone: phone ? maskPhone(phone) : null,
      phoneVerified: !!a.phoneVerifiedAt,
    },
    bindings: bindings.filter((b) => !b.revokedAt).map((b) => bindingView(issuer, b)),
    createdAt: a.createdAt.toISOString(),
  };
}

export async function nameAvailable(ctx: ServiceContext, name: string) {
  if (!isValidAccountName(name)) {
    return {
      name,
      available: false,
      reason: "INVALID" as const,
      message: "Names are 1 to 12 characters of a-z, 1-5 and '.', not ending in '.'.",
    };
  }
  const chain = chainAdapter(ctx.db);
  const taken =
    (await ctx.db.account.findFirst({ where: { chain: chain.chain, name }, select: { id: true } })) || (await chain.getAccount(name));
  return taken
    ? { name, available: false, reason: "TAKEN" as const, message: "This name is taken." }
    : { name, available: true, message: "This name is available now; nothing is reserved and create checks again." };
}

/** A revoked binding as GET /v1/accounts/{did} lists it: when and why it ended (the reason its revoke answered). */
const revokedBindingView = (issuer: string, b: AccountBinding & { revokedAt: Date }) => ({
  bindingId: b.id,
  personDid: personDidOf(issuer, b.personId),
  bindingVcHash: b.bindingVcHash,
  createdAt: b.createdAt.toISOString(),
  status: "revoked" as const,
  revokedAt: b.revokedAt.toISOString(),
  reason: b.revocationReason,
});

/**
 * GET /v1/accounts/{did}: `bindings` holds the account's bindings that are not revoked (as the
 * interface contract says), `revokedBindings` the revoked ones, so a tenant sees the whole history.
 */
export async function getAccount(ctx: ServiceContext, ref: string) {
  const account = await findAccount(ctx.db, ctx.org.id, ref);
  const bindings = await ctx.db.accountBinding.findMany({
    where: { orgId: ctx.org.id, accountId: account.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const issuer = issuerDid();
  const revoked = bindings.filter((b): b is AccountBinding & { revokedAt: Date } => b.revokedAt !== null);
  const view = accountView(account, bindings);
  // Why a binding was held or ended is AML work: a console member below compliance officer sees only that it was.
  if (!mayReadAmlDetail(ctx.actor)) {
    return {
      ...view,
      bindings: view.bindings.map((b) => ({ ...b, suspendedFor: [] })),
      revokedBindings: revoked.map((b) => ({ ...revokedBindingView(issuer, b), reason: null })),
    };
  }
  return { ...view, revokedBindings: revoked.map((b) => revokedBindingView(issuer, b)) };
}

export async function listAccounts(ctx: ServiceContext, q: { limit: number; lifecycle?: VisibleLifecycle; before?: string }) {
  const rows = await ctx.db.account.findMany({
    where: {
      orgId: ctx.org.id,
      lifecycle: q.lifecycle ?? { not: "pending" },
      ...(q.before ? { createdAt: { lt: new Date(q.before) } } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: q.limit,
  });
  return {
    accounts: rows.map((a) => accountView(a)),
    nextBefore: rows.length === q.limit ? rows[rows.length - 1]!.createdAt.toISOString() : null,
  };
}

/** Suspends from any state; the previous lifecycle is kept so it can be reinstated. Suspending twice changes nothing. */
export async function suspendAccount(ctx: ServiceContext, ref: string) {
  return ctx.db.$transaction(async (tx) => {
    const account = await findAccount(tx, ctx.org.id, ref);
    if (account.lifecycle === "suspended")
      return { accountDid: account.did, lifecycle: account.lifecycle, previousLifecycle: account.lifecycleBeforeSuspend };
    const updated = await tx.account.update({
      where: { id: account.id },
      data: { lifecycle: "suspended", lifecycleBeforeSuspend: account.lifecycle },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "account.suspended",
        subjectType: "account",
        subject: account.did,
        data: { previousLifecycle: account.lifecycle },
      },
    );
    return { accountDid: updated.did, lifecycle: updated.lifecycle, previousLifecycle: account.lifecycle };
  });
}
