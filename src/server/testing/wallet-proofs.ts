import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { p256 } from "@noble/curves/nist.js";
import { Action, Bytes, KeyType, type PrivateKey, PublicKey, Serializer, Signature, Transaction } from "@wharfkit/antelope";
import { IdentityProof, SigningRequest } from "@wharfkit/signing-request";
import { esrZlib } from "../platform/wallet-proof";

/**
 * What wallets hand back for the bind challenge's proof forms, made with the libraries wallets
 * use (WharfKit's signing-request and antelope packages), and a WebAuthn key that signs as a
 * passkey wallet does.
 */

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

function varuint(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Anything that signs a 32-byte digest the way its key type does on chain. */
export type DigestSigner = { publicKey: string; signDigest(digest: Uint8Array): string };

export const keySigner = (privateKey: PrivateKey): DigestSigner => ({
  publicKey: privateKey.toPublic().toString(),
  signDigest: (digest) => privateKey.signDigest(digest).toString(),
});

/**
 * A WebAuthn credential as a passkey wallet (WebAuth, XPR) registers it on chain: a P-256 key,
 * `PUB_WA_` with the relying party and "user verified". Signing goes through the authenticator's
 * steps: client data JSON with the digest as challenge, authenticator data, an ECDSA signature
 * (DER) over both, which the wallet turns into the chain's compact form with a recovery id.
 */
export function webAuthnSigner(rpid = "wallet.example", flags = 0x05): DigestSigner & { privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
  const point = p256.Point.fromAffine({
    x: BigInt(`0x${Buffer.from(jwk.x, "base64url").toString("hex")}`),
    y: BigInt(`0x${Buffer.from(jwk.y, "base64url").toString("hex")}`),
  });
  const compressed = point.toBytes(true);
  const rp = new TextEncoder().encode(rpid);
  const presence = flags & 0x04 ? 2 : flags & 0x01 ? 1 : 0;
  const key = new PublicKey(KeyType.WA, Bytes.from(new Uint8Array([...compressed, presence, ...varuint(rp.length), ...rp])));
  return {
    privateKey,
    publicKey: key.toString(),
    signDigest(digest) {
      const client = new TextEncoder().encode(
        JSON.stringify({ type: "webauthn.get", challenge: Buffer.from(digest).toString("base64url"), origin: `https://${rpid}` }),
      );
      const authData = new Uint8Array([...sha256(rp), flags, 0, 0, 0, 1]);
      const der = sign("sha256", Buffer.concat([authData, sha256(client)]), privateKey);
      const sig = p256.Signature.fromBytes(der, "der");
      const signed = sha256(authData, sha256(client));
      const recid = [0, 1].find((r) => sig.addRecoveryBit(r).recoverPublicKey(signed).equals(point));
      if (recid === undefined) throw new Error("no recovery id recovers the key");
      const compact = new Uint8Array([31 + recid, ...sig.toBytes("compact")]);
      const data = new Uint8Array([...compact, ...varuint(authData.length), ...authData, ...varuint(client.length), ...client]);
      return new Signature(KeyType.WA, Bytes.from(data)).toString();
    },
  };
}

/** Signs payloadToSign as a message (SHA-256 of its UTF-8 bytes). */
export const signText = (signer: DigestSigner, text: string) => signer.signDigest(sha256(new TextEncoder().encode(text)));

/**
 * The identity proof a wallet answers an ESR identity request with: it resolves the request for
 * its account and permission and signs the resolved transaction for the request's chain.
 */
export function identityProofFor(
  uri: string,
  signer: { actor: string; permission: string },
  signers: DigestSigner[],
  opts: { expiration?: Date; chainId?: string } = {},
): string {
  const request = SigningRequest.from(uri, { zlib: esrZlib });
  const chainId = opts.chainId ?? request.getChainId().hexString;
  const expiration = (opts.expiration ?? new Date(Date.now() + 60_000)).toISOString().slice(0, 19);
  const resolved = request.resolve(new Map(), signer, { expiration, ref_block_num: 0, ref_block_prefix: 0, chainId });
  const digest = resolved.transaction.signingDigest(chainId).array;
  return IdentityProof.from({
    chainId,
    scope: request.getIdentityScope()!,
    expiration,
    signer,
    signature: signers[0]!.signDigest(digest),
  }).toString();
}

/**
 * The challenge's proof transaction as a wallet signs it with broadcast off: the one action the
 * challenge names, an expiration, reference block zero.
 */
export function signedProofTransaction(
  template: {
    chainId: string;
    action: { account: string; name: string; authorization: { actor: string; permission: string }[]; data: string };
  },
  signers: DigestSigner[],
  opts: { expiration?: Date; chainId?: string; permission?: string } = {},
) {
  const authorization = opts.permission
    ? [{ ...template.action.authorization[0]!, permission: opts.permission }]
    : template.action.authorization;
  const tx = Transaction.from({
    expiration: (opts.expiration ?? new Date(Date.now() + 60_000)).toISOString().slice(0, 19),
    ref_block_num: 0,
    ref_block_prefix: 0,
    actions: [Action.from({ ...template.action, authorization, data: Bytes.from(template.action.data, "hex") })],
  });
  const digest = tx.signingDigest(opts.chainId ?? template.chainId).array;
  return { transaction: Serializer.encode({ object: tx }).hexString, signatures: signers.map((s) => s.signDigest(digest)) };
}
