import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { classifyAddress, urlHost } from "./ssrf";

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to every address it has (A and AAAA). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

let override: Resolver | undefined;

/**
 * Replaces the resolver of this process (tests: a host name that resolves to 127.0.0.1 or 10.x
 * without real DNS; local tools). `undefined` restores the system resolver.
 */
export function setWebhookResolver(resolver: Resolver | undefined): void {
  override = resolver;
}

export const currentResolver = (): Resolver => override ?? systemResolver;

/** Why an outbound request did not produce an answer; `message` is safe to store and show. */
export class OutboundError extends Error {
  constructor(
    readonly kind: "refused_address" | "dns" | "timeout" | "connect" | "tls" | "network",
    message: string,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

/**
 * Resolves the URL's host and checks EVERY address (one private answer among public ones is
 * enough to refuse: a client could pick it). Returns the checked addresses, the only ones the
 * request then connects to, so a second resolution cannot point elsewhere (DNS rebinding).
 */
export async function resolveChecked(url: URL, opts: { allowPrivate: boolean; resolver?: Resolver }): Promise<ResolvedAddress[]> {
  const { hostname, literal } = urlHost(url);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: hostname, family: hostname.includes(":") ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolver ?? currentResolver())(hostname);
    } catch {
      throw new OutboundError("dns", "The host name could not be resolved.");
    }
  }
  if (!addresses.length) throw new OutboundError("dns", "The host name has no addresses.");
  for (const a of addresses) {
    const v = classifyAddress(a.address, opts);
    if (!v.allowed) throw new OutboundError("refused_address", `The host resolves to a refused address range (${v.range}).`);
  }
  return addresses;
}

/** `head`: the first `keepAnswerBytes` bytes of the answer's body (empty unless asked for). */
export type PostResult = { status: number; latencyMs: number; head: Buffer };

/** Bytes of a receiver's answer read before the connection is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH|ERR_OSSL)/;

function classify(err: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  if (timedOut) return new OutboundError("timeout", `No answer within ${timeoutMs} ms.`);
  const code = err.code ?? "";
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(err.message))
    return new OutboundError("tls", `TLS handshake failed (${code || "error"}).`);
  if (code === "ECONNREFUSED") return new OutboundError("connect", "The connection was refused.");
  if (code === "ECONNRESET" || code === "EPIPE") return new OutboundError("network", "The connection was reset.");
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return new OutboundError("connect", "The host is unreachable.");
  return new OutboundError("network", `The request failed (${code || "network error"}).`);
}

/**
 * POSTs `body` to `url`, connecting only to addresses checked by `resolveChecked`: the socket's
 * own lookup is replaced by one that answers those addresses, while the Host header and TLS SNI and
 * certificate check keep the host name. Redirects are never followed (the status is returned).
 * `timeoutMs` bounds everything: DNS, connect, TLS, and the whole answer.
 */
export async function pinnedPost(
  url: URL,
  init: {
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
    allowPrivate: boolean;
    resolver?: Resolver;
    ca?: string | Buffer;
    /** How much of the answer's body to return in `head`. */
    keepAnswerBytes?: number;
  },
): Promise<PostResult> {
  const started = performance.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, init.timeoutMs);
  try {
    const targets = await Promise.race([
      resolveChecked(url, init),
      new Promise<never>((_, reject) =>
        controller.signal.addEventListener("abort", () => reject(new OutboundError("timeout", `No answer within ${init.timeoutMs} ms.`))),
      ),
    ]);
    const lookup: LookupFunction = (_host, options, callback) => {
      // Node asks with `all: true` when it may try several addresses (happy eyeballs): it gets the
      // checked ones, and nothing else; otherwise the first checked one.
      if ((options as { all?: boolean }).all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, targets);
      else callback(null, targets[0]!.address, targets[0]!.family);
    };
    const { hostname } = urlHost(url);
    const payload = Buffer.from(init.body, "utf8");
    const options: https.RequestOptions = {
      method: "POST",
      protocol: url.protocol,
      hostname,
      port: url.port || (url.protocol === "https:" ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers: { ...init.headers, "content-length": String(payload.length) },
      lookup,
      servername: urlHost(url).literal ? undefined : hostname,
      agent: false,
      signal: controller.signal,
      ...(init.ca ? { ca: init.ca } : {}),
    };
    const keep = init.keepAnswerBytes ?? 0;
    const kept: Buffer[] = [];
    const status = await new Promise<number>((resolve, reject) => {
      const req = (url.protocol === "https:" ? https : http).request(options, (res) => {
        // Read (and drop) the answer so the status counts only once the receiver finished it; past
        // MAX_ANSWER_BYTES the rest is not worth the bandwidth, and the status is already known.
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          if (read < keep) kept.push(chunk.subarray(0, keep - read));
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            resolve(res.statusCode ?? 0);
            res.destroy();
          }
        });
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
    return { status, latencyMs: performance.now() - started, head: Buffer.concat(kept) };
  } catch (err) {
    throw classify(err as NodeJS.ErrnoException, timedOut, init.timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}
