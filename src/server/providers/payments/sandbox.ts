import { env } from "@/env";
import { AppError } from "../../errors";
import type { PaymentProvider } from "./types";

/**
 * Card payments of a sandbox without Stripe settings: the checkout URL names the session, and
 * `POST /v1/billing/checkout/complete` settles it as a paid card checkout would. It has no
 * notifications of its own, so its webhook route answers 404. It keeps no record of what it
 * "charged" (a settled sandbox checkout is only our own checkout row), so it has no invoices.
 */
export function createSandboxPayments(): PaymentProvider {
  const base = env().BI_PUBLIC_URL;
  return {
    name: "sandbox",
    async createCheckout(req) {
      return {
        paymentSessionId: `sbx_cs_${req.checkoutId}`,
        checkoutUrl: `${base}/billing/sandbox-checkout/${req.checkoutId}`,
      };
    },
    async createPortal(input) {
      return { url: `${base}/billing/sandbox-portal?customer=${encodeURIComponent(input.customerId)}` };
    },
    async listInvoices() {
      return [];
    },
    parseNotification() {
      throw new AppError("NOT_FOUND", "No payment provider notifications are configured on this deployment.");
    },
  };
}
