import { env } from "@/env";
import { hmacSha256Hex } from "../../crypto/hash";
import { open } from "../../crypto/secret-box";
import { type Db, Prisma } from "../../db/client";
import { logger } from "../../log";
import { OutboundError, pinnedPost, type Resolver } from "../../net/ssrf-request";
import * as workQueue from "../../platform/work-queue";
import { ANSWER_READ_BYTES, storedAnswer } from "./attempt-answer";
import { webhookMetrics } from "./metrics";

/** Longest wait between two attempts, whatever the doubling reaches. */
export const MAX_BACKOFF_MS = 3_600_000;

/**
 * Delay before the attempt after `attempt` failed ones: base, 2×base, 4×base… capped at one
 * hour, each spread by ±10 % so that receivers coming back from an outage are not hit by every
 * retry in the same instant, while the doubling stays visible.
 */
export function backoffMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const nominal = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.min(Math.round(nominal * (0.9 + 0.2 * random())), MAX_BACKOFF_MS);
}

/**
 * Deliveries as a leased queue. A claim leaves the state as it is (pending or failed) and holds
 * the row by its lease; the attempt's outcome ends it: delivered, failed (due again after the
 * backoff) or dead. Attempts are counted when they are made, not when claimed.
 */
export const deliveryQueue: workQueue.WorkQueue = {
  table: "webhook_deliveries",
  org: "orgId",
  status: "status",
  waiting: ["pending", "failed"],
  retry: "failed",
  done: "delivered",
  failed: "dead",
  lease: "lockedUntil",
  token: "leaseToken",
  due: "nextAttemptAt",
  order: "nextAttemptAt",
};

/**
 * A claimed delivery. Its outcome is written only while its token still holds the row, so a
 * worker whose lease ran out (and was taken over) writes nothing.
 */
export type Claim = workQueue.Lease & {
  orgId: string;
  webhookId: string;
  event: string;
  body: string | null;
  attempts: number;
  url: string;
  secretEnc: string;
  /** The secret before a rotation, while its overlap lasts. */
  previousSecretEnc: string | null;
};

/** How long a claim is held: the attempt's timeout plus room for the database writes around it. */
export const leaseMs = (timeoutMs: number) => timeoutMs + Math.max(5_000, timeoutMs);

/** What a claim returns of the delivery and its webhook. */
const claimSelect = Prisma.sql`q."orgId"::text AS "orgId", q."webhookId"::text AS "webhookId", q.event, q.body, q.attempts, w.url,
  w."secretEnc", CASE WHEN w."previousSecretUntil" > (now() AT TIME ZONE 'UTC') THEN w."previousSecretEnc" END AS "previousSecretEnc"`;
const claimJoin = Prisma.sql`JOIN webhooks w ON w.id = q."webhookId"`;
const webhookActive = Prisma.sql`EXISTS (SELECT 1 FROM webhooks w WHERE w.id = q."webhookId" AND w.active)`;

/**
 * Claims up to `limit` due deliveries of active webhooks, oldest due first, at most `perWebhook`
 * of one webhook per claim and none of the webhooks in `skipWebhooks` (those this worker already
 * has enough of in flight), so one slow receiver cannot take every slot. Rows locked by another
 * claimer are skipped; a crashed worker's claim is taken over once its lease has passed.
 */
export function claimDeliveries(
  db: Db,
  opts: { limit: number; perWebhook: number; leaseMs: number; skipWebhooks?: string[]; orgIds?: string[] },
): Promise<Claim[]> {
  const skip = opts.skipWebhooks ?? [];
  return workQueue.claim<Omit<Claim, keyof workQueue.Lease>>(db, deliveryQueue, {
    limit: opts.limit,
    leaseMs: opts.leaseMs,
    orgIds: opts.orgIds ?? null,
    perKey: { column: "webhookId", max: opts.perWebhook },
    where: Prisma.sql`${webhookActive} AND NOT (q."webhookId" = ANY(${skip}::uuid[]))`,
    select: claimSelect,
    join: claimJoin,
  });
}

/**
 * Puts one failed or dead delivery back to `pending` (attempts 0) and claims it in the same
 * statement, so the caller sends it now and no worker can take it meanwhile. Null when it is no
 * longer failed or dead, is held by a worker, or its webhook is not active.
 */
