/** The well-known documents the pipeline answers: our DID and the wallet issuance metadata (docs/api/guides/wallets.md). */
const WELL_KNOWN = new Set([
  "/.well-known/did.json",
  "/.well-known/openid-credential-issuer",
  "/.well-known/oauth-authorization-server",
  "/.well-known/jwt-vc-issuer",
]);

/**
 * Paths served by our own pipeline rather than by Next: the API, the DID documents, the credential
 * status lists, and the wallet issuance endpoints (OpenID4VCI's token, nonce and credential, and
 * the credential type's metadata) and the presentation endpoints (OpenID4VP's request objects and
 * responses).
 */
export function isPipelinePath(path: string): boolean {
  return (
    path === "/v1" ||
    path.startsWith("/v1/") ||
    WELL_KNOWN.has(path) ||
    path.startsWith("/oid4vci/") ||
    path.startsWith("/oid4vp/") ||
    path.startsWith("/vct/") ||
    /^\/(people|orgs)\/[^/]+\/did\.json$/.test(path) ||
    /^\/credentials\/status\/[^/]+$/.test(path)
  );
}
