import { deflateRawSync, inflateRawSync } from "node:zlib";
import { Action, Bytes, Checksum256, Name, type PermissionLevel, Serializer, Transaction } from "@wharfkit/antelope";
import { IdentityProof, SigningRequest } from "@wharfkit/signing-request";
import type { Account, SignatureNonce } from "@/generated/prisma/client.ts";
import type { ContactChannel, NoncePurpose } from "@/generated/prisma/enums.ts";
import type { DbOrTx } from "../db/client";
import { AppError } from "../errors";
import {
  type ChainAccountState,
  chainAdapter,
  chainReader,
  generateAccountName,
  PROOF_ABI,
  recoverSigners,
  SignatureProblem,
  satisfies,
} from "../providers/chain";

/**
 * The three forms of proof that an account's key holders agree to a challenge
 * (docs/api/guides/binding.md, "Proof forms"; docs/decisions.md, "Wallet proofs"):
 * - `signature` / `signatures`: signatures over the SHA-256 of `payloadToSign`;
 * - `identityProof`: an ESR identity proof (EEP-7 v3) for the challenge's own scope;
 * - `signedTransaction`: an unbroadcast transaction whose one action is the challenge's
 *   `bindproof` action, on a contract that cannot exist.
 */
export type WalletProof = {
  signature?: string;
  signatures?: string[];
  identityProof?: string | Record<string, unknown>;
  signedTransaction?: { transaction: string | Record<string, unknown>; signatures: string[] };
};

export type ProvenSigner = { signingKey: string; signingKeys: string[]; signingPermissions: string[] };

/**
 * The contract the proof action names: the empty name (uint64 0). No account can have it, so no
 * node executes a transaction carrying the action, whatever its expiration.
 */
export const PROOF_CONTRACT = "";
export const PROOF_ACTION = "bindproof";

export type ProofReason =
  | "malformed"
  | "unknown_key_type"
  | "wrong_chain"
  | "other_challenge"
  | "expired"
  | "outlives_challenge"
  | "other_account"
  | "permission_not_accepted"
  | "threshold_not_met";

const refused = (reason: ProofReason, message: string, extra: Record<string, string | number> = {}) =>
  new AppError("INVALID_SIGNATURE", message, { reason, ...extra });

const PERMISSIONS = ["owner", "active"] as const;

/**
 * Stores a challenge (the nonce and the text an account's key answers) and returns its answer:
 * the text, and the same challenge as an ESR identity request for a scope drawn for it alone and
 * as the proof action to sign (bind and contact-change challenges).
 */
export async function createProofChallenge(
  db: DbOrTx,
  input: {
    account: Account;
    purpose: NoncePurpose;
    nonce: string;
    text: string;
    expiresAt: Date;
    personId?: string;
    channel?: ContactChannel;
    bindSessionId?: string;
  },
) {
  const { account, nonce, text, expiresAt } = input;
  // The identity request's scope is the one field of an identity proof that can tie it to this
  // challenge (docs/decisions.md, "Wallet proofs").
  const scope = generateAccountName();
  const { chainId } = await chainAdapter(db).getInfo();
  await db.signatureNonce.create({
    data: {
      orgId: account.orgId,
      purpose: input.purpose,
      nonce,
      accountId: account.id,
      personId: input.personId,
      channel: input.channel,
      payloadToSign: text,
      proofScope: scope,
      bindSessionId: input.bindSessionId,
      expiresAt,
    },
  });
  return {
    nonce,
    payloadToSign: text,
    expiresAt: expiresAt.toISOString(),
    ...proofRequests({ chainId, account, nonce, text, scope, expiresAt }),
  };
}

/** Node's zlib in the shape ESR (`@wharfkit/signing-request`) takes it, for encoding and reading `esr:` URIs. */
export const esrZlib = {
  deflateRaw: (d: Uint8Array) => new Uint8Array(deflateRawSync(d)),
  inflateRaw: (d: Uint8Array) => new Uint8Array(inflateRawSync(d)),
};

