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
    { via: "card", customerId: n.customerId, subscriptionId: n.subscriptionId },
    { handOut: false },
  );
  return { action: settled.upgraded ? "upgraded" : "provisioned", settled };
}

/**
 * A subscription that is active (or past due, still being retried) keeps Growth; a cancelled,
 * unpaid or deleted one returns the organization to Builder. Institutional plans are managed by
 * contract, never by card events.
 */
async function subscriptionChanged(tx: Tx, n: Extract<PaymentNotification, { kind: "subscription_changed" }>) {
  const org = n.customerId ? await tx.organization.findFirst({ where: { paymentCustomerId: n.customerId } }) : null;
  if (!org) return { action: "unknown_customer" };
  if (org.plan === "institutional") return { action: "ignored_institutional" };
  const target: Plan = n.active ? "growth" : "builder";
  if (org.plan === target) return { action: "unchanged" };
  await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${org.id}::uuid FOR NO KEY UPDATE`;
  await tx.organization.update({ where: { id: org.id }, data: { plan: target } });
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
