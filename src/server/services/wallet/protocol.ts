import "./openid4vc";
import { decodeJwt, Oauth2ServerErrorResponseError, preAuthorizedCodeGrantIdentifier } from "@openid4vc/oauth2";
import { constantTimeEqual, hmacSha256Hex, randomToken, sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { deriveKey } from "../../crypto/secret-box";
import type { Db } from "../../db/client";
import { AppError } from "../../errors";
import { personDidOf } from "../../platform/account-ref";
import { appendAudit } from "../audit";
import { revocationStatusReference } from "../credential-status";
import { credentialClaims, credentialHashOf, issueSdJwtVc, type StatusReference } from "./credential";
import { authorizationServer, CONFIGURATION_ID, type HolderJwk, issuer, issuerMetadataResult } from "./metadata";
import { TX_CODE_MAX_ATTEMPTS, txCodeHash } from "./offers";

/** An access token is good for 5 minutes, a c_nonce for 5 minutes; a key proof's iat may be 5 minutes old (1 ahead). */
export const ACCESS_TOKEN_TTL_SEC = 5 * 60;
export const C_NONCE_TTL_SEC = 5 * 60;
const PROOF_MAX_AGE_SEC = 5 * 60;
const PROOF_MAX_SKEW_SEC = 60;

/** What a protocol endpoint answers: the specification's JSON, never our /v1 envelope. */
export type ProtocolAnswer = { status: number; body: Record<string, unknown>; headers: Record<string, string> };

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/**
 * Fixed descriptions: a refusal never echoes what was sent (a code, a token, a proof) nor says
 * which of several checks failed where that would help a guesser.
 */
const DESCRIPTIONS: Record<string, string> = {
  invalid_request: "The request is missing a parameter or is malformed.",
  unsupported_grant_type: "Only the pre-authorized code grant is supported.",
  invalid_grant: "The pre-authorized code or the transaction code is not valid, was already used, or has expired.",
  invalid_credential_request: "The credential request is malformed.",
  unknown_credential_configuration: "This issuer offers only the AccountBindingSdJwt credential configuration.",
  invalid_proof: "The key proof is missing or not valid (signature by the JWK in its header, audience, freshness).",
  invalid_nonce: "The key proof's nonce is not a current c_nonce of this issuer; get one from the nonce endpoint.",
  credential_request_denied: "The credential can no longer be issued for this offer.",
};

function oauthError(error: string, status = 400, headers: Record<string, string> = {}): ProtocolAnswer {
  return {
    status,
    body: { error, error_description: DESCRIPTIONS[error] ?? "The request was refused." },
    headers: { ...NO_STORE, ...headers },
  };
}

/**
 * A missing, unknown, expired or spent access token: 401 with the error in WWW-Authenticate, where
 * RFC 6750 §3 puts it (it defines no body); the body is our envelope, like any other 401 of ours.
 */
const invalidToken = () =>
  new AppError(
    "UNAUTHORIZED",
    "The access token is missing, not valid, expired or already used.",
    { reason: "invalid_token" },
    { "www-authenticate": 'Bearer error="invalid_token"', ...NO_STORE },
  );

/** A library refusal (Oauth2ServerErrorResponseError) as our answer with its error code, or null for anything else. */
function libraryRefusal(err: unknown): ProtocolAnswer | null {
  return err instanceof Oauth2ServerErrorResponseError ? oauthError(err.errorResponse.error, err.status === 401 ? 401 : 400) : null;
}

export type ProtocolRequest = { method: string; url: string; headers: Headers; body: Buffer };

/**
 * POST /oid4vci/token (RFC 6749 with the OpenID4VCI pre-authorized code grant): the code is single
 * use; a wrong or missing transaction code counts, and the fifth locks the offer. Parsed by the
 * library's authorization server; checked here against the stored hashes.
 */
export async function tokenEndpoint(db: Db, req: ProtocolRequest, now = new Date()): Promise<ProtocolAnswer> {
  const type = req.headers.get("content-type") ?? "";
  // Not an OAuth request at all (OAuth 2.0 token requests are form-encoded): refused as the pipeline
  // refuses unreadable input, in our envelope; every OAuth request gets OAuth's error object.
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded"))
    throw new AppError("VALIDATION_ERROR", "A token request is form-encoded (application/x-www-form-urlencoded), as OAuth 2.0 requires.", {
      issues: [{ path: "body", message: "not application/x-www-form-urlencoded" }],
    });
  let parsed: ReturnType<ReturnType<typeof authorizationServer>["parseAccessTokenRequest"]>;
  try {
    parsed = authorizationServer().parseAccessTokenRequest({
      request: { method: "POST", url: req.url, headers: req.headers },
      accessTokenRequest: Object.fromEntries(new URLSearchParams(req.body.toString("utf8"))),
    });
  } catch (err) {
    return libraryRefusal(err) ?? oauthError("invalid_request");
  }
  if (parsed.grant.grantType !== preAuthorizedCodeGrantIdentifier) return oauthError("unsupported_grant_type");
  const grant = parsed.grant;

  const offer = await db.walletOffer.findUnique({ where: { preAuthCodeHash: sha256Hex(grant.preAuthorizedCode) } });
  if (!offer || offer.redeemedAt || offer.expiresAt <= now || offer.txCodeAttempts >= TX_CODE_MAX_ATTEMPTS)
    return oauthError("invalid_grant");
  if (!grant.txCode || !constantTimeEqual(txCodeHash(offer.id, grant.txCode), offer.txCodeHash)) {
    // Counted in one statement, so concurrent guesses cannot share an attempt.
    await db.walletOffer.updateMany({ where: { id: offer.id, redeemedAt: null }, data: { txCodeAttempts: { increment: 1 } } });
    return oauthError("invalid_grant");
  }
  const accessToken = randomToken(32);
  const redeemed = await db.walletOffer.updateMany({
    where: { id: offer.id, redeemedAt: null, expiresAt: { gt: now }, txCodeAttempts: { lt: TX_CODE_MAX_ATTEMPTS } },
    data: {
      redeemedAt: now,
      accessTokenHash: sha256Hex(accessToken),
      accessTokenExpiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SEC * 1000),
    },
  });
  if (redeemed.count !== 1) return oauthError("invalid_grant");
  return {
    status: 200,
    body: { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SEC },
    headers: NO_STORE,
  };
}

