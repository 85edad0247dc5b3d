/** What billing needs from a card payment provider (Stripe, or the sandbox stand-in). */

export type CheckoutRequest = {
  /** Our checkout session id: the provider's reference back to us and its idempotency key. */
  checkoutId: string;
  email: string;
  /** The provider's customer of an organization that already pays or paid (upgrades). */
  customerId?: string | null;
  successUrl: string;
  cancelUrl: string;
};

export type CreatedCheckout = { paymentSessionId: string; checkoutUrl: string };

/**
 * A verified provider notification, reduced to what billing acts on. `createdAt` is when the
 * provider created the event (Stripe: `created`, whole seconds), which orders events that are
 * delivered out of order or retried.
 */
export type PaymentNotification =
  | {
      kind: "checkout_completed";
      eventId: string;
      type: string;
      createdAt: Date;
      paymentSessionId: string;
      checkoutId: string | null;
      customerId: string | null;
      subscriptionId: string | null;
      /** False while an asynchronous payment method has not settled yet. */
      paid: boolean;
    }
  | {
      kind: "subscription_changed";
      eventId: string;
      type: string;
      createdAt: Date;
      customerId: string;
      subscriptionId: string;
      active: boolean;
    }
  | { kind: "ignored"; eventId: string; type: string };

/**
 * One invoice as the provider keeps it. `amountDue` is in the currency's minor unit (cents; whole
 * yen for zero-decimal currencies), as Stripe counts it; `currency` is lower-case ISO 4217.
 */
export type ProviderInvoice = {
  id: string;
  number: string | null;
  /** draft, open, paid, uncollectible or void (Stripe may add states). */
  status: string | null;
  amountDue: number;
  currency: string;
  created: Date;
  hostedInvoiceUrl: string | null;
  pdfUrl: string | null;
};

export type PaymentProvider = {
  name: "sandbox" | "stripe";
  createCheckout(req: CheckoutRequest): Promise<CreatedCheckout>;
  createPortal(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  /** The customer's most recent invoices (at most 24), newest first. */
  listInvoices(customerId: string): Promise<ProviderInvoice[]>;
  /** Verifies the signature over the exact body bytes and parses the event; throws INVALID_SIGNATURE. */
  parseNotification(rawBody: Buffer, signatureHeader: string | null): PaymentNotification;
};
