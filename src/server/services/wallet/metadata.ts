import "./openid4vc";
import { createHash, randomBytes } from "node:crypto";
import {
  type CallbackContext,
  clientAuthenticationAnonymous,
  type Jwk,
  Oauth2AuthorizationServer,
  preAuthorizedCodeGrantIdentifier,
} from "@openid4vc/oauth2";
import {
  type CredentialIssuerMetadata,
  type IssuerMetadataResult,
  Openid4vciIssuer,
  Openid4vciVersion,
  setGlobalConfig,
} from "@openid4vc/openid4vci";
import { base64urlnopad } from "@scure/base";
import { compactVerify, importJWK } from "jose";
import { publicUrl } from "@/env";
import { issuerKeys } from "../../crypto/issuer-keys";

/**
 * OpenID for Verifiable Credential Issuance 1.0 (final), as @openid4vc/openid4vci 0.4.6 speaks it:
 * this service is both the credential issuer and its own authorization server, at its public
 * origin. One credential configuration: the AccountBinding credential as an SD-JWT VC
 * (`dc+sd-jwt`, IETF SD-JWT VC), bound to a holder key given as a JWK in a `jwt` key proof.
 */
export const CONFIGURATION_ID = "AccountBindingSdJwt";
export const CREDENTIAL_FORMAT = "dc+sd-jwt";
/** Algorithms a holder's key proof may use (and so the key the credential is bound to). */
export const PROOF_ALGS = ["EdDSA", "ES256"];

export const issuerUrl = () => publicUrl("");
export const vct = () => publicUrl("/vct/account-binding");
export const endpoints = () => ({
  token: publicUrl("/oid4vci/token"),
  nonce: publicUrl("/oid4vci/nonce"),
  credential: publicUrl("/oid4vci/credential"),
});

/**
 * The library refuses http:// issuers, as the specification asks. A deployment whose public
 * origin is http:// (local development, the test suite: production requires https) would refuse
 * its own messages, so the check follows the origin this process publishes.
 */
function followOrigin() {
  if (issuerUrl().startsWith("http://")) setGlobalConfig({ allowInsecureUrls: true });
}

/** The claims the credential may disclose, with their display names (issuer metadata and type metadata). */
export const CLAIMS: { name: string; label: string; description: string }[] = [
  { name: "kyc_level", label: "Verification level", description: "The level of identity verification the person passed." },
  { name: "age_over_18", label: "Over 18", description: "Whether the person is 18 or older today, from the verified birth date." },
  { name: "age_over_21", label: "Over 21", description: "Whether the person is 21 or older today, from the verified birth date." },
  {
    name: "nationality_tier",
    label: "Country known",
    description: "1 when the verified country is known; the country itself is not shown.",
  },
  {
    name: "country",
    label: "Country",
    description: "The verified country (ISO 3166-1 alpha-2), when the issuing organization's policy lets its credentials disclose it.",
  },
  { name: "not_sanctioned_at", label: "Not sanctioned at", description: "When the person was last screened without a sanctions match." },
  { name: "account", label: "Account", description: "The Antelope account bound to the person." },
  {
    name: "pairwise_id",
    label: "Pairwise id",
    description: "The person's identifier for this organization: the same person, the same id.",
  },
];

const CREDENTIAL_NAME = "Verified person";
const CREDENTIAL_DESCRIPTION = "Issued after identity verification: what was verified, without the identity itself.";

export function credentialIssuerMetadata(): CredentialIssuerMetadata {
  const e = endpoints();
  return {
    credential_issuer: issuerUrl(),
    credential_endpoint: e.credential,
    nonce_endpoint: e.nonce,
    display: [{ name: "Bind Identity", locale: "en" }],
    credential_configurations_supported: {
      [CONFIGURATION_ID]: {
        format: CREDENTIAL_FORMAT,
        vct: vct(),
        scope: CONFIGURATION_ID,
        cryptographic_binding_methods_supported: ["jwk"],
        credential_signing_alg_values_supported: ["EdDSA"],
        proof_types_supported: { jwt: { proof_signing_alg_values_supported: PROOF_ALGS } },
        credential_metadata: {
          display: [{ name: CREDENTIAL_NAME, locale: "en", description: CREDENTIAL_DESCRIPTION }],
          claims: CLAIMS.map((c) => ({ path: [c.name], display: [{ name: c.label, locale: "en" }] })),
        },
      },
    },
  };
}

