import client from "prom-client";
import type { Actor } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { type Db, type DbOrTx, getDb, Prisma } from "../../db/client";
import { logger } from "../../log";
import { countedInDatabase, metrics } from "../../metrics";
import { personDidOf } from "../../platform/account-ref";
import { type AuthorityResolver, type ChainAccountState, chainAdapter, chainReader, satisfies } from "../../providers/chain";

import { lockAmlSubject, recordKeyChange } from "../aml";
import { lockBindings, suspendLocked } from "../credential-status";

const WATCH: Actor = { type: "system", label: "chain-watch" };

type Watched = {
  id: string;
  orgId: string;
  personId: string;
  signingKey: string | null;
  signingKeys: string[];
  signingPermissions: string[];
  account: { name: string; did: string };
};

/**
 * Whether the keys that bound the account still satisfy every permission they satisfied at
 * binding, as the chain evaluates it now: thresholds, weights and delegated permissions followed
 * through `resolve` (a delegate's keys changing counts). An unknown account satisfies nothing.
 */
export async function stillSatisfied(
  b: Pick<Watched, "signingKey" | "signingKeys" | "signingPermissions">,
  state: ChainAccountState | null,
  resolve: AuthorityResolver,
): Promise<boolean> {
  if (!b.signingKey) return true;
  const keys = b.signingKeys.length ? b.signingKeys : [b.signingKey];
  const permissions = b.signingPermissions.length ? b.signingPermissions : ["owner", "active"];
  for (const p of permissions) {
    const authority = state?.permissions[p];
    if (!authority || !(await satisfies(authority, keys, resolve)).satisfied) return false;
  }
  return true;
}

/** Bindings one pass reads at most: with CHAIN_WATCH_INTERVAL_MS, how fast the watch goes round all of them. */
const KEY_WATCH_BATCH = 5000;

/** Checked bindings are marked this many at a time, so a pass cut short keeps most of what it read. */
const MARK_EVERY = 500;

/** The bindings the watch follows: not revoked, bound with a known key, not already suspended for a key change. */
const WATCHED = Prisma.sql`b.status <> 'revoked' AND b."signingKey" IS NOT NULL
  AND NOT (coalesce(b."suspendedFor", '{}') @> ARRAY['key_changed']::text[])`;

/** Seconds since the watched binding checked longest ago was checked (0 when none is watched), by the database's clock. */
async function oldestKeyCheckAgeSeconds(db: DbOrTx): Promise<number> {
  const [row] = await db.$queryRaw<{ age: number | null }[]>`
    SELECT extract(epoch FROM (now() AT TIME ZONE 'UTC') - min(b."keysCheckedAt"))::float8 AS age
    FROM account_bindings b WHERE ${WATCHED}`;
  return Math.max(0, row?.age ?? 0);
}

const g = globalThis as unknown as { __biKeyWatchMetrics?: { lastPassChecked: client.Gauge } };

/**
 * The watch's coverage in the operator's registry (never tenants'):
 * - bi_binding_key_watch_last_pass_checked: bindings whose account this process's last pass read;
 * - bi_binding_key_watch_oldest_check_age_seconds: how long ago the watched binding checked longest
 *   ago was checked, read from the database at scrape time (the same figure on every instance).
 */
function keyWatchMetrics() {
  if (g.__biKeyWatchMetrics) return g.__biKeyWatchMetrics;
  const { registry } = metrics();
  new client.Gauge({
    name: "bi_binding_key_watch_oldest_check_age_seconds",
    help: "Seconds since the binding whose keys were checked longest ago was checked (all organizations), read from the database at scrape time",
    registers: [registry],
    async collect() {
      try {
        this.set(await oldestKeyCheckAgeSeconds(await getDb()));
      } catch {
        this.reset();
      }
    },
  });
  countedInDatabase("bi_binding_key_watch_oldest_check_age_seconds");
  g.__biKeyWatchMetrics = {
    lastPassChecked: new client.Gauge({
      name: "bi_binding_key_watch_last_pass_checked",
      help: "Bindings whose account keys the last key-watch pass of this process read",
      registers: [registry],
    }),
  };
  return g.__biKeyWatchMetrics;
}

