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

/** Parses one CIDR ("10.0.0.0/8", "2001:db8::/32") or a bare address; throws on anything else. */
export function parseCidr(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const s = cidr.trim();
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
