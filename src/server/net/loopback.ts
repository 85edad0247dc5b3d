/**
 * Whether a host (as in a URL's `host`, a port allowed) names this machine: `localhost`, any
 * 127.0.0.0/8 address or `[::1]`. Local development and loopback DID documents are told apart by it.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, "").toLowerCase();
  return name === "localhost" || name === "[::1]" || /^127(\.\d{1,3}){3}$/.test(name);
}
