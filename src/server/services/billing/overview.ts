import type { ServiceContext } from "../../context";
import { payments } from "../../providers/payments";
import { listPlans } from "./plans";
import { usage } from "./subscription";

/**
 * The console's billing page in one read: the organization's plan as the catalog describes it,
 * its meters (`usage`, the same as GET /v1/billing/usage), the plan an upgrade would move it to
 * (Growth, for Builder only: Institutional is sold by contract), and whether the payment
 * provider knows it as a customer (only then is there a portal to manage payment in).
 */
export async function billingOverview(ctx: ServiceContext) {
  const [meters, catalog, org] = await Promise.all([
    usage(ctx),
    listPlans(),
    ctx.db.organization.findUniqueOrThrow({ where: { id: ctx.org.id }, select: { paymentCustomerId: true } }),
  ]);
  const entry = (id: string) => catalog.plans.find((p) => p.id === id) ?? null;
  return {
    plan: entry(meters.plan.id)!,
    usage: meters,
    upgradeTo: meters.plan.id === "builder" ? entry("growth") : null,
    payment: { provider: payments().name, hasCustomer: org.paymentCustomerId !== null },
  };
}
