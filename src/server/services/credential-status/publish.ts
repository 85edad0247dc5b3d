import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { StatusPurpose } from "@/generated/prisma/client.ts";
import { type JsonObject, signEddsaJcs2022 } from "../../crypto/data-integrity";
import { issuerDid, issuerSigningKey, verificationMethodId } from "../../crypto/issuer-keys";
import type { DbOrTx } from "../../db/client";
import { notFound } from "../../errors";
import { isUuid } from "../../platform/ids";
import { statusListUrl } from "./lists";

const VC_CONTEXT_V2 = "https://www.w3.org/ns/credentials/v2";

/** How long a relying party may reuse a fetched list before asking again (with its ETag). */
export const STATUS_LIST_MAX_AGE_SEC = 60;

/**
 * The list's bits as the spec writes them: index 0 is the most significant bit of the first byte,
 * GZIP-compressed and multibase base64url (`u` prefix, no padding).
 */
export function encodeList(size: number, setIndices: number[]): string {
  const bits = new Uint8Array(size / 8);
  for (const i of setIndices) bits[i >> 3]! |= 0x80 >> (i & 7);
  return `u${gzipSync(bits).toString("base64url")}`;
}

type Published = { cacheKey: string; credential: JsonObject; etag: string };
const cache = new Map<string, Published>();

function sign(list: { id: string; purpose: StatusPurpose; size: number }, setIndices: number[], changedAt: Date): JsonObject {
  const key = issuerSigningKey();
  const url = statusListUrl(list.id);
  const unsigned: JsonObject = {
    "@context": [VC_CONTEXT_V2],
    id: url,
    type: ["VerifiableCredential", "BitstringStatusListCredential"],
    issuer: issuerDid(),
    // Milliseconds, as the change is stored: two changes within one second publish two lists a
    // verifier can order (and a cache holding the earlier one can tell it is older).
    validFrom: changedAt.toISOString(),
    credentialSubject: {
      id: `${url}#list`,
      type: "BitstringStatusList",
      statusPurpose: list.purpose,
      encodedList: encodeList(list.size, setIndices),
    },
  };
  return signEddsaJcs2022(unsigned, { secretKey: key.secretKey, verificationMethod: verificationMethodId(key), created: changedAt });
}

/**
 * One list as its entries stand now: the positions whose bit is set, in order, and the time of the
 * last change. Both published forms (the W3C credential here, the IETF Status List Token in
 * token-status-list.ts) are built from it, so one revocation flips both.
 */
export async function listState(db: DbOrTx, listId: string) {
  const list = isUuid(listId) ? await db.statusList.findUnique({ where: { id: listId } }) : null;
  if (!list) throw notFound("Status list");
  const [state] = await db.$queryRaw<{ set: number[]; changed: Date | null }[]>`
    SELECT coalesce(array_agg(index ORDER BY index) FILTER (WHERE set), '{}') AS set, max("changedAt") AS changed
    FROM credential_status_entries WHERE "listId" = ${list.id}::uuid`;
  return { list, setIndices: state?.set ?? [], changedAt: state?.changed ?? list.createdAt };
}

/**
 * The signed BitstringStatusListCredential of one list as the entries stand now. It is signed
 * again only when a bit changed (or the issuer key did) and kept otherwise; `validFrom` (to the
 * millisecond) and the proof's `created` (to the second, as every proof of ours) are the time of
 * the last change and Ed25519 signatures are deterministic, so every instance serves the same
 * bytes for the same state and the ETag holds across instances.
 */
export async function publishedStatusList(db: DbOrTx, listId: string): Promise<{ credential: JsonObject; etag: string }> {
  const { list, setIndices, changedAt } = await listState(db, listId);
  const cacheKey = `${issuerSigningKey().publicKeyMultibase}|${issuerDid()}|${changedAt.getTime()}|${setIndices.join(",")}`;
  const hit = cache.get(list.id);
  if (hit?.cacheKey === cacheKey) return hit;
  const credential = sign(list, setIndices, changedAt);
  const etag = `"${createHash("sha256").update(JSON.stringify(credential)).digest("base64url").slice(0, 32)}"`;
  const published = { cacheKey, credential, etag };
  cache.set(list.id, published);
  return published;
}
