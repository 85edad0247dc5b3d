import { createHash } from "node:crypto";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ABIDecoder, Bytes, Checksum256, KeyType, PublicKey, Signature } from "@wharfkit/antelope";
import type { AuthorityJson } from "./abi";
import { parsePublicKey } from "./keys";
import type { ChainAccountState } from "./types";

/**
 * A permission's authority as the chain evaluates it (docs/api/guides/binding.md, "Which accounts
 * can bind"): the weights of the keys that signed, plus the weights of delegated
 * `account@permission` entries whose own authority the same signatures satisfy, must reach the
 * threshold. Waits never count: a proof is not a delayed transaction.
 */
export type Authority = AuthorityJson;

/** nodeos' default `max_authority_depth`: how far `account@permission` delegations are followed. */
export const MAX_AUTHORITY_DEPTH = 6;

/** Reads `actor`'s permission `permission` as the chain has it now, or null when there is none. */
export type AuthorityResolver = (actor: string, permission: string) => Promise<Authority | null>;

/**
 * Reads accounts through `getAccount`, each once however often delegations name it, and resolves
 * their permissions. `skip` (an `account@permission`) is never followed: proofs pass the faucet's
 * cosigner, which must not speak for an account holder.
 */
export function chainReader(getAccount: (name: string) => Promise<ChainAccountState | null>, skip?: string | null) {
  const accounts = new Map<string, Promise<ChainAccountState | null>>();
  const account = (name: string) => {
    if (!accounts.has(name)) accounts.set(name, getAccount(name));
    return accounts.get(name)!;
  };
  const resolve: AuthorityResolver = async (actor, permission) =>
    skip === `${actor}@${permission}` ? null : ((await account(actor))?.permissions[permission] ?? null);
  return { account, resolve };
}

/**
 * Normalises a key as it may appear in an authority: K1 and R1 as `parsePublicKey` does, and
 * WebAuthn (`PUB_WA_…`, a P-256 key with its user-presence flag and relying party). Null when it
 * is not a key.
 */
export function normaliseAuthorityKey(value: unknown): string | null {
  const plain = parsePublicKey(value);
  if (plain) return plain;
  if (typeof value !== "string" || !/^PUB_WA_[1-9A-HJ-NP-Za-km-z]+$/.test(value.trim())) return null;
  try {
    const key = PublicKey.from(value.trim());
    return key.type === KeyType.WA ? key.toString() : null;
  } catch {
    return null;
  }
}

/** Why a signature gave no key: said back to the caller in the 400's details. */
export class SignatureProblem extends Error {}

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/**
 * The WebAuthn key that made `sig` over `digest`, as nodeos recovers it: the authenticator signed
 * SHA-256(authenticatorData ‖ SHA-256(clientDataJSON)); the client data must be a `webauthn.get`
 * whose challenge is the digest (base64url) and whose origin is `https://<rpid>`; the
 * authenticator data must start with SHA-256(rpid). The key carries the relying party and the
 * user-presence level the flags show (none, present, verified), so a key registered as "user
 * verified" is only matched by a signature made with user verification.
 */
function recoverWebAuthn(sig: Signature, digest: Uint8Array): string {
  const decoder = new ABIDecoder(sig.data.array);
  const compact = decoder.readArray(65);
  const authData = decoder.readArray(decoder.readVaruint32());
  const clientJson = decoder.readArray(decoder.readVaruint32());
  let client: { type?: unknown; challenge?: unknown; origin?: unknown };
  try {
    client = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(clientJson));
  } catch {
    throw new SignatureProblem("the WebAuthn client data is not JSON");
  }
  if (client.type !== "webauthn.get") throw new SignatureProblem('the WebAuthn client data is not of type "webauthn.get"');
  if (client.challenge !== Buffer.from(digest).toString("base64url"))
    throw new SignatureProblem("the WebAuthn challenge is not the digest of this proof");
  const origin = typeof client.origin === "string" ? client.origin : "";
  const match = /^https:\/\/([^/:]+)(:\d+)?$/.exec(origin);
  if (!match) throw new SignatureProblem("the WebAuthn origin is not an https origin");
  const rpid = match[1]!;
  if (authData.length < 37) throw new SignatureProblem("the WebAuthn authenticator data is too short");
  if (!Buffer.from(authData.subarray(0, 32)).equals(Buffer.from(sha256(new TextEncoder().encode(rpid)))))
    throw new SignatureProblem("the WebAuthn authenticator data is for another relying party");
  const flags = authData[32]!;
  const presence = flags & 0x04 ? 2 : flags & 0x01 ? 1 : 0;
  const v = compact[0]!;
  if (v < 27 || v >= 35) throw new SignatureProblem("the WebAuthn signature has no recovery id");
  const recid = v >= 31 ? v - 31 : v - 27;
  const signedDigest = sha256(authData, sha256(clientJson));
  let point: Uint8Array;
  try {
    point = p256.Signature.fromBytes(compact.subarray(1), "compact").addRecoveryBit(recid).recoverPublicKey(signedDigest).toBytes(true);
  } catch {
    throw new SignatureProblem("the WebAuthn signature does not recover to a key");
  }
  const rp = new TextEncoder().encode(rpid);
  if (rp.length > 127) throw new SignatureProblem("the WebAuthn relying party id is too long");
  const data = new Uint8Array([...point, presence, rp.length, ...rp]);
  return new PublicKey(KeyType.WA, Bytes.from(data)).toString();
}

