import type { Actor } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Db } from "../../db/client";
import { logger } from "../../log";
import { personDidOf } from "../../platform/account-ref";
import { type AuthorityResolver, type ChainAccountState, chainAdapter, chainReader, satisfies } from "../../providers/chain";

import { lockAmlSubject, recordKeyChange } from "../aml";
import { lockBindings, suspendLocked } from "../credential-status";

const WATCH: Actor = { type: "system", label: "chain-watch" };

type Watched = {
  id: string;
  orgId: string;
  personId: string;
  signingKey: string | null;
  signingKeys: string[];
  signingPermissions: string[];
  account: { name: string; did: string };
};

/**
 * Whether the keys that bound the account still satisfy every permission they satisfied at
 * binding, as the chain evaluates it now: thresholds, weights and delegated permissions followed
 * through `resolve` (a delegate's keys changing counts). An unknown account satisfies nothing.
 */
export async function stillSatisfied(
  b: Pick<Watched, "signingKey" | "signingKeys" | "signingPermissions">,
  state: ChainAccountState | null,
  resolve: AuthorityResolver,
): Promise<boolean> {
  if (!b.signingKey) return true;
  const keys = b.signingKeys.length ? b.signingKeys : [b.signingKey];
  const permissions = b.signingPermissions.length ? b.signingPermissions : ["owner", "active"];
  for (const p of permissions) {
    const authority = state?.permissions[p];
    if (!authority || !(await satisfies(authority, keys, resolve)).satisfied) return false;
  }
  return true;
}

/**
 * One pass of the key watch: for every binding not revoked and not already suspended for a key
 * change, reads its account's permissions from the chain (the simulated chain in a sandbox, the
 * node's get_account otherwise) and suspends the binding when a permission its keys satisfied at
 * binding no longer is satisfied by them (stillSatisfied). A chain that cannot be read says nothing about the keys; that account is
 * tried again on the next pass.
 */
export async function watchBindingKeys(db: Db, opts: { limit?: number } = {}) {
  const bindings: Watched[] = await db.accountBinding.findMany({
    where: { status: { not: "revoked" }, signingKey: { not: null }, NOT: { suspendedFor: { has: "key_changed" } } },
    select: {
      id: true,
      orgId: true,
      personId: true,
      signingKey: true,
      signingKeys: true,
      signingPermissions: true,
      account: { select: { name: true, did: true } },
    },
    orderBy: { id: "asc" },
    take: opts.limit ?? 5000,
  });
  const chain = chainAdapter(db);
  let suspended = 0;
  for (const b of bindings) {
    // Each binding reads the chain afresh (its account and every delegate, each once).
    const reader = chainReader((name) => chain.getAccount(name));
    let held: boolean;
    try {
      held = await stillSatisfied(b, await reader.account(b.account.name), reader.resolve);
    } catch (err) {
      logger().warn({ job: "binding-key-watch", err: { message: (err as Error).message } }, "chain read failed");
      continue;
    }
    if (!held && (await suspendForKeyChange(db, b))) suspended++;
  }
  return { checked: bindings.length, suspended };
}

/** Suspends one binding for `key_changed` and opens (or notes) the person's case, in one transaction. */
async function suspendForKeyChange(db: Db, b: Watched) {
  return db.$transaction(
    async (tx) => {
      await lockAmlSubject(tx, b.orgId, b.personId);
      const [locked] = await lockBindings(tx, b.orgId, { bindingId: b.id });
      if (!locked || !(await suspendLocked(tx, locked, "key_changed", WATCH, new Date()))) return false;
      await recordKeyChange(tx, {
        orgId: b.orgId,
        personId: b.personId,
        subjectDid: personDidOf(issuerDid(), b.personId),
        accountDid: b.account.did,
        bindingId: b.id,
        change: "suspended",
        actor: "system:chain-watch",
      });
      return true;
    },
    { timeout: 20_000, maxWait: 10_000 },
  );
}
