import { env } from "@/env";
import type { ApiKey, Organization } from "@/generated/prisma/client.ts";
import type { Environment } from "@/generated/prisma/enums.ts";
import { SCOPES, type Scope } from "@/lib/scopes";
import { actorId, type ServiceContext } from "../../context";
import { constantTimeEqual, randomToken, sha256Hex } from "../../crypto/hash";
import type { Db, Tx } from "../../db/client";
import { forbidden, notFound, unauthorized } from "../../errors";
import { type AuthCache, apiKeyChanged } from "../../platform/auth-cache";
import { appendAudit } from "../audit";
import { actingRole } from "./acting-person";

const PREFIX: Record<Environment, string> = { sandbox: "bi_test_", production: "bi_" };
/** Characters of the key shown in lists: the environment prefix plus 8 random characters. */
const SHOWN_RANDOM_CHARS = 8;

export const environmentOfKey = (raw: string): Environment | null =>
  raw.startsWith("bi_test_") ? "sandbox" : raw.startsWith("bi_") ? "production" : null;

export function generateApiKey(environment: Environment): { raw: string; prefix: string; hash: string } {
  const raw = PREFIX[environment] + randomToken(32);
  return { raw, prefix: raw.slice(0, PREFIX[environment].length + SHOWN_RANDOM_CHARS), hash: sha256Hex(raw) };
}

/**
 * Resolves a raw key to its key row and organization. A key of the other environment is refused
 * before any lookup; the stored hash is compared in constant time; revoked keys are refused.
 */
export async function authenticateApiKey(
  db: Db,
  raw: string,
  deployment: Environment,
  cache?: AuthCache,
): Promise<{ key: ApiKey; org: Organization }> {
  const keyEnv = environmentOfKey(raw);
  if (!keyEnv) throw unauthorized("invalid_key", "The API key is not valid.");
  if (keyEnv !== deployment) {
    throw unauthorized(
      "wrong_environment",
      `This is a ${keyEnv} key (${PREFIX[keyEnv]}…); this is the ${deployment} environment, which accepts ${PREFIX[deployment]} keys only.`,
    );
  }
  const hash = sha256Hex(raw);
  const load = async () => {
    const row = await db.apiKey.findUnique({ where: { keyHash: hash }, include: { org: true } });
    if (!row) return null;
    const { org, ...key } = row;
    return { key, org };
  };
  // The key cache (platform/auth-cache.ts) only saves the read: every check below runs on every request.
  const found = cache ? await cache.lookup(hash, load) : await load();
  if (!found || !constantTimeEqual(found.key.keyHash, hash) || found.key.revokedAt || found.key.environment !== deployment) {
    throw unauthorized("invalid_key", "The API key is not valid, or has been revoked.");
  }
  const { org, key } = found;
  touchLastUsed(db, key, cache);
  // The hash has done its job; nothing downstream needs it, so it does not travel further.
  return { key: { ...key, keyHash: "" }, org };
}

/** Per instance, when each key's lastUsedAt was last written: a cached row would otherwise look stale forever. */
const lastTouched = new Map<string, number>();

/** Records last use at most once a minute per key and instance, off the request's critical path. */
function touchLastUsed(db: Db, key: ApiKey, cache?: AuthCache) {
  const now = Date.now();
  const last = Math.max(key.lastUsedAt?.getTime() ?? 0, lastTouched.get(key.id) ?? 0);
  if (now - last < 60_000) return;
  if (lastTouched.size > 100_000) lastTouched.clear();
  lastTouched.set(key.id, now);
  const at = new Date(now);
  cache?.touch(key.keyHash, at);
  void db.apiKey.updateMany({ where: { id: key.id }, data: { lastUsedAt: at } }).catch(() => undefined);
}

export const apiKeyView = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

/** Inserts a key row inside `tx`; the raw key leaves this function once and is never stored. */
export async function insertApiKey(tx: Tx, orgId: string, input: { name: string; scopes: readonly Scope[]; createdBy: string }) {
  const environment = env().BI_ENV;
  const gen = generateApiKey(environment);
  const key = await tx.apiKey.create({
    data: {
      orgId,
      name: input.name,
      prefix: gen.prefix,
      keyHash: gen.hash,
      environment,
      scopes: [...input.scopes],
      createdBy: input.createdBy,
    },
  });
  return { key, raw: gen.raw };
}

