import { randomUUID } from "node:crypto";
import { env } from "@/env";
import type { ServiceContext } from "../../context";
import { conflict } from "../../errors";
import { PLANS } from "../../plans";
import { payments } from "../../providers/payments";
import { appendAudit } from "../audit";
import { peekWindow } from "../rate-limit";
import { BILLING } from "./public";
import { chainTerms, returnUrls } from "./signup";

const startOfUtcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/** GET /v1/billing/usage: the plan from the catalog and the organization's meters. */
export async function usage(ctx: ServiceContext) {
  const now = ctx.now();
  const orgId = ctx.org.id;
  const plan = PLANS[ctx.org.plan];
  const [thisMinute, today, accounts, verifications] = await Promise.all([
    peekWindow(ctx.db, `plan:${orgId}`, 60, now),
    ctx.db.usageDay.findUnique({ where: { bucket_day: { bucket: `plan:${orgId}`, day: startOfUtcDay(now) } } }).then((r) => r?.count ?? 0),
    ctx.db.account.count({ where: { orgId } }),
    ctx.db.kycSession.count({ where: { orgId, createdAt: { gte: startOfUtcMonth(now) } } }),
  ]);
  return {
    organizationId: orgId,
    plan: { id: plan.id, name: plan.name, limits: plan.limits, verificationsPerMonth: plan.verificationsPerMonth },
    meters: {
      requestsThisMinute: thisMinute,
      requestsToday: today,
      accounts,
      verificationsThisMonth: verifications,
    },
    periods: { day: startOfUtcDay(now).toISOString(), month: startOfUtcMonth(now).toISOString() },
  };
}

/**
 * POST /v1/billing/upgrade (Builder → Growth): a checkout for this organization, paid by card or
 * chain like a signup; settling it changes the plan and keeps the organization and its keys.
 */
export async function upgrade(ctx: ServiceContext) {
  if (ctx.org.plan !== "builder") {
    throw conflict("plan_not_upgradable", `The ${PLANS[ctx.org.plan].name} plan cannot be upgraded here; contact sales for Institutional.`);
  }
  const sessionId = randomUUID();
  const card = await payments().createCheckout({
    checkoutId: sessionId,
    email: ctx.org.contactEmail ?? "",
    customerId: ctx.org.paymentCustomerId,
    ...returnUrls(sessionId),
  });
  const chain = chainTerms();
  await ctx.db.$transaction(async (tx) => {
    await tx.checkoutSession.create({
      data: {
        id: sessionId,
        orgId: ctx.org.id,
        purpose: "upgrade",
        email: ctx.org.contactEmail ?? "",
        plan: "growth",
        organizationName: ctx.org.name,
        status: "awaiting_payment",
        paymentSessionId: card.paymentSessionId,
        memo: chain?.memo,
        amount: chain?.amount,
        treasury: chain?.treasury,
        expiresAt: new Date(ctx.now().getTime() + BILLING.checkoutTtlSec * 1000),
      },
    });
    await appendAudit(tx, { orgId: ctx.org.id, actor: ctx.actor }, {
      action: "billing.upgrade_started",
      subjectType: "checkout_session",
      subject: sessionId,
      data: { from: ctx.org.plan, to: "growth" },
    });
  });
  return { sessionId, status: "awaiting_payment" as const, plan: "growth" as const, checkoutUrl: card.checkoutUrl, chainPayment: chain };
}

/** POST /v1/billing/portal: the payment provider's customer portal for this organization. */
export async function portal(ctx: ServiceContext) {
  const provider = payments();
  let customerId = ctx.org.paymentCustomerId;
  // The sandbox stand-in has no customers of its own; any organization may open its portal page.
  if (!customerId && provider.name === "sandbox") customerId = `sbx_cus_${ctx.org.id}`;
  if (!customerId) throw conflict("no_payment_customer", "This organization has not paid by card yet, so it has no billing portal.");
  const base = env().BI_PUBLIC_URL.replace(/\/+$/, "");
  const { url } = await provider.createPortal({ customerId, returnUrl: `${base}/console` });
  return { url };
}
