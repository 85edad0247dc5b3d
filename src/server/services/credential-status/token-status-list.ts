import { deflateSync } from "node:zlib";
import { issuerSigningKey, signEd25519 } from "../../crypto/issuer-keys";
import type { DbOrTx } from "../../db/client";
import { statusListUrl } from "./lists";
import { listState, STATUS_LIST_MAX_AGE_SEC } from "./publish";

/**
 * The same lists as IETF Token Status Lists (draft-ietf-oauth-status-list, as @sd-jwt/jwt-status-list
 * reads them), for the SD-JWT VC in a person's wallet: a Status List Token is a JWT
 * (`typ: statuslist+jwt`) over the bits of one W3C list, from the same entries.
 */
export const STATUS_LIST_TOKEN_MEDIA_TYPE = "application/statuslist+jwt";

/** A verifier may reuse a token as long as a W3C list (`ttl`); the token itself expires an hour after it was signed. */
export const STATUS_LIST_TOKEN_TTL_SEC = STATUS_LIST_MAX_AGE_SEC;
export const STATUS_LIST_TOKEN_EXP_SEC = 3600;

/**
 * The list's bits as the Token Status List writes them, one bit per status: index 0 is the LEAST
 * significant bit of the first byte (the reverse of the W3C order), compressed with DEFLATE in the
 * zlib format (RFC 1950) and base64url without padding.
 */
function encodeTokenList(size: number, setIndices: number[]): string {
  const bits = new Uint8Array(size / 8);
  for (const i of setIndices) bits[i >> 3]! |= 1 << (i & 7);
  return deflateSync(bits, { level: 9 }).toString("base64url");
}

const compressed = new Map<string, { cacheKey: string; lst: string }>();

const b64json = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/**
 * The Status List Token of one list as its entries stand now, signed EdDSA with the issuer's
 * current key (`kid` its multibase value, as in /.well-known/jwt-vc-issuer): `sub` the list's URL
 * (the `uri` a credential's `status.status_list` names), `iat` now, `exp` an hour later, `ttl` a
 * minute. The compressed bits are kept per list until a bit changes; the signature is made per
 * request, since `iat` and `exp` move.
 */
export async function publishedStatusListToken(db: DbOrTx, listId: string, now = new Date()): Promise<string> {
  const { list, setIndices, changedAt } = await listState(db, listId);
  const cacheKey = `${list.size}|${changedAt.getTime()}|${setIndices.join(",")}`;
  let hit = compressed.get(list.id);
  if (hit?.cacheKey !== cacheKey) {
    hit = { cacheKey, lst: encodeTokenList(list.size, setIndices) };
    compressed.set(list.id, hit);
  }
  const key = issuerSigningKey();
  const iat = Math.floor(now.getTime() / 1000);
  const header = { alg: "EdDSA", typ: "statuslist+jwt", kid: key.publicKeyMultibase };
  const payload = {
    sub: statusListUrl(list.id),
    iat,
    exp: iat + STATUS_LIST_TOKEN_EXP_SEC,
    ttl: STATUS_LIST_TOKEN_TTL_SEC,
    status_list: { bits: 1, lst: hit.lst },
  };
  const signingInput = `${b64json(header)}.${b64json(payload)}`;
  const signature = Buffer.from(signEd25519(new TextEncoder().encode(signingInput), key)).toString("base64url");
  return `${signingInput}.${signature}`;
}

/** The revocation position of a binding, as a Token Status List reference (`status.status_list`), or null when it has none. */
export async function revocationStatusReference(db: DbOrTx, bindingId: string): Promise<{ idx: number; uri: string } | null> {
  const entry = await db.credentialStatusEntry.findFirst({ where: { bindingId, purpose: "revocation" } });
  return entry ? { idx: entry.index, uri: statusListUrl(entry.listId) } : null;
}
