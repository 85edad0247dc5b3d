import ipaddr from "ipaddr.js";
import { isValidCidr } from "../net/cidr";

const PREFIX_BITS = /^\d{1,3}$/;

/**
 * The canonical form of one allowlist entry ("203.0.113.7/24" -> "203.0.113.0/24", a bare
 * address -> "/32" or "/128", IPv4-mapped IPv6 -> IPv4), or null when it is not one.
 * Stricter than the parser's own leniency: IPv4 must be four decimal parts, because the legacy
 * forms it otherwise accepts ("10/8" is 0.0.0.10/8, "010.0.0.1" is octal) silently allow
 * addresses nobody meant; zone ids ("fe80::1%eth0") are refused as well.
 */
export function canonicalCidr(input: string): string | null {
  const s = input.trim();
  if (!isValidCidr(s)) return null;
  const [addrPart, bitsPart, ...rest] = s.split("/");
  if (rest.length || (bitsPart !== undefined && !PREFIX_BITS.test(bitsPart))) return null;
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(addrPart!);
  if (!isV4 && (!ipaddr.IPv6.isValid(addrPart!) || addrPart!.includes("%"))) return null;
  let addr: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(addrPart!);
  let bits = bitsPart === undefined ? (isV4 ? 32 : 128) : Number(bitsPart);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
  }
  const network =
    addr.kind() === "ipv4" ? ipaddr.IPv4.networkAddressFromCIDR(`${addr}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr}/${bits}`);
  return `${network.toString()}/${bits}`;
}
