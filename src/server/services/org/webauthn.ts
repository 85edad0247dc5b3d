/**
 * @simplewebauthn/server, loaded on the first passkey operation: it brings an X.509 and ASN.1
 * stack that takes longer to load than the rest of the service's modules together, and most
 * processes (the worker, a tenant's /v1 traffic, most test files) never verify a passkey.
 */
export const webauthn = () => import("@simplewebauthn/server");
