import { createRequire } from "node:module";
import type Stripe from "stripe";
import { AppError } from "../../errors";
import type { StripeConfig } from "./config";
import type { PaymentNotification, PaymentProvider, ProviderInvoice } from "./types";

/**
 * Stripe's SDK is loaded when a process first uses it, not when this module loads: it is over 200
 * modules, a quarter of everything the service loads at start, and a deployment without card
 * payments never needs it (docs/decisions.md).
 */
const stripeSdk = (): typeof Stripe => createRequire(import.meta.url)("stripe");

/** Subscription states in which the organization keeps the paid plan (past_due: Stripe is still retrying). */
const ACTIVE_STATES = new Set(["active", "trialing", "past_due"]);

const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === "string" ? v : v.id);

/**
 * Stripe's errors reduced to ours, naming nothing of the request: network trouble, rate limits
 * and 5xx are transient (503), everything else (bad key, bad price, bad parameters) is not (502).
 */
function mapStripeError(err: unknown): AppError {
  if (err instanceof stripeSdk().errors.StripeError) {
    const status = err.statusCode ?? 0;
    if (err.type === "StripeConnectionError" || err.type === "StripeRateLimitError" || status === 429 || status >= 500) {
      return new AppError("PROVIDER_UNAVAILABLE", "The payment provider is unavailable; retry with backoff.");
    }
    return new AppError("PROVIDER_FAILURE", "The payment provider refused the request.", {
      providerCode: err.code ?? err.rawType ?? err.type,
    });
  }
  return new AppError("PROVIDER_UNAVAILABLE", "The payment provider is unavailable; retry with backoff.");
}

/** The card payment provider on Stripe's official SDK: Checkout Sessions, the customer portal, signed webhooks. */
export function createStripePayments(config: StripeConfig): PaymentProvider {
  const StripeSdk = stripeSdk();
  const stripe = new StripeSdk(config.secretKey, {
    host: config.host,
    port: config.port,
    protocol: config.protocol,
    timeout: config.timeoutMs,
    maxNetworkRetries: 1,
    telemetry: false,
    appInfo: { name: "bind-identity" },
  });

  return {
    name: "stripe",

    async createCheckout(req) {
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: "subscription",
            line_items: [{ price: config.priceGrowth, quantity: 1 }],
            // A known customer keeps its cards and invoices together; else Stripe makes one from the address.
            ...(req.customerId ? { customer: req.customerId } : req.email ? { customer_email: req.email } : {}),
            client_reference_id: req.checkoutId,
            metadata: { checkoutId: req.checkoutId },
            subscription_data: { metadata: { checkoutId: req.checkoutId } },
            success_url: req.successUrl,
            cancel_url: req.cancelUrl,
          },
          // One of our checkouts is one Stripe session, even when our call is retried.
          { idempotencyKey: `bi-checkout-${req.checkoutId}` },
        );
        if (!session.url) throw new AppError("PROVIDER_FAILURE", "The payment provider returned no checkout URL.");
        return { paymentSessionId: session.id, checkoutUrl: session.url };
      } catch (err) {
        throw err instanceof AppError ? err : mapStripeError(err);
      }
    },

    async createPortal(input) {
      try {
        const portal = await stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl });
        return { url: portal.url };
      } catch (err) {
        throw mapStripeError(err);
      }
    },

    async listInvoices(customerId) {
      try {
        const page = await stripe.invoices.list({ customer: customerId, limit: 24 });
        return page.data.map(
          (inv): ProviderInvoice => ({
            id: inv.id,
            number: inv.number ?? null,
            status: inv.status ?? null,
            amountDue: inv.amount_due,
            currency: inv.currency,
            created: new Date(inv.created * 1000),
            hostedInvoiceUrl: inv.hosted_invoice_url ?? null,
            pdfUrl: inv.invoice_pdf ?? null,
          }),
        );
      } catch (err) {
        throw mapStripeError(err);
      }
    },

    parseNotification(rawBody, signatureHeader): PaymentNotification {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader ?? "", config.webhookSecret);
      } catch {
        throw new AppError("INVALID_SIGNATURE", "The Stripe-Signature header does not verify for this body.");
      }
      switch (event.type) {
        case "checkout.session.completed":
        case "checkout.session.async_payment_succeeded": {
          const s = event.data.object;
          return {
            kind: "checkout_completed",
            eventId: event.id,
            type: event.type,
            createdAt: new Date(event.created * 1000),
            paymentSessionId: s.id,
            checkoutId: s.client_reference_id ?? s.metadata?.checkoutId ?? null,
            customerId: idOf(s.customer),
            subscriptionId: idOf(s.subscription),
            paid: s.payment_status !== "unpaid",
          };
        }
        case "customer.subscription.created":
        case "customer.subscription.updated":
        case "customer.subscription.deleted": {
          const sub = event.data.object;
          return {
            kind: "subscription_changed",
            eventId: event.id,
            type: event.type,
            createdAt: new Date(event.created * 1000),
            customerId: idOf(sub.customer) ?? "",
            subscriptionId: sub.id,
            active: event.type !== "customer.subscription.deleted" && ACTIVE_STATES.has(sub.status),
          };
        }
        default:
          return { kind: "ignored", eventId: event.id, type: event.type };
      }
    },
  };
}
