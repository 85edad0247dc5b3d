import { rateLimited } from "../../errors";
import { planLimitPerMinute } from "../../platform/plans";
import { type BatchedWindows, batchedWindows } from "../../platform/rate-limit-batch";
import type { Middleware } from "../types";

/**
 * Both hot limits are counted in process and reconciled with the shared windows in batches
 * (services/rate-limit-batch.ts: the bound on overshoot across instances is documented there);
 * the headers and the 429 answers are the same as with a write per request.
 */

/** Per-client-IP backstop above every plan, for authenticated routes (x-ratelimit-*). */
export function ipBackstop(limitPerMinute: number, windows: BatchedWindows = batchedWindows()): Middleware {
  return async (state, next) => {
    if (state.route?.auth === "public") return next();
    const hit = await windows.hit(state.db, `ip:${state.clientIp}`, limitPerMinute, 60);
    state.headers["x-ratelimit-limit"] = String(limitPerMinute);
    state.headers["x-ratelimit-remaining"] = String(hit.remaining);
    state.headers["x-ratelimit-reset"] = String(hit.resetSec);
    if (hit.exceeded) throw rateLimited(hit.resetSec, "Too many requests from this address; retry later.");
    return next();
  };
}

type LimitFor = (plan: Parameters<typeof planLimitPerMinute>[0]) => number;

/** Runs `fn` with the caller's plan limit per minute; requests without an organization pass by. */
const withPlan =
  (limitFor: LimitFor, fn: (state: Parameters<Middleware>[0], orgId: string, limit: number) => Promise<void>): Middleware =>
  async (state, next) => {
    if (state.org) {
      const limit = limitFor(state.org.plan);
      state.headers["x-ratelimit-plan-limit"] = String(limit);
      await fn(state, state.org.id, limit);
    }
    return next();
  };

/**
 * The plan quota headers as they stand, without counting: every authenticated answer carries
 * them, including a scope refusal, which must not spend quota (planLimit counts after the scope check).
 */
export const planQuotaHeaders = (windows: BatchedWindows = batchedWindows(), limitFor: LimitFor = planLimitPerMinute): Middleware =>
  withPlan(limitFor, async (state, orgId, limit) => {
    state.headers["x-ratelimit-plan-remaining"] = String(windows.peek(`plan:${orgId}`, limit, 60).remaining);
  });

/** The organization's plan quota per minute, counted across instances. */
export const planLimit = (windows: BatchedWindows = batchedWindows(), limitFor: LimitFor = planLimitPerMinute): Middleware =>
  withPlan(limitFor, async (state, orgId, limit) => {
    const hit = await windows.hit(state.db, `plan:${orgId}`, limit, 60);
    state.headers["x-ratelimit-plan-remaining"] = String(hit.remaining);
    if (hit.exceeded) {
      throw rateLimited(hit.resetSec, `The ${state.org!.plan} plan allows ${limit} requests per minute; retry after the window resets.`, {
        "x-ratelimit-plan-reset": String(hit.resetSec),
      });
    }
  });

/**
 * BI_RATE_LIMIT_FACTOR multiplies the plan and per-IP limits: for load tests (`npm run bench`
 * lifts them so every answer is a 200), refused when BI_ENV=production. Read here rather than in
 * src/env.ts only because that shared file was being edited by others when this was written.
 */
export function rateLimitFactor(source: Record<string, string | undefined> = process.env): number {
  const raw = source.BI_RATE_LIMIT_FACTOR;
  if (raw === undefined || raw === "" || raw === "1") return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error("Invalid environment:\n  BI_RATE_LIMIT_FACTOR: must be a positive integer");
  if ((source.BI_ENV ?? "sandbox") === "production")
    throw new Error("Invalid environment:\n  BI_RATE_LIMIT_FACTOR: is refused when BI_ENV=production");
  return n;
}
