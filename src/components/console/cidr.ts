/**
 * A browser-side check of whether an IPv4 address falls in a CIDR, only to warn before saving an
 * allowlist; the service decides (and warns again) with its own parser. IPv6 entries are treated
 * as a match when the address is IPv6 and the prefixes look alike, erring towards no warning.
 */
export function cidrContains(cidr: string, ip: string): boolean {
  const [base, bitsRaw] = cidr.split("/");
  if (!base) return false;
  if (ip.includes(":") || base.includes(":")) return ip.includes(":") && base.includes(":") && (bitsRaw === undefined ? base === ip : true);
  const toInt = (a: string) => a.split(".").reduce((n, o) => (n << 8) + Number(o), 0) >>> 0;
  const bits = bitsRaw === undefined ? 32 : Number(bitsRaw);
  if (!Number.isInteger(bits) || bits < 0 || bits > 32 || base.split(".").length !== 4) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (toInt(base) & mask) === (toInt(ip) & mask);
}
