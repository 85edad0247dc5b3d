import type { ApiKey, Organization } from "@/generated/prisma/client.ts";

/**
 * In-process cache of API key look-ups (key hash → key row with its scopes, and the
 * organization's posture: plan, allowlist, signing, policy), so that an authenticated request
 * costs no database round trip in the steady state (docs/performance.md).
 *
 * Invalidation, strongest first:
 * 1. Services call `orgChanged` / `apiKeyChanged` after their change commits: the instance that
 *    served the change never answers from a stale entry once that request has returned.
 * 2. Triggers on `api_keys` and `organizations` NOTIFY `bi_auth` at commit (migration
 *    20261123070600), whoever the writer is; every instance LISTENs (auth-cache-listener.ts), on
 *    DATABASE_DIRECT_URL behind a transaction pooler, and drops the entry within milliseconds. While that listener is not connected, the cache is
 *    bypassed entirely (every request reads the database, as before), so a lost connection can
 *    never serve a revoked key.
 * 3. A short TTL, for a notification lost without the connection noticing.
 */
export type AuthEntry = { key: ApiKey; org: Organization };

export const AUTH_CACHE_TTL_MS = 15_000;
const MAX_ENTRIES = 10_000;

type Slot = { value: AuthEntry; expiresAt: number };

export class AuthCache {
  private slots = new Map<string, Slot>();
  private byOrg = new Map<string, Set<string>>();
  /** Bumped by every invalidation: a look-up that raced one is used once but never stored. */
  private generation = 0;
  /** False while the invalidation feed is down (or not yet up): every look-up goes to the database. */
  private live = false;
  hits = 0;
  misses = 0;

  constructor(readonly ttlMs = AUTH_CACHE_TTL_MS) {
    registry.add(this);
  }

  get enabled(): boolean {
    return this.live;
  }

  /** The feed is up (and may have missed notifications while down): start from nothing. */
  setLive(live: boolean): void {
    this.clear();
    this.live = live;
  }

  /**
   * The entry for `keyHash`, from memory when fresh, else from `load` (null: unknown key, which is
   * never cached so that guessing keys cannot fill memory).
   */
  async lookup(keyHash: string, load: () => Promise<AuthEntry | null>, now = Date.now()): Promise<AuthEntry | null> {
    if (this.live) {
      const slot = this.slots.get(keyHash);
      if (slot && slot.expiresAt > now) {
        this.hits++;
        return copy(slot.value);
      }
    }
    this.misses++;
    const generation = this.generation;
    const value = await load();
    if (value && this.live && generation === this.generation) this.store(keyHash, value, now);
    return value && copy(value);
  }

  /** Keeps the cached row's lastUsedAt in step with the throttled write, so it is not rewritten every request. */
  touch(keyHash: string, at: Date): void {
    const slot = this.slots.get(keyHash);
    if (slot) slot.value.key.lastUsedAt = at;
  }

  invalidateKey(keyHash: string): void {
    this.generation++;
    const slot = this.slots.get(keyHash);
    if (!slot) return;
    this.slots.delete(keyHash);
    this.byOrg.get(slot.value.org.id)?.delete(keyHash);
  }

  invalidateOrg(orgId: string): void {
    this.generation++;
    for (const h of this.byOrg.get(orgId) ?? []) this.slots.delete(h);
    this.byOrg.delete(orgId);
  }

  clear(): void {
    this.generation++;
    this.slots.clear();
    this.byOrg.clear();
  }

  get size(): number {
    return this.slots.size;
  }

  /** Stops receiving the process-wide hooks (a closed pipeline in tests). */
  dispose(): void {
    this.clear();
    this.live = false;
    registry.delete(this);
  }

  private store(keyHash: string, value: AuthEntry, now: number) {
    if (this.slots.size >= MAX_ENTRIES) {
      // Oldest first (Map keeps insertion order): a bounded cache, never a leak.
      const oldest = this.slots.keys().next().value as string;
      this.invalidateKeyQuietly(oldest);
    }
    this.slots.set(keyHash, { value, expiresAt: now + this.ttlMs });
    let set = this.byOrg.get(value.org.id);
    if (!set) {
      set = new Set();
      this.byOrg.set(value.org.id, set);
    }
    set.add(keyHash);
  }

  private invalidateKeyQuietly(keyHash: string) {
    const slot = this.slots.get(keyHash);
    this.slots.delete(keyHash);
    if (slot) this.byOrg.get(slot.value.org.id)?.delete(keyHash);
  }
}

/** Each request gets its own shallow copies: a service changing ctx.org must not change the cache. */
const copy = (e: AuthEntry): AuthEntry => ({ key: { ...e.key }, org: { ...e.org } });

const registry = new Set<AuthCache>();

/**
 * Invalidation hooks. Services call these after a change to an organization or an API key
 * commits, so the instance that served the change never answers from a stale entry.
 */
export function orgChanged(orgId: string): void {
  for (const c of registry) c.invalidateOrg(orgId);
}

export function apiKeyChanged(keyHash: string | null, orgId: string): void {
  for (const c of registry) keyHash ? c.invalidateKey(keyHash) : c.invalidateOrg(orgId);
}

/** Applies one `bi_auth` notification payload ('k:<hash>:<orgId>' or 'o:<orgId>'). */
export function applyNotification(cache: AuthCache, payload: string): void {
  if (payload.startsWith("o:")) cache.invalidateOrg(payload.slice(2));
  else if (payload.startsWith("k:")) cache.invalidateKey(payload.slice(2).split(":")[0]!);
  else cache.clear(); // unknown shape: be safe
}
