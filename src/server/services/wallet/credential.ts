import { base64urlnopad } from "@scure/base";
import { digest, generateSalt } from "@sd-jwt/crypto-nodejs";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import type { Person } from "@/generated/prisma/client.ts";
import { sha256Hex } from "../../crypto/hash";
import { issuerDid, issuerSigningKey, signEd25519 } from "../../crypto/issuer-keys";
import { openStored } from "../../crypto/person-box";
import type { DbOrTx } from "../../db/client";
import { readAll } from "../../db/tx";
import { personDidOf } from "../../platform/account-ref";
import { type HolderJwk, issuerUrl, vct } from "./metadata";

/**
 * A wallet credential is valid a year from issuance; one that names an account can be revoked
 * sooner through its binding's revocation bit (a Token Status List, docs/api/guides/wallets.md).
 */
export const CREDENTIAL_TTL_SEC = 365 * 24 * 3600;

type Identity = { birthDate: string | null; country: string | null };

/** The verified birth date and country kept sealed under the person's key (screening subject), or null when unreadable. */
async function verifiedIdentity(db: DbOrTx, personId: string): Promise<Identity | null> {
  const [subject, key] = await readAll(db, [
    () => db.screeningSubject.findUnique({ where: { personId } }),
    () => db.personKey.findUnique({ where: { personId } }),
  ]);
  const text = subject ? openStored(subject.querySealed, key?.keySealed) : null;
  if (!text) return null;
  try {
    const q = JSON.parse(text) as Partial<Identity>;
    return { birthDate: typeof q.birthDate === "string" ? q.birthDate : null, country: typeof q.country === "string" ? q.country : null };
  } catch {
    return null;
  }
}

/** Whether someone born on `birthDate` (YYYY-MM-DD) is `years` old or more on `now` (UTC); null for a partial or odd date. */
export function ageAtLeast(birthDate: string | null, years: number, now: Date): boolean | null {
  const m = birthDate ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate) : null;
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const today = [now.getUTCFullYear(), now.getUTCMonth() + 1, now.getUTCDate()] as const;
  const reached = today[1] > mo || (today[1] === mo && today[2] >= d);
  return today[0] - y - (reached ? 0 : 1) >= years;
}

/**
 * The claims of a person's wallet credential, every one selectively disclosable: what was verified
 * and when, never the identity (no name, birth date or document number; the country only by the
 * organization's policy).
 */
export async function credentialClaims(
  db: DbOrTx,
  person: Person,
  accountDid: string | null,
  now: Date,
): Promise<Record<string, string | number | boolean>> {
  const claims: Record<string, string | number | boolean> = { kyc_level: person.kycLevel };
  const identity = await verifiedIdentity(db, person.id);
  const over18 = ageAtLeast(identity?.birthDate ?? null, 18, now);
  const over21 = ageAtLeast(identity?.birthDate ?? null, 21, now);
  if (over18 !== null && over21 !== null) {
    claims.age_over_18 = over18;
    claims.age_over_21 = over21;
  }
  // That a country was verified (tier 1); which one only when the organization's policy says its
  // credentials may disclose it (walletCredentialCountry), and then only if the person chooses to.
  const country = identity?.country || person.country;
  if (country) {
    claims.nationality_tier = 1;
    const org = await db.organization.findUnique({ where: { id: person.orgId }, select: { walletCredentialCountry: true } });
    if (org?.walletCredentialCountry) claims.country = country;
  }
  const latest = await db.screeningResult.findFirst({
    where: { orgId: person.orgId, subjectType: "person", subjectRef: { in: [personDidOf(issuerDid(), person.id), person.id] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  if (latest && !latest.sanctionsHit && !person.sanctionsFlag) claims.not_sanctioned_at = Math.floor(latest.createdAt.getTime() / 1000);
  if (accountDid) claims.account = accountDid;
  if (person.pairwiseId) claims.pairwise_id = person.pairwiseId;
  return claims;
}

const sdJwtVc = () => {
  const key = issuerSigningKey();
  return {
    kid: key.publicKeyMultibase,
    instance: new SDJwtVcInstance({
      signer: (data: string) => base64urlnopad.encode(signEd25519(new TextEncoder().encode(data), key)),
      signAlg: "EdDSA",
      hasher: digest,
      hashAlg: "sha-256",
      saltGenerator: generateSalt,
    }),
  };
};

/** A credential's reference to its position in a Token Status List (the binding's revocation bit). */
export type StatusReference = { idx: number; uri: string };

/**
 * Signs the SD-JWT VC (EdDSA, our issuer key, `iss` our https issuer URL) bound to the holder's key.
 * With a status reference, `status.status_list` is in the signed payload, never a disclosure: a
 * verifier must always be able to check it.
 */
export async function issueSdJwtVc(
  claims: Record<string, string | number | boolean>,
  holderJwk: HolderJwk,
  now: Date,
  status: StatusReference | null = null,
): Promise<string> {
  const { instance, kid } = sdJwtVc();
  const iat = Math.floor(now.getTime() / 1000);
  // Only the public members of the holder's key: a careless wallet may send more.
  const { kty, crv, x, y, e, n } = holderJwk;
  const jwk = Object.fromEntries(Object.entries({ kty, crv, x, y, e, n }).filter(([, v]) => v !== undefined));
  const payload = {
    iss: issuerUrl(),
    iat,
    exp: iat + CREDENTIAL_TTL_SEC,
    vct: vct(),
    cnf: { jwk },
    ...(status ? { status: { status_list: status } } : {}),
    ...claims,
  };
  return instance.issue(payload, { _sd: Object.keys(claims) as never }, { header: { kid } });
}

/** Hex SHA-256 of a credential's issuer-signed JWT (before the first `~`): the same for every presentation of it. */
export const credentialHashOf = (sdJwt: string): string => sha256Hex(sdJwt.split("~")[0]!);
