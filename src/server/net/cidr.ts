import ipaddr from "ipaddr.js";

/** Parses an address, unwrapping IPv4-mapped IPv6 (::ffff:1.2.3.4 -> 1.2.3.4); null when invalid. */
export function normalizeIp(ip: string): string | null {
  try {
    const addr = ipaddr.parse(ip.trim());
    if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return (addr as ipaddr.IPv6).toIPv4Address().toString();
    return addr.toString();
  } catch {
    return null;
  }
}

/**
 * Parses one CIDR ("10.0.0.0/8", "2001:db8::/32") or a bare address; throws on anything else,
 * including the legacy IPv4 forms ipaddr.js would accept ("10/8" is 0.0.0.10/8, "010.0.0.1" is
 * octal) and IPv6 zone ids, which would silently trust addresses nobody meant.
 */
export function parseCidr(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const s = cidr.trim();
  const [addrPart = "", bits, ...rest] = s.split("/");
  const strictAddress = ipaddr.IPv4.isValidFourPartDecimal(addrPart) || (ipaddr.IPv6.isValid(addrPart) && !addrPart.includes("%"));
  if (!strictAddress || rest.length || (bits !== undefined && !/^\d{1,3}$/.test(bits))) throw new Error(`not a CIDR: ${s}`);
  if (!s.includes("/")) {
    const a = ipaddr.parse(s);
    return [a, a.kind() === "ipv4" ? 32 : 128];
  }
  return ipaddr.parseCIDR(s);
}

export function isValidCidr(cidr: string): boolean {
  try {
    parseCidr(cidr);
    return true;
  } catch {
    return false;
  }
}

/** CIDR rules compiled once; `contains` takes any address string. */
export function compileCidrs(cidrs: readonly string[]) {
  const rules = cidrs.filter((c) => c.trim()).map(parseCidr);
  return {
    size: rules.length,
    contains(ip: string): boolean {
      const n = normalizeIp(ip);
      if (!n) return false;
      const addr = ipaddr.parse(n);
      return rules.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
    },
  };
}
