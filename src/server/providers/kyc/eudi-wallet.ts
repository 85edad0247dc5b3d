import { createHash, createPrivateKey, createPublicKey, type KeyObject, randomUUID } from "node:crypto";
import { z } from "zod";
import type { KycProvider, ProviderName } from "./types";
import { ProviderError } from "./types";

/**
 * The EU digital identity wallet as an identity provider: the person presents the person
 * identification data (PID) their Member State issued to their wallet, in SD-JWT VC form (vct
 * `urn:eudi:pid:1`), over OpenID4VP. Nothing leaves the process here: the session is a
 * presentation request of ours (services/kyc/eudi-pid.ts), its id is the applicant id, and the
 * review is applied when the wallet answers, not by callback. This file holds what is
 * configuration: the issuers trusted to sign a PID (EUDI_PID_TRUST_LIST) and the sandbox's test issuer.
 */

export const EUDI_PID_VCT = "urn:eudi:pid:1";
/** A PID request is answered within 10 minutes, like any presentation request. */
const SESSION_TTL_MS = 10 * 60 * 1000;

/** One trusted PID issuer: its `iss` and the public keys it signs PIDs with. */
export type PidTrustedIssuer = { issuer: string; keys: Record<string, unknown>[] };

/** The sandbox's test PID issuer: trusted only in the sandbox (see pidTrustListFromEnv). */
export const SANDBOX_PID_ISSUER = "https://pid-issuer.sandbox.bind-identity.test";
/**
 * TEST ONLY. The published seed of the sandbox PID issuer's Ed25519 key: anyone can mint PIDs
 * with it (that is its purpose: tenants test the EU wallet flow without a Member State's issuer),
 * so it is never trusted in production.
 */
export const SANDBOX_PID_ISSUER_SEED = "bind-identity sandbox PID issuer, test only, never trusted in production";
const SANDBOX_PID_KID = "sandbox-pid-issuer-1";
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The sandbox test issuer: its `iss`, `kid`, public JWK and private key (derived from the published seed). */
export function sandboxPidIssuer(): { issuer: string; kid: string; publicJwk: Record<string, unknown>; privateKey: KeyObject } {
  const seed = createHash("sha256").update(SANDBOX_PID_ISSUER_SEED).digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  const publicJwk = { ...createPublicKey(privateKey).export({ format: "jwk" }), kid: SANDBOX_PID_KID, alg: "EdDSA", use: "sig" };
  return { issuer: SANDBOX_PID_ISSUER, kid: SANDBOX_PID_KID, publicJwk, privateKey };
}

/** A public signing key the verifier can use: Ed25519 (EdDSA) or P-256 (ES256); never a private one. */
const PublicJwk = z
  .object({
    kty: z.enum(["OKP", "EC"]),
    crv: z.enum(["Ed25519", "P-256"]),
    x: z.string().min(1),
    y: z.string().min(1).optional(),
    kid: z.string().min(1).max(200).optional(),
    alg: z.enum(["EdDSA", "ES256"]).optional(),
    use: z.literal("sig").optional(),
  })
  .loose()
  .refine((k) => !("d" in k), 'must hold public keys only (a "d" member is a private key)')
  .refine((k) => (k.kty === "OKP") === (k.crv === "Ed25519"), "kty and crv do not match (OKP/Ed25519 or EC/P-256)")
  .refine((k) => {
    try {
      createPublicKey({ key: k as never, format: "jwk" });
      return true;
    } catch {
      return false;
    }
  }, "is not a usable public key");

const TrustList = z
  .array(
    z.object({
      issuer: z.url({ protocol: /^https$/ }).max(500),
      jwks: z.object({ keys: z.array(PublicJwk).min(1).max(20) }),
    }),
  )
  .max(100);

/**
 * The issuers trusted to sign a PID: EUDI_PID_TRUST_LIST, a JSON array of
 * `{ "issuer": "https://…", "jwks": { "keys": [JWK…] } }` (the form of an issuer's
 * `.well-known/jwt-vc-issuer` metadata), plus the sandbox test issuer when KYC_PROVIDERS names
 * `sandbox` or EUDI_PID_SANDBOX_ISSUER=1 (refused when BI_ENV=production). Throws one error naming
 * the variable and what is wrong, never its value.
 */
export function pidTrustListFromEnv(
  source: Record<string, string | undefined>,
  providers: readonly ProviderName[],
  environment: "sandbox" | "production",
): PidTrustedIssuer[] {
  const issues: string[] = [];
  const list: PidTrustedIssuer[] = [];
  const raw = source.EUDI_PID_TRUST_LIST?.trim();
  if (raw) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
      issues.push("EUDI_PID_TRUST_LIST: is not JSON (expected an array of { issuer, jwks: { keys } })");
    }
    if (json !== undefined) {
      const parsed = TrustList.safeParse(json);
      if (!parsed.success)
        for (const i of parsed.error.issues) issues.push(`EUDI_PID_TRUST_LIST: at ${i.path.join(".") || "(top)"}: ${i.message}`);
      else {
        if (environment === "production" && parsed.data.some((e) => e.issuer === SANDBOX_PID_ISSUER))
          issues.push("EUDI_PID_TRUST_LIST: names the sandbox test issuer, refused when BI_ENV=production");
        for (const e of parsed.data) list.push({ issuer: e.issuer, keys: e.jwks.keys });
      }
    }
  }
  const flag = source.EUDI_PID_SANDBOX_ISSUER?.trim();
  if (flag && flag !== "0" && flag !== "1") issues.push("EUDI_PID_SANDBOX_ISSUER: must be 0 or 1");
  if (flag === "1" && environment === "production") issues.push("EUDI_PID_SANDBOX_ISSUER: is refused when BI_ENV=production");
  if (issues.length) throw new Error(`Invalid EU wallet PID configuration:\n${issues.map((i) => `  ${i}`).join("\n")}`);
  if (environment !== "production" && (providers.includes("sandbox") || flag === "1") && !list.some((e) => e.issuer === SANDBOX_PID_ISSUER))
    list.push({ issuer: SANDBOX_PID_ISSUER, keys: [sandboxPidIssuer().publicJwk] });
  return list;
}

export function eudiWalletProvider(): KycProvider {
  return {
    name: "eudi_wallet",
    supportsKyb: false,
    async startKyc(input) {
      // The applicant id becomes the presentation request's id; its hosted consent page shows the QR code.
      const applicantId = randomUUID();
      return {
        provider: "eudi_wallet",
        applicantId,
        verificationUrl: `${input.publicUrl.replace(/\/+$/, "")}/wallet/present/${applicantId}`,
        accessToken: "",
        expiresAt: new Date(Date.now() + SESSION_TTL_MS),
      };
    },
    /** The outcome is applied when the wallet answers; until then (and after) a refresh has no news. */
    async fetchReview(applicantId, externalId) {
      return {
        provider: "eudi_wallet",
        applicantId,
        externalId,
        status: "pending",
        labels: [],
        pep: false,
        sanctions: false,
        country: null,
        identity: {},
        reviewedAt: null,
      };
    },
    async startKyb() {
      throw new ProviderError("permanent", "eudi_wallet", "the EU wallet PID identifies persons, not organizations", undefined, "no_kyb");
    },
    /** The wallet answers at /oid4vp/responses/{id}: there are no provider callbacks. */
    verifyCallback() {
      return null;
    },
  };
}
