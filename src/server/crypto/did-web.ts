import { isLoopbackHost } from "../net/loopback";

/**
 * The URL of a did:web DID's document (W3C did:web method): `did:web:host` → https://host/.well-known/did.json,
 * `did:web:host:a:b` → https://host/a/b/did.json; a port is percent-encoded in the host. Loopback hosts
 * are fetched over http so a local service can be verified.
 */
export function didWebUrl(did: string): string {
  const m = /^did:web:([^:#?]+)((?::[^:#?]+)*)$/.exec(did);
  if (!m) throw new Error(`${did} is not a did:web DID`);
  const host = decodeURIComponent(m[1]!);
  const path = m[2] ? `${m[2].slice(1).split(":").map(decodeURIComponent).join("/")}/did.json` : ".well-known/did.json";
  return `${isLoopbackHost(host) ? "http" : "https"}://${host}/${path}`;
}