export async function claimForResend(db: Db, id: string, leaseMsValue: number): Promise<Claim | null> {
  const [claim] = await workQueue.claim<Omit<Claim, keyof workQueue.Lease>>(db, deliveryQueue, {
    limit: 1,
    leaseMs: leaseMsValue,
    from: ["failed", "dead"],
    anyTime: true,
    where: Prisma.sql`q.id = ${id}::uuid AND q.body IS NOT NULL AND ${webhookActive}`,
    set: Prisma.sql`status = 'pending', attempts = 0, "nextAttemptAt" = now() AT TIME ZONE 'UTC', "updatedAt" = now() AT TIME ZONE 'UTC'`,
    select: claimSelect,
    join: claimJoin,
  });
  return claim ?? null;
}

/** `answer`: what is stored of the receiver's answer (attempt-answer.ts); null when nothing may be. */
type Outcome = { ok: boolean; status: number | null; error: string | null; latencyMs: number; answer: string | null };

/**
 * The headers of one attempt: a fresh timestamp and the signature over `${timestamp}.${body}`, by
 * each secret given (the current one first; during a rotation's overlap also the previous one),
 * space-separated in X-BI-Signature as the Standard Webhooks convention lists several.
 */
export function signedHeaders(
  c: Pick<Claim, "id" | "event">,
  body: string,
  secrets: string | string[],
  nowMs = Date.now(),
): Record<string, string> {
  const timestamp = String(nowMs);
  return {
    "content-type": "application/json",
    "user-agent": "BindIdentity-Webhooks/1",
    "x-bi-event": c.event,
    "x-bi-timestamp": timestamp,
    "x-bi-signature": (Array.isArray(secrets) ? secrets : [secrets]).map((s) => hmacSha256Hex(s, `${timestamp}.${body}`)).join(" "),
    "x-bi-delivery-id": c.id,
  };
}

/**
 * The bytes an attempt sends for a stored body. Bodies stored before the envelope carried the
 * delivery id get it put in front, by splicing rather than re-serialising so the stored bytes are
 * kept as they are: the result is the same on every attempt and replay, and a receiver that
 * checks the signed id against X-BI-Delivery-Id accepts these deliveries like any other.
 */
export function wireBody(body: string, deliveryId: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || "id" in parsed || !body.startsWith("{")) return body;
  const id = `"id":${JSON.stringify(deliveryId)}`;
  return Object.keys(parsed).length ? `{${id},${body.slice(1)}` : `{${id}}`;
}

async function send(
  c: Claim & { body: string },
  opts: { timeoutMs: number; allowPrivate: boolean; resolver?: Resolver; ca?: string },
): Promise<Outcome> {
  const body = wireBody(c.body, c.id);
  const secrets = c.previousSecretEnc ? [open(c.secretEnc), open(c.previousSecretEnc)] : [open(c.secretEnc)];
  const headers = signedHeaders(c, body, secrets);
  const started = performance.now();
  const failed = (error: string) => ({ ok: false, status: null, error, latencyMs: Math.round(performance.now() - started), answer: null });
  try {
    const res = await pinnedPost(new URL(c.url), {
      headers,
      body,
      timeoutMs: opts.timeoutMs,
      allowPrivate: opts.allowPrivate,
      resolver: opts.resolver,
      ca: opts.ca,
      keepAnswerBytes: ANSWER_READ_BYTES,
    });
    const answer = storedAnswer(res.status, res.head, [...secrets, ...headers["x-bi-signature"]!.split(" ")]);
    const ok = res.status >= 200 && res.status < 300;
    const note = res.status >= 300 && res.status < 400 ? " (redirects are not followed)" : "";
    const error = ok ? null : `The receiver answered HTTP ${res.status}${note}.`;
    return { ok, status: res.status, error, latencyMs: Math.round(res.latencyMs), answer };
  } catch (err) {
    if (err instanceof OutboundError) return failed(err.message);
    logger().error({ deliveryId: c.id, err: { message: (err as Error)?.message } }, "webhook attempt failed unexpectedly");
    return failed("The attempt failed on our side.");
  }
}