async function markChecked(db: Db, ids: string[]) {
  if (ids.length === 0) return;
  await db.$executeRaw`
    UPDATE account_bindings SET "keysCheckedAt" = (now() AT TIME ZONE 'UTC') WHERE id = ANY(${ids}::uuid[])`;
}

/**
 * One pass of the key watch: reads the `limit` watched bindings checked longest ago (a binding starts
 * at the time it was bound), reads each one's account permissions from the chain (the simulated
 * chain in a sandbox, the node's get_account otherwise) and suspends the binding when a permission
 * its keys satisfied at binding no longer is satisfied by them (stillSatisfied). Every binding read
 * is marked checked now and goes to the back of the line, so with N watched bindings each is read
 * at least once in every ⌈N ÷ limit⌉ passes. A chain that cannot be read says nothing about the
 * keys: that binding is not marked and comes first again at the next pass.
 */
export async function watchBindingKeys(db: Db, opts: { limit?: number } = {}) {
  const limit = opts.limit ?? KEY_WATCH_BATCH;
  const bindings = (
    await db.$queryRaw<(Omit<Watched, "account"> & { accountName: string; accountDid: string })[]>`
      SELECT b.id, b."orgId", b."personId", b."signingKey", coalesce(b."signingKeys", '{}') AS "signingKeys",
             coalesce(b."signingPermissions", '{}') AS "signingPermissions", a.name AS "accountName", a.did AS "accountDid"
      FROM account_bindings b JOIN accounts a ON a.id = b."accountId"
      WHERE ${WATCHED}
      ORDER BY b."keysCheckedAt", b.id
      LIMIT ${limit}`
  ).map(({ accountName, accountDid, ...b }): Watched => ({ ...b, account: { name: accountName, did: accountDid } }));
  const chain = chainAdapter(db);
  let suspended = 0;
  let unreadable = 0;
  let checked = 0;
  let unmarked: string[] = [];
  for (const b of bindings) {
    // Each binding reads the chain afresh (its account and every delegate, each once).
    const reader = chainReader((name) => chain.getAccount(name));
    let held: boolean;
    try {
      held = await stillSatisfied(b, await reader.account(b.account.name), reader.resolve);
    } catch (err) {
      unreadable++;
      logger().warn({ job: "binding-key-watch", err: { message: (err as Error).message } }, "chain read failed");
      continue;
    }
    checked++;
    unmarked.push(b.id);
    if (!held && (await suspendForKeyChange(db, b))) suspended++;
    if (unmarked.length >= MARK_EVERY) {
      await markChecked(db, unmarked);
      unmarked = [];
    }
  }
  await markChecked(db, unmarked);
  keyWatchMetrics().lastPassChecked.set(checked);
  return { checked, suspended, unreadable };
}

/** Suspends one binding for `key_changed` and opens (or notes) the person's case, in one transaction. */
async function suspendForKeyChange(db: Db, b: Watched) {
  return db.$transaction(
    async (tx) => {
      await lockAmlSubject(tx, b.orgId, b.personId);
      const [locked] = await lockBindings(tx, b.orgId, { bindingId: b.id });
      if (!locked || !(await suspendLocked(tx, locked, "key_changed", WATCH, new Date()))) return false;
      await recordKeyChange(tx, {
        orgId: b.orgId,
        personId: b.personId,
        subjectDid: personDidOf(issuerDid(), b.personId),
        accountDid: b.account.did,
        bindingId: b.id,
        change: "suspended",
        actor: "system:chain-watch",
      });
      return true;
    },
    { timeout: 20_000, maxWait: 10_000 },
  );
}