const nonceMac = (body: string) => hmacSha256Hex(deriveKey("oid4vci-c-nonce"), body).slice(0, 32);

/** A c_nonce: its expiry and randomness, MAC'd with our key, so any instance checks it without storing it. */
function newCNonce(now: Date): string {
  const body = `${Math.floor(now.getTime() / 1000) + C_NONCE_TTL_SEC}.${randomToken(16)}`;
  return `${body}.${nonceMac(body)}`;
}

function cNonceValid(nonce: unknown, now: Date): nonce is string {
  if (typeof nonce !== "string" || nonce.length > 200) return false;
  const at = nonce.lastIndexOf(".");
  if (at < 0) return false;
  const body = nonce.slice(0, at);
  if (!constantTimeEqual(nonceMac(body), nonce.slice(at + 1))) return false;
  const exp = Number(body.split(".")[0]);
  return Number.isInteger(exp) && exp * 1000 > now.getTime();
}

/** POST /oid4vci/nonce (OpenID4VCI 1.0 §7): a fresh c_nonce for the next key proof. */
export function nonceEndpoint(now = new Date()): ProtocolAnswer {
  const body = issuer().createNonceResponse({ cNonce: newCNonce(now), cNonceExpiresIn: C_NONCE_TTL_SEC });
  return { status: 200, body, headers: NO_STORE };
}

const bearer = (headers: Headers) => /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i.exec(headers.get("authorization")?.trim() ?? "")?.[1] ?? null;

/**
 * POST /oid4vci/credential (OpenID4VCI 1.0 §8): the access token of a redeemed offer and one `jwt`
 * key proof, signed by the JWK in its header, for our issuer, with a current c_nonce and a fresh
 * iat; answers the SD-JWT VC bound to that key. One credential per offer.
 */
