/**
 * The custom server (src/server/app.ts) resolves the client address from the socket and trusted
 * proxies, exactly as the /v1 pipeline does, and hands it to Next in this header, replacing any
 * value the client sent. Next's handlers cannot see the socket themselves.
 */
export const CLIENT_IP_HEADER = "x-bi-client-ip";

export function clientIpFrom(headers: Headers | Record<string, string | string[] | undefined>): string {
  const v = headers instanceof Headers ? headers.get(CLIENT_IP_HEADER) : headers[CLIENT_IP_HEADER];
  return (Array.isArray(v) ? v[0] : v) || "unknown";
}
