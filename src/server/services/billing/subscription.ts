import { env } from "@/env";
import type { CheckoutSession } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { Prisma } from "../../db/client";
import { conflict } from "../../errors";
import { PLANS } from "../../platform/plans";
import { peekWindow } from "../../platform/rate-limit";
import { reusesUsed, startOfUtcMonth, verificationsUsed } from "../../platform/verification-allowance";
import { payments } from "../../providers/payments";
import { appendAudit } from "../audit";
import { BILLING, newCheckoutId } from "./public";
import { chainTerms, returnUrls } from "./signup";

/**
 * The organization as stored now: `ctx.org` may come from the key cache, which learns of changes
 * made elsewhere (a payment webhook, another instance) a moment later, and billing decisions
 * (which plan, which payment customer) must not act on a stale copy.
 */
const freshOrg = (ctx: ServiceContext) => ctx.db.organization.findUniqueOrThrow({ where: { id: ctx.org.id } });

const startOfUtcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** GET /v1/billing/usage: the plan from the catalog and the organization's meters. */
export async function usage(ctx: ServiceContext) {
  const now = ctx.now();
  const orgId = ctx.org.id;
  const plan = PLANS[(await freshOrg(ctx)).plan];
  const [thisMinute, today, accounts, verifications, reuses] = await Promise.all([
    peekWindow(ctx.db, `plan:${orgId}`, 60, now),
    ctx.db.usageDay.findUnique({ where: { bucket_day: { bucket: `plan:${orgId}`, day: startOfUtcDay(now) } } }).then((r) => r?.count ?? 0),
    ctx.db.account.count({ where: { orgId, lifecycle: { not: "pending" } } }),
    verificationsUsed(ctx.db, orgId, now),
    reusesUsed(ctx.db, orgId, now),
  ]);
  return {
    organizationId: orgId,
    plan: { id: plan.id, name: plan.name, limits: plan.limits, verificationsPerMonth: plan.verificationsPerMonth },
    meters: {
      requestsThisMinute: thisMinute,
      requestsToday: today,
      accounts,
      verificationsThisMonth: verifications,
      verificationsRemaining: plan.verificationsPerMonth === null ? null : Math.max(0, plan.verificationsPerMonth - verifications),
      reusesThisMonth: reuses,
    },
    periods: { day: startOfUtcDay(now).toISOString(), month: startOfUtcMonth(now).toISOString() },
  };
}

/** A pending upgrade younger than this is handed out again (Stripe's Checkout Sessions live 24 hours). */
const REUSE_PENDING_MS = 23 * 60 * 60 * 1000;

const upgradeView = (s: CheckoutSession) => ({
  sessionId: s.id,
  status: "awaiting_payment" as const,
  plan: "growth" as const,
  checkoutUrl: s.checkoutUrl ?? "",
  chainPayment: s.memo && s.treasury && s.amount ? { treasury: s.treasury, memo: s.memo, amount: s.amount } : null,
});

const pendingUpgrade = (ctx: ServiceContext) =>
  ctx.db.checkoutSession.findFirst({ where: { orgId: ctx.org.id, purpose: "upgrade", status: "awaiting_payment" } });

/**
 * POST /v1/billing/upgrade (Builder → Growth): a checkout for this organization, paid by card or
 * chain like a signup; settling it changes the plan and keeps the organization and its keys. A
 * pending upgrade is handed out again rather than duplicated (one per organization, by a partial
 * unique index), so the organization cannot end up paying for Growth twice.
 */
export async function upgrade(ctx: ServiceContext) {
  const org = await freshOrg(ctx);
  if (org.plan !== "builder") {
    throw conflict("plan_not_upgradable", `The ${PLANS[org.plan].name} plan cannot be upgraded here; contact sales for Institutional.`);
  }
  const pending = await pendingUpgrade(ctx);
  if (pending?.checkoutUrl && ctx.now().getTime() - pending.createdAt.getTime() < REUSE_PENDING_MS) return upgradeView(pending);
  // Too old to pay by card: retire it (a late payment of it still settles, see settleCheckout).
  if (pending)
    await ctx.db.checkoutSession.updateMany({ where: { id: pending.id, status: "awaiting_payment" }, data: { status: "expired" } });

  const sessionId = newCheckoutId();
  const card = await payments().createCheckout({
    checkoutId: sessionId,
    email: org.contactEmail ?? "",
    customerId: org.paymentCustomerId,
    ...returnUrls(sessionId),
  });
  const chain = chainTerms();
  try {
    const created = await ctx.db.$transaction(async (tx) => {
      const row = await tx.checkoutSession.create({
        data: {
          id: sessionId,
          orgId: ctx.org.id,
          purpose: "upgrade",
          email: org.contactEmail ?? "",
          plan: "growth",
          organizationName: org.name,
          status: "awaiting_payment",
          paymentSessionId: card.paymentSessionId,
          checkoutUrl: card.checkoutUrl,
          memo: chain?.memo,
          amount: chain?.amount,
          treasury: chain?.treasury,
          expiresAt: new Date(ctx.now().getTime() + BILLING.checkoutTtlSec * 1000),
        },
      });
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "billing.upgrade_started",
          subjectType: "checkout_session",
          subject: sessionId,
          data: { from: org.plan, to: "growth" },
        },
      );
      return row;
    });
    return upgradeView(created);
  } catch (err) {
    // A concurrent upgrade call created the pending checkout first: hand that one out.
    if (!(err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002")) throw err;
    const winner = await pendingUpgrade(ctx);
    if (!winner) throw err;
    return upgradeView(winner);
  }
}

/** POST /v1/billing/portal: the payment provider's customer portal for this organization. */
export async function portal(ctx: ServiceContext) {
  const provider = payments();
  let customerId = (await freshOrg(ctx)).paymentCustomerId;
  // The sandbox stand-in has no customers of its own; any organization may open its portal page.
  if (!customerId && provider.name === "sandbox") customerId = `sbx_cus_${ctx.org.id}`;
  if (!customerId) throw conflict("no_payment_customer", "This organization has not paid by card yet, so it has no billing portal.");
  const base = env().BI_PUBLIC_URL;
  const { url } = await provider.createPortal({ customerId, returnUrl: `${base}/console` });
  return { url };
}
