import { env } from "@/env";
import type { Webhook, WebhookDelivery } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { randomToken } from "../../crypto/hash";
import { seal } from "../../crypto/secret-box";
import { AppError, conflict, notFound } from "../../errors";
import { checkWebhookUrl } from "../../net/ssrf";
import { OutboundError, resolveChecked } from "../../net/ssrf-request";
import { appendAudit } from "../audit";
import type { DeliveryListQuery, RegisterWebhookInput, RotateSecretInput } from "./webhooks.schema";

/** Active webhooks per organization: every event fans out to each, so the count bounds the work. */
export const MAX_ACTIVE_WEBHOOKS = 20;
/** How long registration waits for DNS before refusing the URL. */
const REGISTRATION_DNS_TIMEOUT_MS = 5_000;
export const SECRET_WARNING = "Store this signing secret now: it is shown once. Verify every delivery with it (see docs/webhooks.md).";

const urlRefused = (reason: string) =>
  new AppError("VALIDATION_ERROR", `The webhook URL ${reason}.`, {
    reason: "url_not_allowed",
    issues: [{ path: "body.url", message: reason }],
  });

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** deactivated (deleted by its owner, for good) › disabled (off, can be enabled) › failing › active. */
const webhookState = (w: Webhook): "active" | "failing" | "disabled" | "deactivated" =>
  w.deactivatedAt ? "deactivated" : w.disabledAt ? "disabled" : w.failingSince ? "failing" : "active";

export const webhookView = (w: Webhook) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  active: w.active,
  state: webhookState(w),
  createdAt: w.createdAt.toISOString(),
  deactivatedAt: iso(w.deactivatedAt),
  disabledAt: iso(w.disabledAt),
  disabledReason: (w.disabledReason as "failing" | "manual" | null) ?? null,
  lastSuccessAt: iso(w.lastSuccessAt),
  failingSince: iso(w.failingSince),
  previousSecretValidUntil:
    w.previousSecretUntil && w.previousSecretUntil.getTime() > Date.now() ? w.previousSecretUntil.toISOString() : null,
});

