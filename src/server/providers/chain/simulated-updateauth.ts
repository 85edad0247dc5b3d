import type { DbOrTx } from "../../db/client";
import { notFound } from "../../errors";
import { isValidAccountName, randomTransactionId, requireKey } from "./keys";

/**
 * The simulated chain's `updateauth`: the owner and/or active permission handed to other keys, as
 * an account sale or a key rotation does on a real chain. The change is visible to every later
 * `getAccount`, which is what the binding key watch reads.
 */
export async function simulatedUpdateAuth(db: DbOrTx, name: string, keys: { ownerKeys?: string[]; activeKeys?: string[] }) {
  const row = isValidAccountName(name) ? await db.simChainAccount.findUnique({ where: { name } }) : null;
  if (!row) throw notFound("The chain account");
  await db.simChainAccount.update({
    where: { name },
    data: {
      ...(keys.ownerKeys ? { ownerKeys: keys.ownerKeys.map((k, i) => requireKey(k, `ownerKeys[${i}]`)) } : {}),
      ...(keys.activeKeys ? { activeKeys: keys.activeKeys.map((k, i) => requireKey(k, `activeKeys[${i}]`)) } : {}),
    },
  });
  return { transactionId: randomTransactionId() };
}
