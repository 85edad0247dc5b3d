import { randomUUID } from "node:crypto";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { consoleProcedure, createCallerFactory, router } from "../api/trpc";
import type { ServiceContext } from "../context";
import { seal } from "../crypto/secret-box";
import { type Db, getDb } from "../db/client";
import { AppError, isAppError } from "../errors";
import { route } from "../http/route";
import { routes } from "../http/routes";
import { appendAudit } from "../services/audit";
import { serviceCtx } from "../testing/aml";
import type { FakeServer } from "../testing/fake-http";
import { call, createTestOrg, servePipeline } from "../testing/harness";
import { completeIdempotent, releaseIdempotencyKey } from "./idempotency";

// The Idempotency-Key protocol is one runner; both doors call it. The same cases run through the
// real /v1 pipeline over HTTP and through the console's real tRPC procedure chain, on one
// operation that either door may call.

type Behaviour = "refuse" | "crash" | "pending" | "hold";
/** How the next run for a note behaves (once). */
const behaviour = new Map<string, Behaviour>();
/** Runs held until the test lets them go. */
const held = new Map<string, () => void>();
/** What a run whose outcome is pending would have returned, and its key's claim, for the test's "recovery". */
const pending = new Map<string, { claimId: string; value: Answer }>();

type Answer = { entryId: string; note: string; at: Date };

/** Writes an audit entry (so runs can be counted) and answers with it; a date shows each door's rendering. */
async function operation(ctx: ServiceContext, input: { note: string }): Promise<Answer> {
  const how = behaviour.get(input.note);
  behaviour.delete(input.note);
  const entry = await ctx.db.$transaction(async (tx) => {
    const e = await appendAudit(tx, { orgId: ctx.org.id, actor: ctx.actor }, { action: "test.idempotent", subject: input.note });
    if (how === "refuse") throw new AppError("CONFLICT", "Refused by the service.", { reason: "test_refusal" });
    if (how === "crash") throw new Error("the operation crashed");
    return e;
  });
  const value = { entryId: entry.id, note: input.note, at: entry.createdAt };
  if (how === "hold") await new Promise<void>((r) => held.set(input.note, r));
  if (how === "pending") {
    // Done, but the answer is unknown to this request (as a chain call that timed out): recovery settles it.
    pending.set(input.note, { claimId: ctx.idempotencyClaimId!, value });
    const err = new AppError("PROVIDER_UNAVAILABLE", "The outcome is not known yet; retry with the same key.", { reason: "test_pending" });
    err.outcomePending = true;
    throw err;
  }
  return value;
}

const Input = z.object({ note: z.string() });

const v1Route = route({
  method: "POST",
  path: "/v1/test/idempotent-operation",
  auth: { scope: "accounts_write" },
  tag: "Test",
  summary: "The test operation.",
  body: Input,
  response: z.object({ entryId: z.uuid(), note: z.string(), at: z.string() }),
  successStatus: 201,
  idempotent: true,
  handler: ({ ctx, body }) => operation(ctx, body),
});

const consoleRouter = router({
  operation: consoleProcedure("admin")
    .input(Input)
    .mutation(({ ctx, input }) => operation(ctx.svc, input)),
});
const consoleCaller = createCallerFactory(consoleRouter);

let db: Db;
let server: FakeServer;
beforeAll(async () => {
  db = await getDb();
  server = await servePipeline(db, [...routes, v1Route]);
});
afterAll(async () => {
  await server.close();
});

/** What a door answered, in terms both doors share. */
type Result =
  | { ok: true; value: unknown; replayed?: boolean }
  | { ok: false; code: string; reason?: unknown; status?: number; trpcCode?: string };

type Org = { orgId: string; apiKey: string };

type Door = {
  name: string;
  call(org: Org, note: string, key: string): Promise<Result>;
  /** The answer a door gives for a run's value, as that door renders it. */
  rendered(value: Answer): unknown;
  /** A completed key as this door stored it before values were stored (to check such rows still replay). */
  legacy(value: Answer): { status: number; body: string };
};

const doors: Door[] = [
  {
    name: "/v1",
    async call(org, note, key) {
      const res = await call(server.url, "POST", v1Route.path, { key: org.apiKey, body: { note }, headers: { "idempotency-key": key } });
      if (res.status === 201) return { ok: true, value: res.body, replayed: res.headers.get("idempotent-replayed") === "true" };
      return { ok: false, code: res.body.error.code, reason: res.body.error.details?.reason, status: res.status };
    },
    rendered: (value) => ({ ...value, at: value.at.toISOString() }),
    legacy: (value) => ({ status: 201, body: JSON.stringify(value) }),
  },
  {
    name: "console",
    async call(org, note, key) {
      const svc = await serviceCtx(db, org.orgId, { type: "member", email: "owner@door.test", role: "owner" });
      try {
        return { ok: true, value: await consoleCaller({ svc, idempotencyKey: key }).operation({ note }) };
      } catch (err) {
        const cause = (err as Error).cause;
        const trpcCode = (err as { code?: string }).code;
        if (isAppError(cause)) return { ok: false, code: cause.code, reason: cause.details?.reason, trpcCode };
        return { ok: false, code: "INTERNAL", trpcCode };
      }
    },
    rendered: (value) => value,
    legacy: (value) => ({ status: 200, body: superjson.stringify(value) }),
  },
];

const runs = (org: Org, note: string) => db.auditEntry.count({ where: { orgId: org.orgId, action: "test.idempotent", subject: note } });
const records = (org: Org, key: string) => db.idempotencyRecord.findMany({ where: { orgId: org.orgId, key } });