export async function listApiKeys(ctx: ServiceContext) {
  const keys = await ctx.db.apiKey.findMany({ where: { orgId: ctx.org.id }, orderBy: { createdAt: "desc" } });
  return { keys: keys.map(apiKeyView) };
}

export const API_KEY_WARNING = "Store this key now: it is shown once and cannot be recovered. Use it from servers only.";
export const FULL_ACCESS_NOTICE =
  "No scopes were given, so this key holds every scope, including admin. Prefer keys limited to the scopes each integration needs.";

/**
 * Mints a key (every scope when none are given) and, for rotation, revokes `revokeKeyId` in the
 * same transaction. A key to revoke that is not in this organization is 404 and nothing is minted.
 */
export async function mintApiKey(ctx: ServiceContext, input: { name: string; scopes?: Scope[]; revokeKeyId?: string }) {
  let revokedHash: string | null = null;
  const out = await ctx.db.$transaction(async (tx) => {
    if (input.revokeKeyId) {
      const old = await tx.apiKey.findFirst({ where: { id: input.revokeKeyId, orgId: ctx.org.id } });
      if (!old) throw notFound("The API key to revoke");
      revokedHash = old.keyHash;
    }
    // Stored in the canonical order, once each, whatever order the caller listed them in.
    const scopes = input.scopes ? SCOPES.filter((s) => input.scopes!.includes(s)) : [...SCOPES];
    // An admin-scope key can manage members and keys: a member (or a member's key) mints one only as an owner.
    const acting = scopes.includes("admin") ? await actingRole(ctx, tx) : null;
    if (acting !== null && acting !== "owner") throw forbidden("owner_required", "Only an owner can mint a key with the admin scope.");
    const { key, raw } = await insertApiKey(tx, ctx.org.id, { name: input.name, scopes, createdBy: actorId(ctx.actor) });
    let revokedKeyId: string | null = null;
    let revokedNow = false;
    if (input.revokeKeyId) {
      const r = await tx.apiKey.updateMany({
        where: { id: input.revokeKeyId, orgId: ctx.org.id, revokedAt: null },
        data: { revokedAt: ctx.now() },
      });
      revokedKeyId = input.revokeKeyId;
      revokedNow = r.count > 0;
    }
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "api_key.created",
        subjectType: "api_key",
        subject: key.id,
        data: { name: key.name, prefix: key.prefix, scopes: key.scopes, revokedKeyId },
      },
    );
    if (revokedNow) {
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "api_key.revoked",
          subjectType: "api_key",
          subject: input.revokeKeyId,
          data: { replacedBy: key.id },
        },
      );
    }
    return {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      apiKey: raw,
      scopes: key.scopes,
      revokedKeyId,
      warning: API_KEY_WARNING,
      ...(input.scopes ? {} : { scopeNotice: FULL_ACCESS_NOTICE }),
    };
  });
  // Committed: the rotated-out key stops working on this instance before the answer leaves.
  if (revokedHash) apiKeyChanged(revokedHash, ctx.org.id);
  return out;
}

/** Revokes a key of this organization (404 otherwise); revoking again answers the first revocation. */
export async function revokeApiKey(ctx: ServiceContext, id: string) {
  let revokedHash: string | null = null;
  const out = await ctx.db.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id, orgId: ctx.org.id } });
    if (!key) throw notFound("API key");
    revokedHash = key.keyHash;
    const at = ctx.now();
    // Conditional on revokedAt so that two concurrent revocations write one audit entry.
    const r = key.revokedAt
      ? { count: 0 }
      : await tx.apiKey.updateMany({ where: { id, orgId: ctx.org.id, revokedAt: null }, data: { revokedAt: at } });
    if (r.count) {
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "api_key.revoked",
          subjectType: "api_key",
          subject: id,
          data: { prefix: key.prefix },
        },
      );
      return { id, revoked: true as const, revokedAt: at.toISOString() };
    }
    const current = await tx.apiKey.findUniqueOrThrow({ where: { id } });
    return { id, revoked: true as const, revokedAt: (current.revokedAt ?? at).toISOString() };
  });
  // Committed: refused on this instance from the moment this answer leaves (others: NOTIFY).
  if (revokedHash) apiKeyChanged(revokedHash, ctx.org.id);
  return out;
}
