import type { Webhook } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import type { Tx } from "../../db/client";
import { conflict, notFound } from "../../errors";
import { appendAudit } from "../audit";
import { MAX_ACTIVE_WEBHOOKS, webhookView } from "./registry";

async function lockOwn(tx: Tx, ctx: ServiceContext, id: string): Promise<Webhook> {
  const [hook] = await tx.$queryRaw<Webhook[]>`
    SELECT * FROM webhooks WHERE id = ${id}::uuid AND "orgId" = ${ctx.org.id}::uuid FOR UPDATE`;
  if (!hook) throw notFound("The webhook");
  if (hook.deactivatedAt) throw conflict("webhook_inactive", "The webhook is deactivated; register a new one instead.");
  return hook;
}

/**
 * Switches an endpoint off without deleting it, ending its waiting deliveries as dead. Events
 * that happen while it is disabled are recorded as dead deliveries, so a recover after enabling
 * sends them. `reason` is "failing" when the failing check disables it.
 */
export async function disableInTx(tx: Tx, hook: Webhook, at: Date, reason: "failing" | "manual", actor: ServiceContext["actor"] | string) {
  await tx.webhook.update({ where: { id: hook.id }, data: { active: false, disabledAt: at, disabledReason: reason } });
  const ended = await tx.webhookDelivery.updateMany({
    where: { webhookId: hook.id, orgId: hook.orgId, status: { in: ["pending", "failed"] } },
    data: { status: "dead", lastError: "The webhook was disabled.", lockedUntil: null, leaseToken: null },
  });
  await appendAudit(
    tx,
    { orgId: hook.orgId, actor },
    {
      action: "webhook.disabled",
      subjectType: "webhook",
      subject: hook.id,
      data: { reason, endedDeliveries: ended.count, failingSince: hook.failingSince?.toISOString() ?? null },
    },
  );
}

/** Disables a webhook by hand; disabling a disabled one answers it unchanged. */
export async function disableWebhook(ctx: ServiceContext, id: string) {
  return ctx.db.$transaction(async (tx) => {
    const hook = await lockOwn(tx, ctx, id);
    if (!hook.disabledAt) await disableInTx(tx, hook, ctx.now(), "manual", ctx.actor);
    return webhookView(await tx.webhook.findUniqueOrThrow({ where: { id } }));
  });
}

/**
 * Enables a disabled webhook with a clean slate (no failing stretch, no notice sent), and answers
 * where a recover should start: when the failing began, or the disable time for one disabled by
 * hand, so what the receiver missed before and during the disable is covered.
 */
export async function enableWebhook(ctx: ServiceContext, id: string) {
  return ctx.db.$transaction(async (tx) => {
    const hook = await lockOwn(tx, ctx, id);
    if (!hook.disabledAt) return { webhook: webhookView(hook), suggestedRecoverSince: null };
    const active = await tx.webhook.count({ where: { orgId: ctx.org.id, active: true } });
    if (active >= MAX_ACTIVE_WEBHOOKS)
      throw conflict("webhook_limit", `An organization may have at most ${MAX_ACTIVE_WEBHOOKS} active webhooks; deactivate one first.`);
    const since = hook.failingSince && hook.failingSince < hook.disabledAt ? hook.failingSince : hook.disabledAt;
    const updated = await tx.webhook.update({
      where: { id },
      data: { active: true, disabledAt: null, disabledReason: null, failingSince: null, failingNoticeAt: null },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "webhook.enabled",
        subjectType: "webhook",
        subject: id,
        data: { disabledAt: hook.disabledAt.toISOString(), reason: hook.disabledReason },
      },
    );
    return { webhook: webhookView(updated), suggestedRecoverSince: since.toISOString() };
  });
}
