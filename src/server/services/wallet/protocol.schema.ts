import { z } from "zod";

/**
 * The documents and answers of the OpenID4VCI endpoints as the OpenAPI document shows them. They
 * are the specifications' shapes (OpenID4VCI 1.0, RFC 8414, SD-JWT VC), open to their extensions.
 */
export const CredentialIssuerMetadataView = z
  .object({
    credential_issuer: z.string(),
    credential_endpoint: z.string(),
    nonce_endpoint: z.string(),
    display: z.array(z.object({ name: z.string(), locale: z.string() }).loose()),
    credential_configurations_supported: z.record(z.string(), z.object({ format: z.string(), vct: z.string() }).loose()),
  })
  .loose()
  .meta({ id: "CredentialIssuerMetadata" });

export const AuthorizationServerMetadataView = z
  .object({
    issuer: z.string(),
    token_endpoint: z.string(),
    grant_types_supported: z.array(z.string()),
    "pre-authorized_grant_anonymous_access_supported": z.boolean(),
  })
  .loose()
  .meta({ id: "AuthorizationServerMetadata" });

export const TypeMetadataView = z
  .object({
    vct: z.string(),
    name: z.string(),
    description: z.string(),
    display: z.array(z.object({ locale: z.string(), name: z.string(), description: z.string() })),
    claims: z.array(
      z.object({
        path: z.array(z.string()),
        display: z.array(z.object({ locale: z.string(), label: z.string(), description: z.string() })),
        sd: z.string(),
      }),
    ),
  })
  .meta({ id: "SdJwtVcTypeMetadata" });

export const JwtVcIssuerMetadataView = z
  .object({
    issuer: z.string(),
    jwks: z.object({
      keys: z.array(z.object({ kty: z.string(), crv: z.string(), x: z.string(), kid: z.string(), alg: z.string(), use: z.string() })),
    }),
  })
  .meta({ id: "JwtVcIssuerMetadata" });

/** An answer of the token, nonce or credential endpoint: the specification's JSON (a refusal is RFC 6749 §5.2's `{error, error_description}`). */
export const ProtocolAnswerView = z.record(z.string(), z.unknown()).meta({ id: "OpenId4VciAnswer" });