/**
 * Writes the outcome of one attempt, its row in the attempt log and the webhook's health (last
 * success, failing since) in one statement, fenced by the claim's token; returns the new status,
 * or null when fenced out (then nothing is written).
 */
async function finish(db: Db, c: Claim, outcome: Outcome, cfg: { baseMs: number; maxAttempts: number }): Promise<string | null> {
  const attempts = c.attempts + 1;
  const status = outcome.ok ? "delivered" : attempts >= cfg.maxAttempts ? "dead" : "failed";
  const delay = outcome.ok ? 0 : backoffMs(attempts, cfg.baseMs);
  const end = workQueue.settleSql(deliveryQueue, c, {
    status,
    dueInMs: delay,
    set: Prisma.sql`attempts = ${attempts}, "lastError" = ${outcome.error}, "lastStatusCode" = ${outcome.status},
      "deliveredAt" = CASE WHEN ${outcome.ok} THEN now() AT TIME ZONE 'UTC' ELSE NULL END, "updatedAt" = now() AT TIME ZONE 'UTC'`,
  });
  const n = await db.$executeRaw`
    WITH d AS (
      ${end}
      RETURNING q.id, q."orgId", q."webhookId"
    ), health AS (
      UPDATE webhooks SET
        "lastSuccessAt" = CASE WHEN ${outcome.ok} THEN now() AT TIME ZONE 'UTC' ELSE "lastSuccessAt" END,
        "failingSince" = CASE WHEN ${outcome.ok} THEN NULL ELSE COALESCE("failingSince", now() AT TIME ZONE 'UTC') END,
        "failingNoticeAt" = CASE WHEN ${outcome.ok} THEN NULL ELSE "failingNoticeAt" END
      WHERE id = (SELECT "webhookId" FROM d)
        -- Only when something changes (last success kept to the minute), so a busy endpoint's row is not written per attempt.
        AND CASE WHEN ${outcome.ok}
          THEN "failingSince" IS NOT NULL OR "lastSuccessAt" IS NULL OR "lastSuccessAt" < (now() AT TIME ZONE 'UTC') - interval '1 minute'
          ELSE "failingSince" IS NULL END
    )
    INSERT INTO webhook_attempts (id, "orgId", "deliveryId", attempt, outcome, "statusCode", "latencyMs", error, answer, at)
    SELECT gen_random_uuid(), d."orgId", d.id, ${attempts}, ${status}::"DeliveryStatus", ${outcome.status}, ${outcome.latencyMs},
      ${outcome.error}, ${outcome.answer}, now() AT TIME ZONE 'UTC'
    FROM d`;
  return n ? status : null;
}

export type AttemptOptions = {
  resolver?: Resolver;
  /** CA certificates (PEM) trusted instead of the system roots: tests, and receivers behind a private CA. */
  ca?: string;
};

/** Makes one attempt of a claimed delivery and records it. */
export async function attemptDelivery(db: Db, c: Claim, opts: AttemptOptions = {}): Promise<string | null> {
  const e = env();
  const cfg = { baseMs: e.WEBHOOK_BACKOFF_BASE_MS, maxAttempts: e.WEBHOOK_MAX_ATTEMPTS };
  const started = performance.now();
  const outcome: Outcome =
    c.body === null
      ? { ok: false, status: null, error: "The payload of this delivery is no longer kept.", latencyMs: 0, answer: null }
      : await send(
          { ...c, body: c.body },
          { timeoutMs: e.WEBHOOK_TIMEOUT_MS, allowPrivate: e.WEBHOOK_ALLOW_PRIVATE_URLS, resolver: opts.resolver, ca: opts.ca },
        );
  const status = await finish(db, c, outcome, c.body === null ? { ...cfg, maxAttempts: 0 } : cfg);
  const seconds = (performance.now() - started) / 1000;
  if (status) {
    const m = webhookMetrics();
    m.attempts.inc({ outcome: status });
    m.latency.observe({ outcome: status }, seconds);
  }
  logger().debug(
    { deliveryId: c.id, webhookId: c.webhookId, outcome: status ?? "lease_lost", ms: Math.round(seconds * 1000) },
    "webhook attempt",
  );
  return status;
}
