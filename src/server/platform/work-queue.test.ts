import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { seal } from "../crypto/secret-box";
import { type Db, getDb, Prisma } from "../db/client";
import { claimExportJob, exportQueue } from "../services/audit/exports";
import { claimMonitoringRun, monitoringQueue } from "../services/screening/monitoring-runs";
import { claimDeliveries, deliveryQueue } from "../services/webhooks/delivery";
import { claimRecoverJob, recoverQueue } from "../services/webhooks/recover-runner";
import { createTestOrg } from "../testing/harness";
import { fail, finish, type Lease, release, renew, type WorkQueue } from "./work-queue";

// One suite for the leased work queue, run against every table worked as one: each user's own
// descriptor and its own claim (the runner's exact query), the queue's renew and ends.

const LEASE_MS = 60_000;

let db: Db;
beforeAll(async () => {
  db = await getDb();
});

async function webhookOf(orgId: string): Promise<string> {
  const hook = await db.webhook.create({ data: { orgId, url: "https://receiver.example/hook", events: ["*"], secretEnc: seal("s") } });
  return hook.id;
}

type User = {
  name: string;
  queue: WorkQueue;
  /** Adds one row, due now, to the organization's queue. */
  seed(orgId: string): Promise<string>;
  /** One claim as the user's runner makes it, limited to the organization. */
  claim(orgId: string): Promise<Lease[]>;
};

const users: User[] = [
  {
    name: "compliance export jobs",
    queue: exportQueue,
    seed: async (orgId) =>
      (await db.exportJob.create({ data: { orgId, from: new Date(0), to: new Date(), requestedBy: "system:test" } })).id,
    claim: async (orgId) => [await claimExportJob(db, orgId)].filter((c) => c !== null),
  },
  {
    name: "screening monitoring runs",
    queue: monitoringQueue,
    seed: async (orgId) =>
      (await db.screeningMonitorRun.create({ data: { orgId, kind: "periodic", dedupeKey: `test:${randomUUID()}` } })).id,
    claim: async (orgId) => [await claimMonitoringRun(db, orgId)].filter((c) => c !== null),
  },
  {
    name: "webhook recover jobs",
    queue: recoverQueue,
    seed: async (orgId) =>
      (
        await db.webhookRecoverJob.create({
          data: { orgId, webhookId: await webhookOf(orgId), since: new Date(0), until: new Date(), total: 0, requestedBy: "system:test" },
        })
      ).id,
    claim: async (orgId) => [await claimRecoverJob(db, LEASE_MS, orgId)].filter((c) => c !== null),
  },
  {
    name: "webhook deliveries",
    queue: deliveryQueue,
    seed: async (orgId) =>
      (
        await db.webhookDelivery.create({
          data: { orgId, webhookId: await webhookOf(orgId), eventId: randomUUID(), event: "account.unlocked", body: "{}" },
        })
      ).id,
    claim: (orgId) => claimDeliveries(db, { limit: 1, perWebhook: 8, leaseMs: LEASE_MS, orgIds: [orgId] }),
  },
];

const name = (n: string) => Prisma.raw(`"${n}"`);

type Row = { status: string; leased: boolean; lapsed: boolean; token: string | null; claims: number | null; whole: unknown };

/** The row as the queue sees it, and the whole row to compare before and after. */
async function rowOf(q: WorkQueue, id: string): Promise<Row> {
  const [row] = await db.$queryRaw<Row[]>`
    SELECT ${name(q.status)}::text AS status,
      COALESCE(${name(q.lease)} > now() AT TIME ZONE 'UTC', false) AS leased,
      COALESCE(${name(q.lease)} < now() AT TIME ZONE 'UTC', false) AS lapsed,
      ${name(q.token)}::text AS token,
      ${q.claims ? name(q.claims) : Prisma.sql`NULL::int`} AS claims,
      to_jsonb(t) AS whole
    FROM ${name(q.table)} t WHERE id = ${id}::uuid`;
  return row!;
}

/** What a holder that stopped answering leaves behind: a lease that has run out. */
async function lapse(q: WorkQueue, id: string) {
  await db.$executeRaw`UPDATE ${name(q.table)} SET ${name(q.lease)} = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE id = ${id}::uuid`;
}

const heldState = (q: WorkQueue, waitingAs: string) => q.running ?? waitingAs;

