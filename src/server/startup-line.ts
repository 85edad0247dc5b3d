/**
 * The one plain sentence printed at start-up (on stderr, so stdout stays one JSON log object per
 * line): where a person at the terminal finds the service, the console and the docs.
 */
export function startupLine(opts: { port: number; host: string; withNext: boolean; publicUrl: string }): string {
  const wildcard = opts.host === "0.0.0.0" || opts.host === "::" || opts.host === "";
  const host = wildcard || opts.host === "127.0.0.1" || opts.host === "::1" ? "localhost" : opts.host;
  const local = `http://${host.includes(":") ? `[${host}]` : host}:${opts.port}`;
  const pub = opts.publicUrl.replace(/\/+$/, "");
  const publicPart = pub === local ? "" : ` (public address ${pub})`;
  if (!opts.withNext) return `Bind Identity API listening on ${local}${publicPart}, API only: no console or pages (--api-only)`;
  return `Bind Identity listening on ${local}${publicPart}, console ${local}/console, docs ${local}/docs`;
}
