import type { Actor } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Db } from "../../db/client";
import { logger } from "../../log";
import { personDidOf } from "../../platform/account-ref";
import { type ChainAccountState, chainAdapter } from "../../providers/chain";

import { lockAmlSubject, recordKeyChange } from "../aml";
import { lockBindings, suspendLocked } from "../credential-status";

const WATCH: Actor = { type: "system", label: "chain-watch" };

type Watched = {
  id: string;
  orgId: string;
  personId: string;
  signingKey: string | null;
  signingPermissions: string[];
  account: { name: string; did: string };
};

/** Whether every permission that held the signing key at binding still holds it (an unknown account holds nothing). */
export function stillHeld(b: Pick<Watched, "signingKey" | "signingPermissions">, state: ChainAccountState | null): boolean {
  if (!b.signingKey) return true;
  const on = { owner: state?.ownerKeys ?? [], active: state?.activeKeys ?? [] };
  const permissions = b.signingPermissions.length ? b.signingPermissions : ["owner", "active"];
  return permissions.every((p) => (on[p as keyof typeof on] ?? []).includes(b.signingKey!));
}

/**
 * One pass of the key watch: for every binding not revoked and not already suspended for a key
 * change, reads its account's permissions from the chain (the simulated chain in a sandbox, the
 * node's get_account otherwise) and suspends the binding when a permission that held the signing
 * key no longer does. A chain that cannot be read says nothing about the keys; that account is
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
      signingPermissions: true,
      account: { select: { name: true, did: true } },
    },
    orderBy: { id: "asc" },
    take: opts.limit ?? 5000,
  });
  const chain = chainAdapter(db);
  let suspended = 0;
  for (const b of bindings) {
    let state: ChainAccountState | null;
    try {
      state = await chain.getAccount(b.account.name);
    } catch (err) {
      logger().warn({ job: "binding-key-watch", err: { message: (err as Error).message } }, "chain read failed");
      continue;
    }
    if (!stillHeld(b, state) && (await suspendForKeyChange(db, b))) suspended++;
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
