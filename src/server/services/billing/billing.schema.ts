import { z } from "zod";

const planId = z.enum(["builder", "growth", "institutional"]);
const limits = z.object({ requestsPerMinute: z.int() });
const sessionId = z.string().min(1).max(64);
const emailProofToken = z.string().min(1).max(200);

export const PlanCatalog = z.object({
  plans: z.array(
    z.object({
      id: planId,
      name: z.string(),
      priceUsdMonthly: z.number().nullable().describe("null: priced by sales"),
      currency: z.literal("USD"),
      limits,
      verificationsPerMonth: z.int().nullable().describe("KYC verifications a calendar month (UTC); null: no monthly cap, by contract"),
      atVerificationCap: z.string().describe("What happens when the month's verifications are used up"),
      support: z.string(),
      sla: z.string().nullable().describe("The uptime commitment; null: none"),
      selfServe: z.boolean(),
      checkout: z.enum(["instant", "payment", "sales"]),
      includes: z.array(z.string()),
    }),
  ),
});

export const BillingEmailStartInput = z.object({
  email: z.email().max(254).describe("A work address; disposable and consumer mailboxes are refused"),
});
export const BillingEmailStarted = z.object({
  challengeId: z.uuid(),
  expiresAt: z.iso.datetime(),
  emailMasked: z.string(),
  devCode: z.string().optional().describe("Only where BI_DEV_CODES is on (never in production)"),
});
export const BillingEmailConfirmInput = z.object({ challengeId: z.uuid(), code: z.string().min(1).max(12) });
export const BillingEmailProof = z.object({ emailProofToken: z.string(), expiresInSec: z.int(), emailMasked: z.string() });

export const CheckoutInput = z.strictObject({
  emailProofToken,
  plan: planId,
  organizationName: z.string().trim().min(2).max(100),
  expectedMonthlyVerifications: z.int().min(0).max(100_000_000).optional().describe("Institutional: passed to sales"),
  message: z.string().max(2000).optional().describe("Institutional: a note for sales"),
});

const chainPayment = z
  .object({ treasury: z.string(), memo: z.string(), amount: z.string().describe('Asset, e.g. "499.0000 EOS"') })
  .nullable()
  .describe("Pay by token transfer to the treasury with this memo, then POST /v1/billing/chain/confirm; null when not offered");

export const CheckoutResult = z.union([
  z.object({
    sessionId: z.string(),
    status: z.literal("provisioned"),
    plan: z.literal("builder"),
    organizationId: z.uuid(),
    apiKey: z.string().describe("Shown once"),
    consolePassword: z.string().describe("Shown once"),
    warning: z.string(),
  }),
  z.object({ sessionId: z.string(), status: z.literal("awaiting_payment"), plan: z.literal("growth"), checkoutUrl: z.url(), chainPayment }),
  z.object({ sessionId: z.string(), status: z.literal("sales_lead"), plan: z.literal("institutional") }),
]);

export const SessionInput = z.object({ sessionId });
export const SessionParams = z.object({ sessionId });
export const RevealInput = z.object({
  sessionId,
  emailProofToken: emailProofToken
    .optional()
    .describe(
      "The emailProofToken this checkout spent: optional within 15 minutes of payment (the session id is then enough), required after; when sent it must be this checkout's (403 otherwise)",
    ),
});

export const CheckoutSettled = z.object({
  sessionId: z.string(),
  status: z.literal("provisioned"),
  plan: z.literal("growth"),
  organizationId: z.uuid(),
  upgraded: z.boolean(),
  revealAvailable: z.boolean().describe("Signup: POST /v1/billing/checkout/reveal returns the key once"),
});

export const CheckoutRevealed = z.object({
  sessionId: z.string(),
  organizationId: z.uuid(),
  apiKey: z.string(),
  consolePassword: z.string(),
  warning: z.string(),
});