type K1Recover = (digest: Uint8Array, compact: Uint8Array, recid: 0 | 1 | 2 | 3, compressed: boolean) => Uint8Array | null;
let k1Recover: K1Recover | null = null;

/**
 * K1 recovery by libsecp256k1, the chain's own library, compiled to WebAssembly (tiny-secp256k1:
 * no native build, the same file on every platform; docs/decisions.md): about 0.35 ms a key where
 * @noble/curves takes 1.4. Loaded when this module loads; until it is, or where it cannot load (a
 * bundle that leaves its .wasm file behind), noble recovers. Resolves to which one answers.
 */
export const k1Recovery: Promise<"libsecp256k1" | "noble"> = import("tiny-secp256k1").then(
  (m) => {
    k1Recover = m.recover;
    return "libsecp256k1";
  },
  () => "noble",
);

/**
 * The key that made a K1 or R1 signature over `digest`: K1 by libsecp256k1 (k1Recovery), R1 by
 * @noble/curves; the same arithmetic as `Signature.recoverDigest` (which runs it on `elliptic` and
 * `bn.js`, at more CPU), so the same key. Null where these refuse the signature (r or s out of
 * range, no point for r, a recovery id other than a compressed key's 31–34): `recoverDigest` then
 * answers it as it always has.
 */
function recoverCompact(sig: Signature, digest: Uint8Array): string | null {
  const data = sig.data.array;
  const recid = data[0]! - 31;
  if (digest.length !== 32 || data.length !== 65 || recid < 0 || recid > 3) return null;
  try {
    let point: Uint8Array | null;
    if (sig.type === KeyType.K1 && k1Recover) point = k1Recover(digest, data.subarray(1), recid as 0 | 1 | 2 | 3, true);
    else {
      const curve = sig.type === KeyType.K1 ? secp256k1 : p256;
      point = curve.Signature.fromBytes(data.subarray(1), "compact").addRecoveryBit(recid).recoverPublicKey(digest).toBytes(true);
    }
    return point ? new PublicKey(sig.type, Bytes.from(point)).toString() : null;
  } catch {
    return null;
  }
}

/**
 * The public key (normalised) that made each signature over `digest`. K1 and R1 signatures are
 * recovered as the chain does; WebAuthn signatures as `recoverWebAuthn` says. Throws
 * SignatureProblem naming what is wrong with a signature that gives no key.
 */
export function recoverSigners(digest: Uint8Array | Checksum256, signatures: string[]): string[] {
  const d = digest instanceof Checksum256 ? digest.array : digest;
  return signatures.map((s, i) => {
    let sig: Signature;
    try {
      sig = Signature.from(s.trim());
    } catch {
      throw new SignatureProblem(`signature ${i + 1} is not an Antelope signature (SIG_K1_, SIG_R1_ or SIG_WA_)`);
    }
    if (sig.type === KeyType.WA) return recoverWebAuthn(sig, d);
    if (sig.type !== KeyType.K1 && sig.type !== KeyType.R1)
      throw new SignatureProblem(`signature ${i + 1} is of an unknown key type (${sig.type})`);
    try {
      return recoverCompact(sig, d) ?? sig.recoverDigest(Checksum256.from(d)).toString();
    } catch {
      throw new SignatureProblem(`signature ${i + 1} does not recover to a key`);
    }
  });
}

export type Satisfaction = {
  satisfied: boolean;
  /** The weight the signatures reached against the threshold, at the top permission. */
  weight: number;
  threshold: number;
  /** The signing keys that counted, at any depth (normalised). */
  keysUsed: string[];
};

/**
 * Whether the keys in `signers` satisfy `authority`, following delegated permissions through
 * `resolve` as the chain's authority checker does, to MAX_AUTHORITY_DEPTH. A permission that
 * cannot be resolved (no such account or permission) adds nothing, as on chain.
 */
export async function satisfies(authority: Authority, signers: string[], resolve: AuthorityResolver, depth = 0): Promise<Satisfaction> {
  const signed = new Set(signers);
  const used = new Set<string>();
  let weight = 0;
  for (const k of authority.keys) {
    const key = normaliseAuthorityKey(k.key);
    if (key && signed.has(key)) {
      weight += k.weight;
      used.add(key);
    }
  }
  if (weight < authority.threshold && depth < MAX_AUTHORITY_DEPTH) {
    for (const a of authority.accounts) {
      if (weight >= authority.threshold) break;
      const inner = await resolve(a.permission.actor, a.permission.permission);
      if (!inner) continue;
      const r = await satisfies(inner, signers, resolve, depth + 1);
      if (r.satisfied) {
        weight += a.weight;
        for (const key of r.keysUsed) used.add(key);
      }
    }
  }
  return { satisfied: weight >= authority.threshold, weight, threshold: authority.threshold, keysUsed: [...used] };
}