export async function credentialEndpoint(db: Db, req: ProtocolRequest, now = new Date()): Promise<ProtocolAnswer> {
  const token = bearer(req.headers);
  if (!token) throw invalidToken();
  const offer = await db.walletOffer.findUnique({ where: { accessTokenHash: sha256Hex(token) } });
  if (!offer || offer.issuedAt || !offer.accessTokenExpiresAt || offer.accessTokenExpiresAt <= now) throw invalidToken();

  let body: unknown;
  try {
    body = JSON.parse(req.body.toString("utf8"));
  } catch {
    return oauthError("invalid_credential_request");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return oauthError("invalid_credential_request");
  const request = body as Record<string, unknown>;
  if (request.credential_configuration_id !== undefined && request.credential_configuration_id !== CONFIGURATION_ID)
    return oauthError("unknown_credential_configuration");
  const metadata = issuerMetadataResult();
  const vci = issuer();
  let parsed: ReturnType<typeof vci.parseCredentialRequest>;
  try {
    parsed = vci.parseCredentialRequest({ issuerMetadata: metadata, credentialRequest: request });
  } catch (err) {
    return libraryRefusal(err) ?? oauthError("invalid_credential_request");
  }
  if (parsed.credentialConfigurationId !== CONFIGURATION_ID) return oauthError("invalid_credential_request");
  const proofJwt = parsed.proofs?.jwt?.length === 1 ? parsed.proofs.jwt[0] : undefined;
  if (!proofJwt) return oauthError("invalid_proof");

  let nonce: unknown;
  let iat: unknown;
  try {
    ({ nonce, iat } = decodeJwt({ jwt: proofJwt }).payload);
  } catch {
    return oauthError("invalid_proof");
  }
  if (!cNonceValid(nonce, now)) return oauthError("invalid_nonce");
  const nowSec = Math.floor(now.getTime() / 1000);
  if (typeof iat !== "number" || iat < nowSec - PROOF_MAX_AGE_SEC || iat > nowSec + PROOF_MAX_SKEW_SEC) return oauthError("invalid_proof");
  let holderJwk: HolderJwk;
  try {
    const verified = await vci.verifyCredentialRequestJwtProof({ issuerMetadata: metadata, jwt: proofJwt, expectedNonce: nonce, now });
    if (verified.signer.method !== "jwk" || verified.header.jwk === undefined) return oauthError("invalid_proof");
    holderJwk = verified.signer.publicJwk;
  } catch (err) {
    return libraryRefusal(err) ?? oauthError("invalid_proof");
  }

  // Checked again at issuance: the offer was made for an approved, unflagged person and a live binding.
  const person = await db.person.findFirst({ where: { id: offer.personId, orgId: offer.orgId } });
  if (!person || person.erasedAt || person.kycStatus !== "approved" || person.sanctionsFlag) return oauthError("credential_request_denied");
  let accountDid: string | null = null;
  // The binding's revocation bit, when the credential names an account. Without an account there
  // is no binding to revoke, and the credential carries no status: `exp` is its only end.
  let status: StatusReference | null = null;
  if (offer.accountId) {
    const binding = await db.accountBinding.findFirst({
      where: { orgId: offer.orgId, accountId: offer.accountId, personId: person.id, status: "active" },
      include: { account: { select: { did: true } } },
    });
    if (!binding) return oauthError("credential_request_denied");
    accountDid = binding.account.did;
    status = await revocationStatusReference(db, binding.id);
  }
  const claims = await credentialClaims(db, person, accountDid, now);
  const credential = await issueSdJwtVc(claims, holderJwk, now, status);

  const issued = await db.$transaction(async (tx) => {
    const marked = await tx.walletOffer.updateMany({
      where: { id: offer.id, issuedAt: null, accessTokenHash: offer.accessTokenHash },
      data: { issuedAt: now, cNonceHash: sha256Hex(nonce), credentialHash: credentialHashOf(credential) },
    });
    if (marked.count !== 1) return false;
    await appendAudit(
      tx,
      { orgId: offer.orgId, actor: { type: "system", label: "oid4vci" } },
      {
        action: "wallet.credential_issued",
        subjectType: "person",
        subject: personDidOf(issuerDid(), person.id),
        // Which claims were issued, never their values.
        data: { offerId: offer.id, format: "dc+sd-jwt", claims: Object.keys(claims), holderKeyType: holderJwk.kty },
      },
    );
    return true;
  });
  if (!issued) throw invalidToken();
  return {
    status: 200,
    body: vci.createCredentialResponse({ credentialRequest: parsed, credentials: [{ credential }] }),
    headers: NO_STORE,
  };
}