export const CheckoutStatus = z.object({
  sessionId: z.string(),
  status: z.enum(["awaiting_email", "awaiting_payment", "provisioned", "sales_lead", "expired"]),
  plan: planId,
  purpose: z.enum(["signup", "upgrade"]),
  emailMasked: z.string(),
  organizationId: z.uuid().nullable(),
  revealAvailable: z.boolean(),
  expiresAt: z.iso.datetime(),
});

export const ChainConfirmInput = z.object({
  sessionId,
  transactionId: z.string().trim().min(1).max(128),
  account: z
    .string()
    .regex(/^[a-z1-5.]{1,12}$/)
    .optional()
    .describe("The payer; when set the transfer must come from it"),
  emailProofToken: emailProofToken
    .optional()
    .describe(
      "Optional: the emailProofToken this signup spent; when sent it must be this checkout's (403 otherwise). The key is in this answer either way",
    ),
});
export const ChainConfirmed = z.object({
  sessionId: z.string(),
  status: z.literal("provisioned"),
  plan: z.literal("growth"),
  organizationId: z.uuid(),
  upgraded: z.boolean(),
  transactionId: z.string(),
  revealAvailable: z
    .boolean()
    .describe(
      "True only if the key is still sealed for POST /v1/billing/checkout/reveal (never after a signup's confirm, which answers it)",
    ),
  apiKey: z.string().optional().describe("A signup's key, shown once, in this answer; absent for an upgrade"),
  consolePassword: z.string().optional(),
  warning: z.string().optional(),
});

export const AdviseInput = z.strictObject({
  question: z.string().trim().min(1).max(2000),
  expectedMonthlyVerifications: z.int().min(0).max(100_000_000).optional(),
  expectedRequestsPerMinute: z.int().min(0).max(1_000_000).optional(),
  needsSla: z.boolean().optional(),
});
export const Advice = z.object({
  recommendedPlan: z.object({
    id: planId,
    name: z.string(),
    priceUsdMonthly: z.number().nullable(),
    limits,
    verificationsPerMonth: z.int().nullable(),
  }),
  reasons: z.array(z.string()),
  answer: z.string(),
  source: z
    .enum(["rules", "model"])
    .describe("rules: the catalog's own text; model: the same recommendation phrased by the configured model"),
});

export const WebhookReceived = z.object({ received: z.literal(true), duplicate: z.literal(true).optional(), action: z.string() });

export const Usage = z.object({
  organizationId: z.uuid(),
  plan: z.object({ id: planId, name: z.string(), limits, verificationsPerMonth: z.int().nullable() }),
  meters: z.object({
    requestsThisMinute: z.int(),
    requestsToday: z.int(),
    accounts: z.int(),
    verificationsThisMonth: z.int().describe("KYC verifications started this UTC month, as counted against the plan"),
    verificationsRemaining: z.int().nullable().describe("Left this month before new verifications are refused; null: no monthly cap"),
    reusesThisMonth: z
      .int()
      .optional()
      .describe(
        "Verifications of other organizations reused this month by the person's wallet presentation (docs/api/guides/wallets.md), billed apart from KYC",
      ),
  }),
  periods: z.object({ day: z.iso.datetime(), month: z.iso.datetime() }),
});

export const UpgradeStarted = z.object({
  sessionId: z.string(),
  status: z.literal("awaiting_payment"),
  plan: z.literal("growth"),
  checkoutUrl: z.url(),
  chainPayment,
});
export const PortalSession = z.object({ url: z.url() });

export const SandboxTransferInput = z.strictObject({
  from: z.string().regex(/^[a-z1-5.]{1,12}$/),
  to: z.string().regex(/^[a-z1-5.]{1,12}$/),
  quantity: z.string().min(3).max(64).describe('Asset, e.g. "499.0000 EOS"'),
  memo: z.string().max(256),
});
export const SandboxTransfer = z.object({ transactionId: z.string() });
