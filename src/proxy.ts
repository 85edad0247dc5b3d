import { type NextRequest, NextResponse } from "next/server";

/**
 * Security headers on every page Next serves (console, /docs, home). Scripts run only with this
 * request's nonce ('strict-dynamic' lets Next's own chunks load from them); styles allow inline
 * attributes, which React and Radix set for positioning and which a nonce cannot cover. /v1 never
 * reaches Next (our own pipeline serves it).
 */
/**
 * Where the hosted bind page's wallet code connects beyond this origin: the chain's node for the
 * user's browser (CHAIN_PUBLIC_API_URL, else CHAIN_API_URL; the sandbox chain is same-origin) and
 * Anchor's callback service, through which the Anchor app answers a browser session. Cloud Wallet
 * signs in its own pop-up window and Wombat in its extension, so neither needs a connection here.
 */
function bindPageConnectSources(): string[] {
  const sources = ["https://cb.anchor.link", "wss://cb.anchor.link"];
  const node = process.env.CHAIN_PUBLIC_API_URL ?? process.env.CHAIN_API_URL;
  if (node) {
    try {
      sources.push(new URL(node).origin);
    } catch {
      // A bad URL is refused at start-up by the chain settings; never widen the policy for it.
    }
  }
  return sources;
}

export function proxy(request: NextRequest) {
  const bindPage = request.nextUrl.pathname === "/bind";
  // Pages whose address carries a secret (the bind token, a checkout session id, a presentation
  // request's id, with which anyone may decline it) send no Referer.
  const secretInUrl =
    bindPage ||
    request.nextUrl.pathname === "/billing/return" ||
    request.nextUrl.pathname.startsWith("/billing/sandbox-checkout/") ||
    request.nextUrl.pathname.startsWith("/wallet/present/");
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const production = process.env.BI_ENV === "production";
  const dev = process.env.NODE_ENV === "development";
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${bindPage ? ` ${bindPageConnectSources().join(" ")}` : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(production ? ["upgrade-insecure-requests"] : []),
  ].join("; ");

  // Next reads the nonce from the request's CSP header and puts it on its own script tags.
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  response.headers.set("X-Content-Type-Options", "nosniff");
  response.headers.set("Referrer-Policy", secretInUrl ? "no-referrer" : "strict-origin-when-cross-origin");
  response.headers.set("X-Frame-Options", "DENY");
  response.headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  if (production) response.headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  if (secretInUrl || request.nextUrl.pathname.startsWith("/console") || request.nextUrl.pathname.startsWith("/api/")) {
    response.headers.set("Cache-Control", "no-store");
  }
  return response;
}

export const config = {
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.ico).*)" }],
};