function proofRequests(input: { chainId: string; account: Account; nonce: string; text: string; scope: string; expiresAt: Date }) {
  const request = SigningRequest.identity(
    { scope: input.scope, chainId: input.chainId, callback: "", info: { nonce: input.nonce } },
    { zlib: esrZlib },
  );
  const action = proofAction(input.account.name, "active", input.nonce, input.text);
  return {
    identityRequest: { uri: request.encode(), scope: input.scope, chainId: input.chainId, expiresAt: input.expiresAt.toISOString() },
    transaction: {
      chainId: input.chainId,
      expiresAt: input.expiresAt.toISOString(),
      action: {
        account: PROOF_CONTRACT,
        name: PROOF_ACTION,
        authorization: [{ actor: input.account.name, permission: "active" }],
        data: action.data.hexString,
      },
    },
  };
}

function proofAction(actor: string, permission: string, nonce: string, text: string) {
  return Action.from({
    account: PROOF_CONTRACT,
    name: PROOF_ACTION,
    authorization: [{ actor, permission }],
    data: Serializer.encode({ object: { nonce, text }, type: PROOF_ACTION, abi: PROOF_ABI }),
  });
}

function recover(digest: Uint8Array | Checksum256, signatures: string[]): string[] {
  try {
    return recoverSigners(digest, signatures);
  } catch (err) {
    if (err instanceof SignatureProblem) {
      const reason = /unknown key type|not an Antelope signature/.test(err.message)
        ? "unknown_key_type"
        : /challenge is not the digest/.test(err.message)
          ? "other_challenge"
          : "malformed";
      throw refused(reason, `The proof's ${err.message}.`);
    }
    throw err;
  }
}

/**
 * Checks which of `permissions` the recovered keys satisfy on `state` (a parent's authority
 * satisfies its child on chain: owner stands for active), and returns the signer to remember.
 */
async function proven(db: DbOrTx, state: ChainAccountState | null, keys: string[], permissions: readonly string[]): Promise<ProvenSigner> {
  // The faucet's cosigner shares every provisional owner so the service can unlock it; a proof is
  // the holder's consent, which the service's own key must not be able to give.
  const chain = chainAdapter(db);
  const { resolve } = chainReader((name) => (name === state?.name ? Promise.resolve(state) : chain.getAccount(name)), state?.ownerCosigner);
  const accepted: string[] = [];
  const used = new Set<string>();
  let best = { weight: 0, threshold: 1 };
  for (const p of PERMISSIONS) {
    const authority = state?.permissions[p];
    if (!authority) continue;
    const r = await satisfies(authority, keys, resolve);
    if (r.satisfied && (permissions.includes(p) || (p === "owner" && permissions.includes("active")))) {
      accepted.push(p);
      for (const k of r.keysUsed) used.add(k);
    } else if (!r.satisfied && permissions.includes(p) && r.weight >= best.weight) best = r;
  }
  if (accepted.length === 0 || used.size === 0) {
    throw refused(
      "threshold_not_met",
      `The signatures do not satisfy the account's ${permissions.join(" or ")} permission as the chain has it now (weight ${best.weight} of ${best.threshold}).`,
      { weight: best.weight, threshold: best.threshold },
    );
  }
  const signingKeys = [...new Set(keys)].filter((k) => used.has(k));
  return { signingKey: signingKeys[0]!, signingKeys, signingPermissions: accepted };
}

function identityProof(value: string | Record<string, unknown>): IdentityProof {
  try {
    return IdentityProof.from(value as never);
  } catch {
    throw refused("malformed", 'The identity proof is not an ESR identity proof ("EOSIO <base64>" or its JSON).');
  }
}

function transactionOf(value: string | Record<string, unknown>): Transaction {
  try {
    if (typeof value === "string") return Serializer.decode({ data: Bytes.from(value.trim(), "hex"), type: Transaction });
    return Transaction.from(value as never);
  } catch {
    throw refused("malformed", "The signed transaction is neither a packed transaction (hex) nor a transaction's JSON.");
  }
}

/** What a proof is checked against: the challenge's nonce, its text, its identity scope and its end. */
type ProofChallenge = Pick<SignatureNonce, "nonce" | "payloadToSign" | "proofScope" | "expiresAt">;