async function setup() {
  const org = await createTestOrg({ plan: "institutional" });
  const note = randomUUID();
  return { org, note, key: `key-${note}` };
}

describe.each(doors)("Idempotency-Key through the $name door", (door) => {
  it("runs the first request and replays its answer to a repeat, running once", async () => {
    const { org, note, key } = await setup();
    const first = await door.call(org, note, key);
    expect(first).toMatchObject({ ok: true });
    if (!first.ok) return;
    expect(first.replayed).not.toBe(true);
    const again = await door.call(org, note, key);
    expect(again).toEqual({ ...first, ...(first.replayed === undefined ? {} : { replayed: true }) });
    expect(await runs(org, note)).toBe(1);
    const [record] = await records(org, key);
    expect(record).toMatchObject({ state: "completed" });
    // The answer is sealed at rest.
    expect(record!.responseBody).not.toContain(note);
  });

  it("refuses the key with another request and runs nothing for it", async () => {
    const { org, note, key } = await setup();
    expect(await door.call(org, note, key)).toMatchObject({ ok: true });
    const other = await door.call(org, `${note}-changed`, key);
    expect(other).toMatchObject({ ok: false, code: "IDEMPOTENCY_KEY_REUSED" });
    if ("status" in other && other.status !== undefined) expect(other.status).toBe(422);
    expect(await runs(org, `${note}-changed`)).toBe(0);
  });

  it("answers 409 idempotency_in_progress to a repeat while the first still runs", async () => {
    const { org, note, key } = await setup();
    behaviour.set(note, "hold");
    const first = door.call(org, note, key);
    while (!held.has(note)) await new Promise((r) => setTimeout(r, 5));
    const repeat = await door.call(org, note, key);
    expect(repeat).toMatchObject({ ok: false, code: "CONFLICT", reason: "idempotency_in_progress" });
    if (!repeat.ok && repeat.status !== undefined) expect(repeat.status).toBe(409);
    if (!repeat.ok && repeat.trpcCode !== undefined) expect(repeat.trpcCode).toBe("CONFLICT");
    held.get(note)!();
    expect(await first).toMatchObject({ ok: true });
    expect(await runs(org, note)).toBe(1);
  });

  for (const failure of ["refuse", "crash"] as const) {
    it(`frees the key when the operation fails (${failure}), so a retry runs`, async () => {
      const { org, note, key } = await setup();
      behaviour.set(note, failure);
      const failed = await door.call(org, note, key);
      expect(failed).toMatchObject({ ok: false, code: failure === "refuse" ? "CONFLICT" : "INTERNAL" });
      expect(await records(org, key)).toEqual([]);
      expect(await runs(org, note), "the failed run rolled back").toBe(0);
      const retry = await door.call(org, note, key);
      expect(retry).toMatchObject({ ok: true });
      if (retry.ok) expect(retry.replayed).not.toBe(true);
      expect(await runs(org, note)).toBe(1);
    });
  }

  it("keeps the key of a pending outcome claimed, and answers it once recovery has completed it", async () => {
    const { org, note, key } = await setup();
    behaviour.set(note, "pending");
    const first = await door.call(org, note, key);
    expect(first).toMatchObject({ ok: false, code: "PROVIDER_UNAVAILABLE", reason: "test_pending" });
    expect(await records(org, key)).toEqual([expect.objectContaining({ state: "in_progress" })]);
    // A retry meanwhile waits for the outcome instead of running the operation a second time.
    expect(await door.call(org, note, key)).toMatchObject({ ok: false, code: "CONFLICT", reason: "idempotency_in_progress" });
    expect(await runs(org, note)).toBe(1);

    // Recovery settles the operation and completes the key with the result, knowing no door.
    const { claimId, value } = pending.get(note)!;
    await completeIdempotent(db, claimId, value);
    const answered = await door.call(org, note, key);
    expect(answered).toMatchObject({ ok: true, value: door.rendered(value) });
    if (answered.ok && answered.replayed !== undefined) expect(answered.replayed).toBe(true);
    expect(await runs(org, note)).toBe(1);
  });

  it("frees the key of a pending outcome that recovery undid, so the retry runs anew", async () => {
    const { org, note, key } = await setup();
    behaviour.set(note, "pending");
    expect(await door.call(org, note, key)).toMatchObject({ ok: false, code: "PROVIDER_UNAVAILABLE" });
    await releaseIdempotencyKey(db, pending.get(note)!.claimId);
    const retry = await door.call(org, note, key);
    expect(retry).toMatchObject({ ok: true });
    if (retry.ok) expect(retry.replayed).not.toBe(true);
    expect(await runs(org, note)).toBe(2);
  });

  it("replays keys stored before the runner kept values, as they were answered then", async () => {
    const { org, note, key } = await setup();
    const first = await door.call(org, note, key);
    expect(first).toMatchObject({ ok: true });
    if (!first.ok) return;
    const entry = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, subject: note } });
    const legacy = door.legacy({ entryId: entry.id, note, at: entry.createdAt });
    // Sealed rows, and the older rows that held the answer as it was.
    for (const body of [seal(legacy.body), legacy.body]) {
      await db.idempotencyRecord.updateMany({
        where: { orgId: org.orgId, key },
        data: { responseStatus: legacy.status, responseBody: body },
      });
      expect(await door.call(org, note, key)).toEqual({ ...first, ...(first.replayed === undefined ? {} : { replayed: true }) });
    }
    expect(await runs(org, note)).toBe(1);
  });
});
