import type { SimChainAccount } from "@/generated/prisma/client.ts";
import type { DbOrTx, Prisma } from "../../db/client";
import { notFound } from "../../errors";
import type { AuthorityJson } from "./abi";
import { normaliseAuthorityKey } from "./authority";
import { invalidChainInput, isValidAccountName, randomTransactionId, requireKey } from "./keys";

const single = (keys: string[], extra: AuthorityJson["accounts"] = []): AuthorityJson => ({
  threshold: 1,
  keys: keys.map((key) => ({ key, weight: 1 })),
  accounts: extra,
  waits: [],
});

/**
 * The sandbox account's permissions as a node's get_account shows them. Until `updateauth` sets
 * whole authorities they are the ones `createAccount` gave: owner = the user's key or the faucet
 * cosigner, active = the user's active key.
 */
export function simulatedAuthorities(
  row: Pick<SimChainAccount, "ownerKeys" | "activeKeys" | "ownerCosigner" | "authorities">,
): Record<string, AuthorityJson> {
  const stored = row.authorities as Record<string, AuthorityJson> | null;
  if (stored) return stored;
  const [actor, permission] = (row.ownerCosigner ?? "").split("@");
  const cosigner = row.ownerCosigner ? [{ permission: { actor: actor!, permission: permission ?? "active" }, weight: 1 }] : [];
  return { owner: single(row.ownerKeys, cosigner), active: single(row.activeKeys) };
}

function checkedAuthority(a: AuthorityJson, path: string): AuthorityJson {
  const weights = [...a.keys, ...a.accounts, ...a.waits].map((x) => x.weight);
  if (!Number.isInteger(a.threshold) || a.threshold < 1 || weights.some((w) => !Number.isInteger(w) || w < 1))
    throw invalidChainInput(path, "threshold and weights must be positive integers");
  if (weights.reduce((x, y) => x + y, 0) < a.threshold) throw invalidChainInput(path, "the weights cannot reach the threshold");
  return {
    threshold: a.threshold,
    keys: a.keys.map((k, i) => {
      const key = normaliseAuthorityKey(k.key);
      if (!key) throw invalidChainInput(`${path}.keys[${i}]`, "must be a PUB_K1_, PUB_R1_, PUB_WA_ or EOS public key");
      return { key, weight: k.weight };
    }),
    accounts: a.accounts.map((x, i) => {
      if (!isValidAccountName(x.permission.actor) || !isValidAccountName(x.permission.permission))
        throw invalidChainInput(`${path}.accounts[${i}]`, "must name an account and a permission");
      return { permission: { actor: x.permission.actor, permission: x.permission.permission }, weight: x.weight };
    }),
    waits: a.waits.map((w) => ({ wait_sec: w.wait_sec, weight: w.weight })),
  };
}

/**
 * The simulated chain's `updateauth`: the owner and/or active permission handed to other keys, as
 * an account sale or a key rotation does on a real chain, or set to a whole authority (a 2-of-3
 * multisig, WebAuthn keys, a delegation to `other@active`). The change is visible to every later
 * `getAccount`, which is what the binding key watch reads.
 */
export async function simulatedUpdateAuth(
  db: DbOrTx,
  name: string,
  change: { ownerKeys?: string[]; activeKeys?: string[]; authorities?: Record<string, AuthorityJson> },
) {
  const row = isValidAccountName(name) ? await db.simChainAccount.findUnique({ where: { name } }) : null;
  if (!row) throw notFound("The chain account");
  const ownerKeys = change.ownerKeys?.map((k, i) => requireKey(k, `ownerKeys[${i}]`));
  const activeKeys = change.activeKeys?.map((k, i) => requireKey(k, `activeKeys[${i}]`));
  let authorities = row.authorities as Record<string, AuthorityJson> | null;
  if (change.authorities || (authorities && (ownerKeys || activeKeys))) {
    authorities = { ...simulatedAuthorities(row) };
    if (ownerKeys) authorities.owner = single(ownerKeys);
    if (activeKeys) authorities.active = single(activeKeys);
    for (const [perm, auth] of Object.entries(change.authorities ?? {})) {
      if (!isValidAccountName(perm)) throw invalidChainInput(`authorities.${perm}`, "must be a permission name");
      authorities[perm] = checkedAuthority(auth, `authorities.${perm}`);
    }
  }
  const keysOf = (perm: string) => authorities?.[perm]?.keys.map((k) => k.key);
  await db.simChainAccount.update({
    where: { name },
    data: {
      ownerKeys: ownerKeys ?? keysOf("owner") ?? row.ownerKeys,
      activeKeys: activeKeys ?? keysOf("active") ?? row.activeKeys,
      ...(authorities ? { authorities: authorities as unknown as Prisma.InputJsonObject } : {}),
    },
  });
  return { transactionId: randomTransactionId() };
}
