import ipaddr from "ipaddr.js";
import { hmacSha256Hex, sha256Hex } from "./hash";
import { deriveKey } from "./secret-box";

/**
 * How risk assessments keep what they count by (docs/data-protection.md): the client address and
 * the device fingerprint, as keyed hashes (BI_HASH_KEY), so a database dump alone cannot test
 * addresses or low-entropy fingerprints against them.
 */

/**
 * The keyed hash of a client address (normalised) in an organization: risk events are counted per
 * organization, so the organization is part of what is hashed (the same address gives different
 * hashes in two organizations).
 */
export const clientIpHash = (orgId: string, ip: string) => hmacSha256Hex(deriveKey("client-ip"), `${orgId}\n${ip}`);

/**
 * What is kept of a client address in clear: its network (an IPv4 /24, an IPv6 /48), e.g.
 * "203.0.113.0/24", which the console shows. Always holds a "/", so it never equals an address
 * written in clear before (risk_events.clientIp). Null for what is not an address.
 */
export function maskedClientIp(ip: string): string | null {
  try {
    const addr = ipaddr.process(ip.trim());
    const cidr =
      addr.kind() === "ipv4"
        ? `${ipaddr.IPv4.networkAddressFromCIDR(`${addr}/24`)}/24`
        : `${ipaddr.IPv6.networkAddressFromCIDR(`${addr}/48`)}/48`;
    return cidr;
  } catch {
    return null;
  }
}

/** Marks a device fingerprint's keyed hash; a value without it is the plain SHA-256 written before. */
export const DEVICE_HASH_PREFIX = "k1:";

/**
 * A stored device hash in its keyed form: the keyed hash of the plain SHA-256 of the fingerprint,
 * so a value written before (the plain SHA-256) is turned into it in place, without the fingerprint.
 */
export const keyedDeviceHash = (plainSha256: string) =>
  `${DEVICE_HASH_PREFIX}${hmacSha256Hex(deriveKey("device-fingerprint"), plainSha256)}`;

/** The two forms a fingerprint may be stored in: the keyed one (written now) and the plain SHA-256 (written before, until migrated). */
export function deviceHashes(fingerprint: string): { keyed: string; plain: string } {
  const plain = sha256Hex(fingerprint);
  return { keyed: keyedDeviceHash(plain), plain };
}
