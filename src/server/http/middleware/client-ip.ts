import { compileCidrs, normalizeIp } from "../../net/cidr";
import type { Middleware } from "../types";

/**
 * The client address is the TCP peer. X-Forwarded-For is believed only when the peer is a trusted
 * proxy; then the chain is walked from the right, skipping trusted hops, and the first untrusted
 * address is the client. A spoofed header from an untrusted peer changes nothing.
 */
export function clientIp(trustedProxies: string[]): Middleware {
  const trusted = compileCidrs(trustedProxies);
  return async (state, next) => {
    state.clientIp = resolveClientIp(state.req.peerIp, state.req.headers.get("x-forwarded-for"), trusted);
    return next();
  };
}

export function resolveClientIp(peerIp: string, forwardedFor: string | null, trusted: ReturnType<typeof compileCidrs>): string {
  const peer = normalizeIp(peerIp) ?? peerIp;
  if (!forwardedFor || !trusted.contains(peer)) return peer;
  const hops = forwardedFor
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]!);
    if (!hop) break; // garbage in the header: stop believing it at this point
    client = hop;
    if (!trusted.contains(hop)) break;
  }
  return client;
}