describe.each(users)("work queue: $name", ({ queue, seed, claim }) => {
  it("hands each row to exactly one of 20 concurrent claimers", async () => {
    const { orgId } = await createTestOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await seed(orgId));
    const before = await Promise.all(ids.map((id) => rowOf(queue, id)));
    const burst = (await Promise.all(Array.from({ length: 20 }, () => claim(orgId)))).flat();
    // Claimers that found every row locked by another come back empty; the rest is claimed afterwards.
    const rest: Lease[] = [];
    for (let i = 0; i < ids.length; i++) rest.push(...(await claim(orgId)));
    const all = [...burst, ...rest];
    expect(all.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(burst.length).toBeGreaterThan(0);
    for (const [i, id] of ids.entries()) {
      const mine = all.find((c) => c.id === id)!;
      const row = await rowOf(queue, id);
      expect(row).toMatchObject({ token: mine.token, leased: true, status: heldState(queue, before[i]!.status) });
      if (queue.claims) expect(row.claims).toBe(before[i]!.claims! + 1);
    }
    expect(new Set(all.map((c) => c.token)).size).toBe(ids.length);
  });

  it("takes a row over once its holder's lease has run out, and the stale holder can neither renew nor end it", async () => {
    const { orgId } = await createTestOrg();
    const id = await seed(orgId);
    const [first] = await claim(orgId);
    expect(first?.id).toBe(id);
    expect(await claim(orgId), "nobody takes it while the lease holds").toEqual([]);

    await lapse(queue, id);
    const [second] = await claim(orgId);
    expect(second?.id).toBe(id);
    expect(second!.token).not.toBe(first!.token);
    const taken = await rowOf(queue, id);
    expect(taken).toMatchObject({ token: second!.token, leased: true });
    if (queue.claims) expect(taken.claims).toBe(2);

    expect(await renew(db, queue, first!, { leaseMs: LEASE_MS })).toBe(false);
    expect(await finish(db, queue, first!)).toBe(false);
    expect(await fail(db, queue, first!, { retryInMs: 0 })).toBe(false);
    if (queue.failed) expect(await fail(db, queue, first!)).toBe(false);
    expect(await release(db, queue, first!)).toBe(false);
    expect((await rowOf(queue, id)).whole, "the stale holder wrote nothing").toEqual(taken.whole);

    expect(await finish(db, queue, second!)).toBe(true);
    expect(await rowOf(queue, id)).toMatchObject({ status: queue.done, token: null, leased: false });
  });

  it("takes over from a holder killed inside its transaction only once that transaction has ended", async () => {
    const { orgId } = await createTestOrg();
    const id = await seed(orgId);
    const [dead] = await claim(orgId);
    await lapse(queue, id);
    const before = await rowOf(queue, id);
    // The holder renews in its transaction, then dies before committing (the server rolls a killed
    // session's transaction back). While that transaction is open, its row lock hides the row.
    let renewed!: () => void;
    const holding = new Promise<void>((r) => {
      renewed = r;
    });
    let kill!: () => void;
    const killed = new Promise<void>((r) => {
      kill = r;
    });
    const holder = db.$transaction(async (tx) => {
      expect(await renew(tx, queue, dead!, { leaseMs: LEASE_MS })).toBe(true);
      renewed();
      await killed;
      throw new Error("killed");
    });
    await holding;
    expect(await claim(orgId), "a claim skips the row its dying holder still locks").toEqual([]);
    kill();
    await expect(holder).rejects.toThrow("killed");
    expect((await rowOf(queue, id)).whole, "its renew rolled back").toEqual(before.whole);

    const [next] = await claim(orgId);
    expect(next?.id).toBe(id);
    expect(await rowOf(queue, id)).toMatchObject({ token: next!.token, leased: true });
    expect(await finish(db, queue, dead!)).toBe(false);
    expect(await finish(db, queue, next!)).toBe(true);
  });

  it("keeps a renewed row from other claimers, even after its first lease would have run out", async () => {
    const { orgId } = await createTestOrg();
    const id = await seed(orgId);
    const [holder] = await claim(orgId);
    await lapse(queue, id);
    expect(await renew(db, queue, holder!, { leaseMs: LEASE_MS })).toBe(true);
    expect(await claim(orgId)).toEqual([]);
    expect(await rowOf(queue, id)).toMatchObject({ token: holder!.token, leased: true });
    // Renewing writes what the holder asks with it, and nothing once `where` no longer holds.
    expect(await renew(db, queue, holder!, { leaseMs: LEASE_MS, where: Prisma.sql`false` })).toBe(false);
    expect(await finish(db, queue, holder!)).toBe(true);
  });

  it("finishes once: a second finish changes nothing, and a finished row is not claimed again", async () => {
    const { orgId } = await createTestOrg();
    const id = await seed(orgId);
    const [holder] = await claim(orgId);
    expect(await finish(db, queue, holder!)).toBe(true);
    const done = await rowOf(queue, id);
    expect(done).toMatchObject({ status: queue.done, token: null, leased: false, lapsed: false });
    expect(await finish(db, queue, holder!)).toBe(false);
    expect(await renew(db, queue, holder!, { leaseMs: LEASE_MS })).toBe(false);
    expect((await rowOf(queue, id)).whole).toEqual(done.whole);
    expect(await claim(orgId)).toEqual([]);
  });

  it("fails a try back to the queue for a retry, or for good", async () => {
    const { orgId } = await createTestOrg();
    const id = await seed(orgId);
    const [first] = await claim(orgId);
    expect(await fail(db, queue, first!, { retryInMs: 60_000 })).toBe(true);
    const waiting = await rowOf(queue, id);
    expect(waiting).toMatchObject({ status: queue.retry ?? queue.waiting[0], token: null, leased: false });
    if (queue.due) {
      expect(await claim(orgId), "not before its retry time").toEqual([]);
      await db.$executeRaw`UPDATE ${name(queue.table)} SET ${name(queue.due)} = now() AT TIME ZONE 'UTC' WHERE id = ${id}::uuid`;
    }
    const [second] = await claim(orgId);
    expect(second?.id).toBe(id);
    if (!queue.failed) return;
    expect(await fail(db, queue, second!)).toBe(true);
    expect(await rowOf(queue, id)).toMatchObject({ status: queue.failed, token: null, leased: false });
    expect(await claim(orgId)).toEqual([]);
  });
});
