import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Db, getDb } from "../../db/client";
import { AppError } from "../../errors";
import { appendAudit } from "../../services/audit";
import { call, createTestOrg, type TestOrg } from "../../testing/harness";
import { nodeHandler } from "../node-adapter";
import { createPipeline } from "../pipeline";
import { route } from "../route";
import { routes } from "../routes";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Notes whose next run fails, and how: a crash (500) or a refusal the service raises (409). */
const failNext = new Map<string, "crash" | "refuse">();

// No route of the table is idempotent yet, so the tests add one that writes, then takes a while.
const testRoute = route({
  method: "POST",
  path: "/v1/test/idempotent",
  auth: { scope: "accounts_write" },
  tag: "Test",
  summary: "Appends an audit entry, then takes 200 ms.",
  body: z.object({ note: z.string() }),
  response: z.object({ entryId: z.uuid(), note: z.string() }),
  successStatus: 201,
  idempotent: true,
  handler: async ({ ctx, body }) => {
    const entry = await ctx.db.$transaction(async (tx) => {
      const e = await appendAudit(tx, { orgId: ctx.org.id, actor: ctx.actor }, { action: "test.idempotent", subject: body.note });
      const failure = failNext.get(body.note);
      failNext.delete(body.note);
      if (failure === "crash") throw new Error("handler crashed");
      if (failure === "refuse") throw new AppError("CONFLICT", "Refused by the service.", { reason: "test_refusal" });
      return e;
    });
    await sleep(200);
    return { entryId: entry.id, note: body.note };
  },
});

let server: http.Server;
let url: string;
let db: Db;
let orgA: TestOrg;
let orgB: TestOrg;

beforeAll(async () => {
  db = await getDb();
  server = http.createServer(nodeHandler(createPipeline([...routes, testRoute], db)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  orgA = await createTestOrg({ plan: "institutional" });
  orgB = await createTestOrg({ plan: "institutional" });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const post = (org: TestOrg, note: string, key?: string) =>
  call(url, "POST", "/v1/test/idempotent", {
    key: org.apiKey,
    body: { note },
    headers: key === undefined ? {} : { "idempotency-key": key },
  });

const entries = (org: TestOrg, note: string) =>
  db.auditEntry.count({ where: { orgId: org.orgId, action: "test.idempotent", subject: note } });
const records = (org: TestOrg, key: string) => db.idempotencyRecord.findMany({ where: { orgId: org.orgId, key } });

describe("Idempotency-Key", () => {
  it("replays the first answer for a retry with the same body, and runs once", async () => {
    const note = randomUUID();
    const key = `replay-${note}`;
    const first = await post(orgA, note, key);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post(orgA, note, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await entries(orgA, note)).toBe(1);
    const [rec] = await records(orgA, key);
    expect(rec).toMatchObject({ state: "completed", responseStatus: 201 });
    // Replayable answers may carry secrets shown once (a checkout's API key): never stored readable.
    expect(rec!.responseBody).not.toContain(first.body.entryId);
  });

  it("runs every time without a key", async () => {
    const note = randomUUID();
    expect((await post(orgA, note)).status).toBe(201);
    expect((await post(orgA, note)).status).toBe(201);
    expect(await entries(orgA, note)).toBe(2);
  });

  it("refuses the same key with another body: 422 IDEMPOTENCY_KEY_REUSED, nothing run", async () => {
    const note = randomUUID();
    const key = `reuse-${note}`;
    expect((await post(orgA, note, key)).status).toBe(201);
    const other = await post(orgA, `${note}-changed`, key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await entries(orgA, `${note}-changed`)).toBe(0);
  });

  it("answers 409 idempotency_in_progress to a duplicate while the first is still running", async () => {
    const note = randomUUID();
    const key = `inflight-${note}`;
    const first = post(orgA, note, key);
    while ((await records(orgA, key)).length === 0) await sleep(5);
    const dup = await post(orgA, note, key);
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: "CONFLICT", details: { reason: "idempotency_in_progress" } });
    expect((await first).status).toBe(201);
    expect(await entries(orgA, note)).toBe(1);
  });

  it("runs 20 concurrent duplicates exactly once", async () => {
    const note = randomUUID();
    const key = `burst-${note}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(orgA, note, key)));
    const created = answers.filter((a) => a.status === 201);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.details.reason).toBe("idempotency_in_progress");
    expect(await entries(orgA, note)).toBe(1);
    expect(await records(orgA, key)).toHaveLength(1);
  });

  it("refuses a key longer than 255 characters with 400, and accepts 255", async () => {
    const note = randomUUID();
    const long = await post(orgA, note, "k".repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe("VALIDATION_ERROR");
    expect(long.body.error.details.issues[0].path).toBe("header.Idempotency-Key");
    expect(await entries(orgA, note)).toBe(0);
    const max = `${note}-`.padEnd(255, "k");
    expect((await post(orgA, note, max)).status).toBe(201);
    expect(await records(orgA, max)).toHaveLength(1);
  });

  it("scopes keys to the organization: the same key in two organizations is two operations", async () => {
    const note = randomUUID();
    const key = `shared-${note}`;
    const a = await post(orgA, note, key);
    const b = await post(orgB, note, key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.entryId).not.toBe(a.body.entryId);
    expect([await entries(orgA, note), await entries(orgB, note)]).toEqual([1, 1]);
    expect((await records(orgA, key)).length + (await records(orgB, key)).length).toBe(2);
  });

  it("starts a new operation once the 24-hour window has passed", async () => {
    const note = randomUUID();
    const key = `expired-${note}`;
    const first = await post(orgA, note, key);
    await db.$executeRaw`UPDATE idempotency_records SET "expiresAt" = now() - interval '1 second' WHERE "orgId" = ${orgA.orgId}::uuid AND key = ${key}`;
    const later = await post(orgA, note, key);
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.body.entryId).not.toBe(first.body.entryId);
    expect(await entries(orgA, note)).toBe(2);
    const [rec] = await records(orgA, key);
    expect(rec!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  for (const failure of ["crash", "refuse"] as const) {
    it(`releases the key when the handler throws (${failure}), so a retry runs`, async () => {
      const note = randomUUID();
      const key = `${failure}-${note}`;
      failNext.set(note, failure);
      const failed = await post(orgA, note, key);
      expect(failed.status).toBe(failure === "crash" ? 500 : 409);
      expect(await records(orgA, key)).toHaveLength(0);
      expect(await entries(orgA, note)).toBe(0);
      const retry = await post(orgA, note, key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
      expect(await entries(orgA, note)).toBe(1);
    });
  }
});
