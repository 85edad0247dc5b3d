import "./openid4vc";
import { createPublicKey, verify as verifySignature } from "node:crypto";
import type { Jwk } from "@openid4vc/oauth2";
import { digest } from "@sd-jwt/crypto-nodejs";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import type { DbOrTx } from "../../db/client";
import { publishedStatusListToken } from "../credential-status";
import { credentialHashOf } from "./credential";
import { issuerJwks, issuerUrl } from "./metadata";

/**
 * Why a presentation was refused: a fixed code (the wallet and the tenant see the same), never
 * what was sent. docs/api/guides/wallets.md lists them.
 */
export type Refusal =
  | "invalid_response"
  | "untrusted_issuer"
  | "invalid_signature"
  | "holder_binding"
  | "nonce_mismatch"
  | "audience_mismatch"
  | "stale_presentation"
  | "expired"
  | "revoked"
  | "suspended"
  | "claims_missing"
  | "account_mismatch";

export class PresentationRefused extends Error {
  constructor(readonly code: Refusal) {
    super(`presentation refused: ${code}`);
    this.name = "PresentationRefused";
  }
}

/** A key binding JWT may be 5 minutes old, 1 minute ahead of our clock. */
const KB_MAX_AGE_SEC = 5 * 60;
const KB_MAX_SKEW_SEC = 60;

/** The keys an issuer signs with, by `iss`; null for an issuer we do not trust. */
export type IssuerKeys = (iss: string) => Jwk[] | null;

/** Our own issuer: the keys of /.well-known/jwt-vc-issuer. */
export const ourIssuerKeys: IssuerKeys = (iss) => (iss === issuerUrl() ? (issuerJwks() as Jwk[]) : null);

const decodePart = (part: string | undefined): Record<string, unknown> | null => {
  try {
    const v = JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
};

const verifyWith = (jwk: Jwk) => (data: string, sig: string) => {
  try {
    return verifySignature(
      jwk.kty === "EC" ? "sha256" : null,
      Buffer.from(data),
      { key: createPublicKey({ key: jwk as never, format: "jwk" }), dsaEncoding: "ieee-p1363" },
      Buffer.from(sig, "base64url"),
    );
  } catch {
    return false;
  }
};

/**
 * A status list token for a credential's `status.status_list.uri`: ours are built from our own
 * lists (the same bits the public endpoint answers, without a round trip to ourselves); another
 * issuer's are fetched, as the library would.
 */
const statusListFetcher = (db: DbOrTx) => async (uri: string) => {
  const ours = `${issuerUrl()}/credentials/status/`;
  if (uri.startsWith(ours)) return publishedStatusListToken(db, uri.slice(ours.length));
  const res = await fetch(uri, { headers: { accept: "application/statuslist+jwt" }, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`status list ${res.status}`);
  return res.text();
};

export type VerifiedPresentation = {
  iss: string;
  vct: string;
  /** Every claim the holder disclosed, with the signed payload's own (iss, iat, exp, cnf, status…). */
  payload: Record<string, unknown>;
  /** Hex SHA-256 of the issuer-signed part: the same for every presentation of one credential. */
  credentialHash: string;
};

/**
 * Checks one SD-JWT VC presentation (RFC 9901, SD-JWT VC) with @sd-jwt/sd-jwt-vc: the issuer's
 * signature by a key of a trusted issuer, the disclosures' digests, `exp`, the status list when
 * the credential names one (a set bit refuses it), then the key binding JWT: signed by the key in
 * `cnf.jwk`, over this presentation (`sd_hash`), with the request's nonce and our client id as
 * audience, and fresh. Throws PresentationRefused with the first check that failed.
 */
export async function verifySdJwtPresentation(
  db: DbOrTx,
  presentation: string,
  expected: { nonce: string; audience: string; vct: string[]; now: Date; issuerKeys: IssuerKeys },
): Promise<VerifiedPresentation> {
  const parts = presentation.split("~");
  const [headerPart, payloadPart] = (parts[0] ?? "").split(".");
  const header = decodePart(headerPart);
  const signed = decodePart(payloadPart);
  const kbJwt = parts.at(-1) ?? "";
  if (!header || !signed || parts.length < 2) throw new PresentationRefused("invalid_response");
  if (!kbJwt) throw new PresentationRefused("holder_binding");
  const iss = typeof signed.iss === "string" ? signed.iss : "";
  const keys = expected.issuerKeys(iss);
  if (!keys || keys.length === 0) throw new PresentationRefused("untrusted_issuer");
  const key = keys.find((k) => k.kid === header.kid) ?? (keys.length === 1 && header.kid === undefined ? keys[0] : undefined);
  if (!key) throw new PresentationRefused("invalid_signature");
  if (typeof signed.vct !== "string" || !expected.vct.includes(signed.vct)) throw new PresentationRefused("claims_missing");
  const nowSec = Math.floor(expected.now.getTime() / 1000);
  const signature = (parts[0] ?? "").split(".")[2] ?? "";
  if (!verifyWith(key)(`${headerPart}.${payloadPart}`, signature)) throw new PresentationRefused("invalid_signature");
  if (typeof signed.exp === "number" && signed.exp <= nowSec) throw new PresentationRefused("expired");

  // The key binding JWT: signed by the key the issuer bound the credential to, for this request.
  const cnf = (signed.cnf as { jwk?: Jwk } | undefined)?.jwk;
  const [kbHeaderPart, kbPayloadPart, kbSignature] = kbJwt.split(".");
  const kb = decodePart(kbPayloadPart);
  if (!cnf || !kb || !decodePart(kbHeaderPart) || !verifyWith(cnf)(`${kbHeaderPart}.${kbPayloadPart}`, kbSignature ?? ""))
    throw new PresentationRefused("holder_binding");
  if (kb.nonce !== expected.nonce) throw new PresentationRefused("nonce_mismatch");
  if (kb.aud !== expected.audience) throw new PresentationRefused("audience_mismatch");
  if (typeof kb.iat !== "number" || kb.iat < nowSec - KB_MAX_AGE_SEC || kb.iat > nowSec + KB_MAX_SKEW_SEC)
    throw new PresentationRefused("stale_presentation");

  // The library then checks it whole: the disclosures' digests, sd_hash over this presentation, the status.
  let statusRefused = false;
  const instance = new SDJwtVcInstance({
    hasher: digest,
    verifier: verifyWith(key),
    // A status list token is signed by the same issuer's keys.
    statusVerifier: (data: string, sig: string) => keys.some((k) => verifyWith(k)(data, sig)),
    statusListFetcher: statusListFetcher(db),
    statusValidator: async (status: number) => {
      if (status !== 0) {
        statusRefused = true;
        throw new Error("Status is not valid");
      }
    },
    kbVerifier: verifyWith(cnf),
  });
  let payload: Record<string, unknown>;
  try {
    const result = await instance.verify(presentation, { keyBindingNonce: expected.nonce, currentDate: nowSec });
    payload = result.payload as Record<string, unknown>;
  } catch {
    throw new PresentationRefused(statusRefused ? "revoked" : "invalid_response");
  }
  return { iss, vct: signed.vct, payload, credentialHash: credentialHashOf(presentation) };
}
