import type { Account } from "@/generated/prisma/client.ts";
import type { DbOrTx } from "../db/client";
import { notFound } from "../errors";
import { deploymentChain } from "../providers/chain";
import { isUuid } from "./ids";

const DID = /^did:antelope:([a-z0-9-]{1,32}):([a-z1-5.]{1,12})$/;

export const accountDid = (chain: string, name: string) => `did:antelope:${chain}:${name}`;

/**
 * Finds an account of the organization by DID (`did:antelope:<chain>:<name>`) or bare chain
 * name. Anything else, or another organization's account, is 404.
 *
 * Read through the unique (chain, name) index alone, the organization and the lifecycle checked
 * here: with the organization in the statement the planner may prefer an index of the
 * organization's accounts and filter every one of them, as it does when its statistics still
 * think a fast-growing organization small (docs/performance.md, "Statistics that lag"). A bare
 * name is a name on this deployment's chain (an account of another chain is named by its DID).
 */
export async function findAccount(db: DbOrTx, orgId: string, ref: string): Promise<Account> {
  const named = accountRef(ref);
  const account = named
    ? await db.account.findUnique({ where: { chain_name: { chain: named.chain ?? deploymentChain(), name: named.name } } })
    : null;
  // A pending account is a create still waiting for the chain: it does not exist yet for anyone.
  if (!account || account.orgId !== orgId || account.lifecycle === "pending") throw notFound("Account");
  return account;
}

/** What an account reference names: a chain and name (a DID), a bare name, or null when it cannot name an account. */
export function accountRef(ref: string): { chain?: string; name: string } | null {
  const r = ref.trim();
  const m = DID.exec(r);
  return m ? { chain: m[1]!, name: m[2]! } : /^[a-z1-5.]{1,12}$/.test(r) ? { name: r } : null;
}

export const personDidOf = (issuerDid: string, personId: string) => `${issuerDid}:people:${personId}`;

/** A person named either way the API accepts: their DID (`did:web:<host>:people:<uuid>` of `issuerDid`) or their bare id; the id, or null. */
export const personIdOfRef = (issuerDid: string, ref: string): string | null =>
  isUuid(ref) ? ref.toLowerCase() : personIdFromDid(issuerDid, ref);

/** The person id inside `did:web:<host>:people:<uuid>` of this issuer, or null. */
export function personIdFromDid(issuerDid: string, did: string): string | null {
  const prefix = `${issuerDid}:people:`;
  if (!did.startsWith(prefix)) return null;
  const id = did.slice(prefix.length);
  return isUuid(id) ? id.toLowerCase() : null;
}
