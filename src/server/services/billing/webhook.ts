import type { Plan } from "@/generated/prisma/enums.ts";
import type { Tx } from "../../db/client";
import { orgChanged } from "../../platform/auth-cache";
import { type PaymentNotification, payments } from "../../providers/payments";
import { appendAudit } from "../audit";
import type { PublicContext } from "./public";
import { afterSettled, type Settled, SIGNUP_ACTOR, settleCheckout } from "./settle";

type Outcome = { received: true; duplicate?: true; action: string };

/**
 * POST /v1/billing/stripe/webhook. The signature is checked over the exact body bytes; then the
 * event id is recorded under a primary key in the same transaction as its effect, so a repeated
 * (or concurrently repeated) event changes nothing. Failures roll back and answer 5xx, so the
 * provider retries; events we do not act on are acknowledged.
 */
export async function receivePaymentNotification(pub: PublicContext, rawBody: Buffer, signature: string | null): Promise<Outcome> {
  const provider = payments();
  const n = provider.parseNotification(rawBody, signature);
  let settled: Settled | undefined;
  let changedOrg: string | undefined;
  const outcome = await pub.db.$transaction(async (tx): Promise<Outcome> => {
    const first = await tx.paymentEvent.createMany({
      data: [{ provider: provider.name, eventId: n.eventId, type: n.type }],
      skipDuplicates: true,
    });
    if (first.count === 0) return { received: true, duplicate: true, action: "none" };
    if (n.kind === "checkout_completed") {
      const r = await checkoutCompleted(tx, n);
      settled = r.settled;
      return { received: true, action: r.action };
    }
    if (n.kind === "subscription_changed") {
      const r = await subscriptionChanged(tx, n);
      changedOrg = r.orgId;
      return { received: true, action: r.action };
    }
    return { received: true, action: "ignored" };
  });
  if (settled) afterSettled(settled);
  if (changedOrg) orgChanged(changedOrg);
  pub.log.info({ paymentEvent: n.type, action: outcome.action, duplicate: !!outcome.duplicate }, "payment notification");
  return outcome;
}

async function checkoutCompleted(tx: Tx, n: Extract<PaymentNotification, { kind: "checkout_completed" }>) {
  // Not paid yet (a delayed payment method): checkout.session.async_payment_succeeded settles it later.
  if (!n.paid) return { action: "awaiting_payment" };
  const session = await tx.checkoutSession.findUnique({ where: { paymentSessionId: n.paymentSessionId } });
  if (!session) return { action: "unknown_checkout" };
  if (session.status === "provisioned") return { action: "already_provisioned" };
  const settled = await settleCheckout(
    tx,
    session.id,
    { via: "card", customerId: n.customerId, subscriptionId: n.subscriptionId, eventAt: n.createdAt },
    { handOut: false },
  );
  return { action: settled.upgraded ? "upgraded" : "provisioned", settled };
}

/**
 * A subscription that is active (or past due, still being retried) keeps Growth; a cancelled,
 * unpaid or deleted one returns the organization to Builder. Only the subscription that pays
 * for the organization counts, and Stripe delivers its events in no fixed order and retries
 * them: an event of another subscription, or one created before the last applied, is
 * acknowledged, audited and ignored, so a late cancellation or a stale "unpaid" cannot
 * downgrade an organization that pays. An event created in the same second as the last applied
 * is applied (Stripe's times have no finer grain). Institutional plans are managed by contract,
 * never by card events.
 */
async function subscriptionChanged(tx: Tx, n: Extract<PaymentNotification, { kind: "subscription_changed" }>) {
  if (!n.customerId) return { action: "unknown_customer" };
  const found =
    (await tx.organization.findFirst({
      where: { paymentCustomerId: n.customerId, paymentSubscriptionId: n.subscriptionId },
      select: { id: true },
    })) ?? (await tx.organization.findFirst({ where: { paymentCustomerId: n.customerId }, select: { id: true } }));
  if (!found) return { action: "unknown_customer" };
  // Locked before reading what was last applied, so two events of one subscription delivered at
  // once are compared one after the other rather than both against the same old state.
  await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${found.id}::uuid FOR NO KEY UPDATE`;
  const org = await tx.organization.findUniqueOrThrow({ where: { id: found.id } });
  if (org.plan === "institutional") return { action: "ignored_institutional" };

  const lastAppliedAt = org.paymentSubscriptionEventAt;
  const ignored =
    org.paymentSubscriptionId !== n.subscriptionId ? "other_subscription" : lastAppliedAt && n.createdAt < lastAppliedAt ? "stale" : null;
  if (ignored) {
    await appendAudit(
      tx,
      { orgId: org.id, actor: SIGNUP_ACTOR },
      {
        action: "billing.subscription_event_ignored",
        subjectType: "organization",
        subject: org.id,
        data: {
          reason: ignored,
          plan: org.plan,
          event: n.type,
          eventId: n.eventId,
          eventCreatedAt: n.createdAt.toISOString(),
          subscriptionId: n.subscriptionId,
          payingSubscriptionId: org.paymentSubscriptionId,
          lastAppliedAt: lastAppliedAt?.toISOString() ?? null,
        },
      },
    );
    return { action: `ignored_${ignored}` };
  }

  const target: Plan = n.active ? "growth" : "builder";
  await tx.organization.update({
    where: { id: org.id },
    data: { paymentSubscriptionEventAt: n.createdAt, ...(org.plan === target ? {} : { plan: target }) },
  });
  if (org.plan === target) return { action: "unchanged" };
  await appendAudit(
    tx,
    { orgId: org.id, actor: SIGNUP_ACTOR },
    {
      action: "billing.plan_changed",
      subjectType: "organization",
      subject: org.id,
      data: { from: org.plan, to: target, via: "subscription", event: n.type, eventId: n.eventId, subscriptionId: n.subscriptionId },
    },
  );
  return { action: target === "growth" ? "upgraded" : "downgraded", orgId: org.id };
}
