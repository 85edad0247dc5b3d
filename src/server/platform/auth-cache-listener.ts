import pg from "pg";
import { connectDb, listenUrl, onDbNotification } from "../db/client";
import { logger } from "../log";
import { AuthCache, applyNotification } from "./auth-cache";

export const AUTH_CHANNEL = "bi_auth";
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 3_000;
const MAX_RETRY_MS = 5_000;

export type Feed = { stop(): Promise<void> };

/**
 * Keeps `cache` live while it receives every `bi_auth` notification. On PostgreSQL this is a
 * dedicated client (LISTEN holds a session, so never one of Prisma's pooled connections) on
 * DATABASE_DIRECT_URL, or on DATABASE_URL when that is PostgreSQL itself, with keep-alive, a
 * heartbeat and reconnection; while it is down the cache is bypassed. On the
 * embedded database the one in-process instance delivers notifications at commit.
 */
export function startInvalidationFeed(
  cache: AuthCache,
  source: { databaseUrl?: string; listen?: NonNullable<Awaited<ReturnType<typeof connectDb>>["listen"]> },
): Feed {
  if (source.listen) {
    let unlisten: (() => Promise<void>) | undefined;
    let stopped = false;
    const ready = source
      .listen(AUTH_CHANNEL, (payload) => applyNotification(cache, payload))
      .then((u) => {
        unlisten = u;
        if (!stopped) cache.setLive(true);
      })
      .catch((err: Error) => logger().warn({ err: { message: err.message } }, "auth cache: embedded LISTEN failed; cache stays off"));
    return {
      async stop() {
        stopped = true;
        cache.setLive(false);
        await ready;
        await unlisten?.().catch(() => undefined);
      },
    };
  }
  if (!source.databaseUrl) return { stop: async () => cache.setLive(false) };
  return new PgFeed(cache, source.databaseUrl);
}

class PgFeed implements Feed {
  private client?: pg.Client;
  private stopped = false;
  private retryMs = 100;
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private cache: AuthCache,
    private url: string,
  ) {
    void this.connect();
  }

  private async connect() {
    if (this.stopped) return;
    const c = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      application_name: "bi-auth-cache",
      connectionTimeoutMillis: 5_000,
    });
    c.on("notification", (n) => {
      if (n.channel === AUTH_CHANNEL) applyNotification(this.cache, n.payload ?? "");
    });
    c.on("error", () => this.lost(c));
    c.on("end", () => this.lost(c));
    try {
      await c.connect();
      // Never keep a process alive just to hear about invalidations.
      (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
      if (this.stopped) return void c.end().catch(() => undefined);
      this.client = c;
      this.retryMs = 100;
      this.cache.setLive(true);
      this.heartbeat = setInterval(() => void this.beat(c), HEARTBEAT_MS);
      this.heartbeat.unref();
    } catch {
      this.lost(c);
    }
  }

  /** A connection that stopped answering without an error must not keep the cache live. */
  private async beat(c: pg.Client) {
    let t: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error("heartbeat timeout")), HEARTBEAT_TIMEOUT_MS)));
    try {
      await Promise.race([c.query("SELECT 1"), timeout]);
    } catch {
      this.lost(c);
    } finally {
      clearTimeout(t);
    }
  }

  private lost(c: pg.Client) {
    if (this.client && this.client !== c) return;
    const wasLive = this.client === c;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.cache.setLive(false);
    c.removeAllListeners("end");
    c.on("error", () => undefined);
    void c.end().catch(() => undefined);
    if (this.stopped || this.timer) return;
    if (wasLive) logger().warn("auth cache: invalidation feed lost; reading keys from the database until it is back");
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    this.cache.setLive(false);
    const c = this.client;
    this.client = undefined;
    if (c) {
      c.removeAllListeners("end");
      await c.end().catch(() => undefined);
    }
  }
}

/**
 * A cache with its own invalidation feed, for this process's database. On PostgreSQL it also
 * hears the pooled sessions (db/client.ts `onDbNotification`): this process's own writes, by any
 * code path, invalidate before the write's await returns.
 */
export function createAuthCache(): { cache: AuthCache; feed: Promise<Feed> } {
  const cache = new AuthCache();
  const off = onDbNotification((channel, payload) => {
    if (channel === AUTH_CHANNEL) applyNotification(cache, payload);
  });
  const feed = connectDb().then((conn) => {
    const f = startInvalidationFeed(cache, { databaseUrl: listenUrl(), listen: conn.listen });
    return {
      stop: async () => {
        off();
        await f.stop();
      },
    };
  });
  return { cache, feed };
}

const g = globalThis as unknown as { __biAuthCache?: { cache: AuthCache; feed: Promise<Feed> } };

/** The process's cache (one per instance), started on first use. */
export function defaultAuthCache(): AuthCache {
  g.__biAuthCache ??= createAuthCache();
  return g.__biAuthCache.cache;
}

/** Shutdown: closes the LISTEN connection. */
export async function stopDefaultAuthCache(): Promise<void> {
  const c = g.__biAuthCache;
  g.__biAuthCache = undefined;
  if (c) await (await c.feed).stop();
}
