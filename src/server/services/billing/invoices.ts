import type { ServiceContext } from "../../context";
import { payments } from "../../providers/payments";

export const NO_CUSTOMER_MESSAGE =
  "This organization has not paid by card, so the payment provider holds no invoices for it. A payment made on chain is recorded by its chain transaction instead.";

/**
 * The organization's invoices where the card payment provider keeps them (Stripe: the customer's
 * last 24). Without a payment customer nothing is asked and the answer says why; the sandbox
 * stand-in charges nothing and keeps no invoices, so it always answers an empty list.
 */
export async function listInvoices(ctx: ServiceContext) {
  const provider = payments();
  // Read fresh: a payment webhook may have just recorded the customer (ctx.org can come from the key cache).
  const org = await ctx.db.organization.findUniqueOrThrow({ where: { id: ctx.org.id }, select: { paymentCustomerId: true } });
  if (!org.paymentCustomerId) {
    return { provider: provider.name, invoices: [], reason: { code: "no_payment_customer" as const, message: NO_CUSTOMER_MESSAGE } };
  }
  const invoices = await provider.listInvoices(org.paymentCustomerId);
  return {
    provider: provider.name,
    invoices: invoices.map((i) => ({ ...i, created: i.created.toISOString() })),
    reason: null,
  };
}