export const deliveryView = (d: WebhookDelivery) => ({
  id: d.id,
  webhookId: d.webhookId,
  eventId: d.eventId,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  lastError: d.lastError,
  lastStatusCode: d.lastStatusCode,
  nextAttemptAt: d.status === "pending" || d.status === "failed" ? d.nextAttemptAt.toISOString() : null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

/**
 * Checks a receiver URL as delivery will: scheme and literal addresses first, then every address
 * the host resolves to. Delivery checks again at every attempt, so this is a first line only.
 */
async function assertReceiverUrl(raw: string): Promise<string> {
  const allowPrivate = env().WEBHOOK_ALLOW_PRIVATE_URLS;
  // Outside production, a refusal that the sandbox switch would lift says so (README, WEBHOOK_ALLOW_PRIVATE_URLS).
  const refused = (reason: string) =>
    urlRefused(
      !allowPrivate && env().BI_ENV !== "production" && /must use https|\((loopback|private|uniqueLocal)\)/.test(reason)
        ? `${reason} (for a receiver on your own machine or network, run a sandbox service with WEBHOOK_ALLOW_PRIVATE_URLS=true)`
        : reason,
    );
  const verdict = checkWebhookUrl(raw, { allowPrivate });
  if (!verdict.ok) throw refused(verdict.reason);
  if (!verdict.literal) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        resolveChecked(verdict.url, { allowPrivate }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new OutboundError("dns", "The host name could not be resolved in time.")),
            REGISTRATION_DNS_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (err) {
      if (err instanceof OutboundError)
        throw urlRefused(err.kind === "refused_address" ? "resolves to a refused address range" : "host name could not be resolved");
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
  return verdict.url.toString();
}

/** Registers a receiver; the signing secret is returned in this answer only and stored sealed. */
export async function registerWebhook(ctx: ServiceContext, input: RegisterWebhookInput) {
  const url = await assertReceiverUrl(input.url);
  // "*" subsumes every name; duplicates would only make the stored list noisier.
  const events = input.events.includes("*") ? ["*"] : [...new Set(input.events)];
  const secret = `whsec_${randomToken(32)}`;
  return ctx.db.$transaction(async (tx) => {
    const active = await tx.webhook.count({ where: { orgId: ctx.org.id, active: true } });
    if (active >= MAX_ACTIVE_WEBHOOKS) {
      throw conflict("webhook_limit", `An organization may have at most ${MAX_ACTIVE_WEBHOOKS} active webhooks; deactivate one first.`);
    }
    const hook = await tx.webhook.create({ data: { orgId: ctx.org.id, url, events, secretEnc: seal(secret) } });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "webhook.created",
        subjectType: "webhook",
        subject: hook.id,
        // The host only: a receiver URL's path or query may itself carry a token.
        data: { host: new URL(url).host, events },
      },
    );
    return { ...webhookView(hook), secret, warning: SECRET_WARNING };
  });
}

/**
 * Issues a new signing secret. The old one keeps signing beside it for `overlapHours`: each
 * delivery then carries both signatures in X-BI-Signature, so a receiver holding either secret
 * verifies it while its owner rolls the new one out. Rotating again during an overlap ends the
 * older overlap at once (only the two newest secrets ever sign). The new secret is shown once.
 */
export async function rotateWebhookSecret(ctx: ServiceContext, id: string, input: RotateSecretInput) {
  const secret = `whsec_${randomToken(32)}`;
  return ctx.db.$transaction(async (tx) => {
    const [hook] = await tx.$queryRaw<Webhook[]>`
      SELECT * FROM webhooks WHERE id = ${id}::uuid AND "orgId" = ${ctx.org.id}::uuid FOR UPDATE`;
    if (!hook) throw notFound("The webhook");
    if (hook.deactivatedAt) throw conflict("webhook_inactive", "The webhook is deactivated; register a new one instead.");
    const until = input.overlapHours > 0 ? new Date(ctx.now().getTime() + input.overlapHours * 3_600_000) : null;
    await tx.webhook.update({
      where: { id },
      data: { secretEnc: seal(secret), previousSecretEnc: until ? hook.secretEnc : null, previousSecretUntil: until },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "webhook.secret_rotated",
        subjectType: "webhook",
        subject: id,
        data: { overlapHours: input.overlapHours, previousSecretValidUntil: until?.toISOString() ?? null },
      },
    );
    return { id, secret, previousSecretValidUntil: until?.toISOString() ?? null, warning: SECRET_WARNING };
  });
}

/** The window of the health figures in the list. */
const RECENT_DAYS = 7;

/** Each webhook with its deliveries of the last 7 days by status and the share of the finished ones delivered. */
export async function listWebhooks(ctx: ServiceContext) {
  const hooks = await ctx.db.webhook.findMany({ where: { orgId: ctx.org.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  const counts = await ctx.db.webhookDelivery.groupBy({
    by: ["webhookId", "status"],
    where: { orgId: ctx.org.id, createdAt: { gte: new Date(ctx.now().getTime() - RECENT_DAYS * 86_400_000) } },
    _count: { _all: true },
  });
  const recentOf = (id: string) => {
    const n = (status: string) => counts.find((c) => c.webhookId === id && c.status === status)?._count._all ?? 0;
    const recent = { delivered: n("delivered"), failed: n("failed"), dead: n("dead"), pending: n("pending") };
    const finished = recent.delivered + recent.failed + recent.dead;
    return { ...recent, successRate: finished ? recent.delivered / finished : null };
  };
  return { webhooks: hooks.map((h) => ({ ...webhookView(h), recent: recentOf(h.id) })) };
}

/**
 * Deactivates a webhook, keeping it and its delivery history. Deliveries still waiting are ended
 * as `dead` in the same transaction, so nothing is sent to a receiver its owner switched off.
 * Deactivating again answers the first deactivation.
 */
export async function deactivateWebhook(ctx: ServiceContext, id: string) {
  return ctx.db.$transaction(async (tx) => {
    const hook = await tx.webhook.findFirst({ where: { id, orgId: ctx.org.id } });
    if (!hook) throw notFound("The webhook");
    if (hook.deactivatedAt) return webhookView(hook);
    const r = await tx.webhook.updateMany({
      where: { id, orgId: ctx.org.id, deactivatedAt: null },
      data: { active: false, deactivatedAt: ctx.now() },
    });
    if (r.count) {
      const ended = await tx.webhookDelivery.updateMany({
        where: { webhookId: id, orgId: ctx.org.id, status: { in: ["pending", "failed"] } },
        data: { status: "dead", lastError: "The webhook was deactivated.", lockedUntil: null, leaseToken: null },
      });
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "webhook.deactivated",
          subjectType: "webhook",
          subject: id,
          data: { endedDeliveries: ended.count },
        },
      );
    }
    return webhookView(await tx.webhook.findUniqueOrThrow({ where: { id } }));
  });
}

/** Recent deliveries of the organization's own webhooks, newest first. */
export async function listDeliveries(ctx: ServiceContext, query: DeliveryListQuery) {
  const rows = await ctx.db.webhookDelivery.findMany({
    where: { orgId: ctx.org.id, ...(query.status ? { status: query.status } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return { deliveries: rows.map(deliveryView) };
}

/**
 * Puts a failed or dead delivery back in the queue: `pending`, attempts 0, due now. The stored
 * body and the delivery id stay the same; the worker signs it again with a fresh timestamp.
 */
export async function replayDelivery(ctx: ServiceContext, id: string) {
  return ctx.db.$transaction(async (tx) => {
    const d = await tx.webhookDelivery.findFirst({ where: { id, orgId: ctx.org.id }, include: { webhook: true } });
    if (!d || d.webhook.orgId !== ctx.org.id) throw notFound("The delivery");
    if (d.status === "delivered") throw conflict("already_delivered", "This delivery was already delivered; it is not sent again.");
    if (d.body === null)
      throw conflict("payload_unavailable", "The payload of this delivery is no longer kept, so it cannot be sent again.");
    if (!d.webhook.active) throw conflict("webhook_inactive", "The webhook of this delivery is deactivated.");
    if (d.status === "pending") return deliveryView(d);
    // Conditional on the status read above, so a worker finishing an attempt at this moment wins or loses cleanly.
    const r = await tx.webhookDelivery.updateMany({
      where: { id, orgId: ctx.org.id, status: d.status },
      data: { status: "pending", attempts: 0, nextAttemptAt: ctx.now(), lockedUntil: null, leaseToken: null },
    });
    if (r.count) {
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "webhook.delivery_replayed",
          subjectType: "webhook_delivery",
          subject: id,
          data: { webhookId: d.webhookId, event: d.event, previousStatus: d.status, previousAttempts: d.attempts },
        },
      );
    }
    return deliveryView(await tx.webhookDelivery.findUniqueOrThrow({ where: { id } }));
  });
}
