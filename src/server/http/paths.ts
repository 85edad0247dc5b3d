/** Paths served by our own pipeline rather than by Next: the API, the DID documents and the credential status lists. */
export function isPipelinePath(path: string): boolean {
  return (
    path === "/v1" ||
    path.startsWith("/v1/") ||
    path === "/.well-known/did.json" ||
    /^\/(people|orgs)\/[^/]+\/did\.json$/.test(path) ||
    /^\/credentials\/status\/[^/]+$/.test(path)
  );
}
