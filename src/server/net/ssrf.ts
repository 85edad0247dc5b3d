import ipaddr from "ipaddr.js";

/**
 * Address policy of outbound webhooks. Only plain public unicast is reachable; everything a
 * request could use to reach inside our network (or someone else's) is refused: private,
 * loopback, link-local (cloud metadata), unique-local, CGNAT, 0.0.0.0/8, multicast, broadcast,
 * reserved and documentation ranges, and every IPv6 form that embeds or translates an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo), since those reach IPv4 hosts we
 * would otherwise have refused.
 */
export type AddressVerdict = { allowed: true; range: "unicast" | AllowedPrivateRange } | { allowed: false; range: string };

/** Admitted by WEBHOOK_ALLOW_PRIVATE_URLS=true (local receivers); link-local never is. */
type AllowedPrivateRange = "loopback" | "private" | "uniqueLocal";
const PRIVATE_WHEN_ALLOWED = new Set<string>(["loopback", "private", "uniqueLocal"]);

/** Global unicast IPv6 is 2000::/3; anything outside it that ipaddr.js calls "unicast" is unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** Range name of one address ("unicast" when public), or "invalid". */
export function addressRange(ip: string): string {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Four-part decimal only: "0x7f.1" or "127.1" never reach here from a URL (WHATWG URL
    // normalises them), and from DNS answers they cannot occur.
    if (!ipaddr.IPv4.isValidFourPartDecimal(ip) && !(ipaddr.IPv6.isValid(ip) && !ip.includes("%"))) return "invalid";
    addr = ipaddr.parse(ip);
  } catch {
    return "invalid";
  }
  const range = addr.range();
  if (addr.kind() === "ipv4") return range;
  if (range !== "unicast") return range;
  const v6 = addr as ipaddr.IPv6;
  if (!v6.match(GLOBAL_UNICAST_V6 as [ipaddr.IPv6, number])) {
    // ::a.b.c.d (IPv4-compatible, deprecated) and any other address outside 2000::/3.
    return v6.parts.slice(0, 6).every((p) => p === 0) ? "ipv4Compatible" : "reserved";
  }
  return "unicast";
}

/** Whether a webhook may connect to `ip`, with the range name that decided it (for lastError). */
export function classifyAddress(ip: string, opts: { allowPrivate: boolean }): AddressVerdict {
  const range = addressRange(ip);
  if (range === "unicast") return { allowed: true, range };
  if (opts.allowPrivate && PRIVATE_WHEN_ALLOWED.has(range)) return { allowed: true, range: range as AllowedPrivateRange };
  return { allowed: false, range };
}

export type UrlVerdict = { ok: true; url: URL; hostname: string; literal: boolean } | { ok: false; reason: string };

/** Bracket-less host of a URL, and whether it is an IP literal (then no DNS is asked). */
export function urlHost(url: URL): { hostname: string; literal: boolean } {
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { hostname, literal: ipaddr.isValid(hostname) };
}

/**
 * Static checks of a receiver URL, before any DNS: HTTPS (plain HTTP only when private URLs are
 * allowed, for local receivers), no credentials in the URL, no fragment, a host, and an IP
 * literal host already classified.
 */
export function checkWebhookUrl(raw: string, opts: { allowPrivate: boolean }): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "is not a valid absolute URL" };
  }
  if (url.protocol !== "https:" && !(opts.allowPrivate && url.protocol === "http:")) return { ok: false, reason: "must use https" };
  if (url.username || url.password) return { ok: false, reason: "must not carry credentials" };
  if (url.hash) return { ok: false, reason: "must not carry a fragment" };
  const { hostname, literal } = urlHost(url);
  if (!hostname) return { ok: false, reason: "must name a host" };
  if (literal) {
    const v = classifyAddress(hostname, opts);
    if (!v.allowed) return { ok: false, reason: `points at a refused address range (${v.range})` };
  } else if (hostname === "localhost" || hostname.endsWith(".localhost")) {
    // RFC 6761: resolves to loopback by definition, whatever a resolver says.
    if (!opts.allowPrivate) return { ok: false, reason: "points at a refused address range (loopback)" };
  }
  return { ok: true, url, hostname, literal };
}
