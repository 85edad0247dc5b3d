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

/**
 * Whether an allowlist entry has the form the service accepts: an IPv4 address of four decimal
 * parts or an IPv6 address, with an optional prefix length in range. Checked before any
 * confirmation, so a typo is never mistaken for a lock-out; the service checks again.
 */
export function isCidr(entry: string): boolean {
  const parts = entry.trim().split("/");
  if (parts.length > 2 || !parts[0]) return false;
  const [addr, bitsRaw] = parts as [string, string | undefined];
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addr);
  const max = v4 ? 32 : 128;
  if (bitsRaw !== undefined && (!/^\d{1,3}$/.test(bitsRaw) || Number(bitsRaw) > max)) return false;
  return v4 ? isIpv4(addr) : isIpv6(addr);
}

function isIpv4(addr: string): boolean {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addr);
  return !!parts && parts.slice(1).every((o) => Number(o) <= 255 && !(o.length > 1 && o.startsWith("0")));
}

function isIpv6(addr: string): boolean {
  if (!addr.includes(":") || !/^[0-9a-f:.]+$/i.test(addr) || addr.split("::").length > 2) return false;
  let groups = addr.split(":");
  const last = groups[groups.length - 1]!;
  // An embedded IPv4 tail (::ffff:192.0.2.1) counts as two groups.
  if (last.includes(".")) {
    if (!isIpv4(last)) return false;
    groups = [...groups.slice(0, -1), "0", "0"];
  }
  const compressed = addr.includes("::");
  const filled = groups.filter((g) => g !== "");
  if (filled.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return false;
  return compressed ? filled.length < 8 : filled.length === 8 && groups.length === 8;
}