export function authorizationServerMetadata() {
  return {
    issuer: issuerUrl(),
    token_endpoint: endpoints().token,
    grant_types_supported: [preAuthorizedCodeGrantIdentifier],
    "pre-authorized_grant_anonymous_access_supported": true,
  };
}

/** SD-JWT VC type metadata of `vct`: names and display of the type and its claims, every claim selectively disclosable. */
export function typeMetadata() {
  return {
    vct: vct(),
    name: "AccountBinding",
    description: CREDENTIAL_DESCRIPTION,
    display: [{ locale: "en", name: CREDENTIAL_NAME, description: CREDENTIAL_DESCRIPTION }],
    claims: CLAIMS.map((c) => ({
      path: [c.name],
      display: [{ locale: "en", label: c.label, description: c.description }],
      sd: "always",
    })),
  };
}

/** The issuer's Ed25519 keys as JWKs, `kid` the same multibase value as in did.json's verification method ids. */
export const issuerJwks = () =>
  issuerKeys().map((k) => ({
    kty: "OKP",
    crv: "Ed25519",
    x: base64urlnopad.encode(k.publicKey),
    kid: k.publicKeyMultibase,
    alg: "EdDSA",
    use: "sig",
  }));

/** SD-JWT VC issuer metadata (`/.well-known/jwt-vc-issuer`): how a verifier finds the key of an `iss` that is our URL. */
export const jwtVcIssuerMetadata = () => ({ issuer: issuerUrl(), jwks: { keys: issuerJwks() } });

const HASHES: Record<string, string> = { "sha-256": "sha256", "sha-384": "sha384", "sha-512": "sha512" };

/**
 * Checks a JWT's signature with the key the library names: the holder's proof, by the JWK in its
 * header (the only binding method offered). Claims (aud, nonce, iat) are the caller's.
 */
const verifyJwt: CallbackContext["verifyJwt"] = async (signer, jwt) => {
  if (signer.method !== "jwk" || !PROOF_ALGS.includes(signer.alg)) return { verified: false };
  try {
    const key = await importJWK(signer.publicJwk as Parameters<typeof importJWK>[0], signer.alg);
    await compactVerify(jwt.compact, key, { algorithms: [signer.alg] });
    return { verified: true, signerJwk: signer.publicJwk };
  } catch {
    return { verified: false, signerJwk: signer.publicJwk };
  }
};

const callbacks: Omit<CallbackContext, "decryptJwe" | "encryptJwe"> = {
  hash: (data, alg) => {
    const name = HASHES[alg];
    if (!name) throw new Error(`unsupported hash ${alg}`);
    return createHash(name).update(data).digest();
  },
  generateRandom: (n) => randomBytes(n),
  verifyJwt,
  // Wallets are public clients of the pre-authorized code grant (no client authentication).
  clientAuthentication: clientAuthenticationAnonymous(),
  // Nothing here asks the library to sign: access tokens are opaque, credentials are signed by sd-jwt-vc.
  signJwt: () => {
    throw new Error("this issuer signs no JWT through the OpenID4VCI library");
  },
};

export function issuer(): Openid4vciIssuer {
  followOrigin();
  return new Openid4vciIssuer({ callbacks });
}

export function authorizationServer(): Oauth2AuthorizationServer {
  followOrigin();
  return new Oauth2AuthorizationServer({ callbacks });
}

/** Our own metadata as the library's issuer API takes it (what a wallet resolves from the well-known documents). */
export function issuerMetadataResult(): IssuerMetadataResult {
  const credentialIssuer = issuer().createCredentialIssuerMetadata(credentialIssuerMetadata());
  return {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer,
    authorizationServers: [authorizationServer().createAuthorizationServerMetadata(authorizationServerMetadata())],
    knownCredentialConfigurations: issuer().getKnownCredentialConfigurationsSupported(credentialIssuer),
  };
}

export type HolderJwk = Jwk;