function checkWindow(expiresAtMs: number, nonce: Pick<SignatureNonce, "expiresAt">) {
  if (expiresAtMs <= Date.now()) throw refused("expired", "The proof has expired; sign the challenge again.");
  // The chain's times have second precision: a proof may end in the challenge's last second.
  if (expiresAtMs > Math.ceil(nonce.expiresAt.getTime() / 1000) * 1000)
    throw refused("outlives_challenge", "The proof's expiration is later than the challenge's; it must end no later than expiresAt.");
}

function checkSigner(level: PermissionLevel, account: Pick<Account, "name">, permissions: readonly string[]): string {
  if (!level.actor.equals(account.name))
    throw refused("other_account", `The proof is signed for ${level.actor.toString()}, not for ${account.name}.`);
  const permission = level.permission.toString();
  // A parent permission stands for its child on chain: owner may sign where active is asked.
  if (!permissions.includes(permission) && !(permission === "owner" && permissions.includes("active")))
    throw refused(
      "permission_not_accepted",
      `The proof is signed with the ${permission} permission; this needs ${permissions.join(" or ")}.`,
    );
  return permission;
}

/**
 * Verifies a wallet proof of `nonce` for `account` against the account's authorities as the chain
 * has them now (delegations followed, several signatures summed against the threshold, K1, R1 and
 * WebAuthn keys). Throws 400 INVALID_SIGNATURE with `details.reason` when it does not hold; writes
 * nothing.
 */
export async function verifyWalletProof(
  db: DbOrTx,
  account: Pick<Account, "name">,
  nonce: ProofChallenge,
  proof: WalletProof,
  permissions: readonly ("owner" | "active")[] = PERMISSIONS,
): Promise<ProvenSigner> {
  const chain = chainAdapter(db);
  const state = await chain.getAccount(account.name);
  if (proof.signature !== undefined || proof.signatures !== undefined) {
    const sigs = [...(proof.signature ? [proof.signature] : []), ...(proof.signatures ?? [])];
    const keys = recover(Checksum256.hash(Bytes.from(nonce.payloadToSign, "utf8")), sigs);
    return proven(db, state, keys, permissions);
  }
  const { chainId } = await chain.getInfo();
  if (proof.identityProof !== undefined) {
    const p = identityProof(proof.identityProof);
    if (!p.chainId.equals(chainId)) throw refused("wrong_chain", "The identity proof is for another chain.");
    if (!nonce.proofScope || !p.scope.equals(Name.from(nonce.proofScope)))
      throw refused("other_challenge", "The identity proof answers another challenge (its scope is not this challenge's).");
    checkWindow(p.expiration.toMilliseconds(), nonce);
    const permission = checkSigner(p.signer, account, permissions);
    const keys = recover(p.transaction.signingDigest(chainId), [p.signature.toString()]);
    return proven(db, state, keys, [permission]);
  }
  const signed = proof.signedTransaction!;
  const tx = transactionOf(signed.transaction);
  if (tx.context_free_actions.length || tx.transaction_extensions.length)
    throw refused("malformed", "The signed transaction may carry no context-free actions and no extensions.");
  if (tx.actions.length !== 1) throw refused("malformed", "The signed transaction must carry exactly one action, the challenge's.");
  const [action] = tx.actions as [Action];
  if (!action.account.equals(PROOF_CONTRACT) || !action.name.equals(PROOF_ACTION))
    throw refused("malformed", `The signed transaction's action must be the challenge's "${PROOF_ACTION}" action.`);
  if (action.authorization.length !== 1) throw refused("malformed", "The challenge's action must carry exactly one authorization.");
  const permission = checkSigner(action.authorization[0]!, account, permissions);
  const expected = proofAction(account.name, permission, nonce.nonce, nonce.payloadToSign);
  if (!action.data.equals(expected.data)) throw refused("other_challenge", "The signed transaction answers another challenge.");
  checkWindow(tx.expiration.toMilliseconds(), nonce);
  const keys = recover(tx.signingDigest(chainId), signed.signatures);
  return proven(db, state, keys, [permission]);
}
