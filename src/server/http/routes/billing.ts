import * as billing from "../../services/billing";
import {
  Advice,
  AdviseInput,
  BillingEmailConfirmInput,
  BillingEmailProof,
  BillingEmailStarted,
  BillingEmailStartInput,
  ChainConfirmed,
  ChainConfirmInput,
  CheckoutInput,
  CheckoutResult,
  CheckoutRevealed,
  CheckoutSettled,
  CheckoutStatus,
  PlanCatalog,
  PortalSession,
  RevealInput,
  SandboxTransfer,
  SandboxTransferInput,
  SessionInput,
  SessionParams,
  UpgradeStarted,
  Usage,
  WebhookReceived,
} from "../../services/billing";
import { reply, route } from "../route";
import type { PipelineState, RouteDef } from "../types";

/** Public billing calls have no organization: they know the database and the client address. */
const pub = (state: PipelineState): billing.PublicContext => ({
  db: state.db,
  clientIp: state.clientIp,
  correlationId: state.correlationId,
  log: state.log,
  now: () => new Date(),
});

const tag = "Billing";
const limited = ["RATE_LIMITED"] as const;
const provider = ["PROVIDER_FAILURE", "PROVIDER_UNAVAILABLE"] as const;

export const billingRoutes = [
  route({
    method: "GET",
    path: "/v1/billing/plans",
    auth: "public",
    tag,
    summary: "The plan catalog: price, limits.requestsPerMinute (what the plan quota enforces), included verifications and features.",
    response: PlanCatalog,
    handler: () => billing.listPlans(),
  }),
  route({
    method: "POST",
    path: "/v1/billing/ai/advise",
    auth: "public",
    tag,
    summary:
      "A recommended plan with its reasons, computed from the catalog and the stated volumes; a configured model may only phrase it. 10 per minute per client IP.",
    body: AdviseInput,
    response: Advice,
    errors: [...limited],
    handler: ({ state, body }) => billing.advisePlan(pub(state), body),
  }),
  route({
    method: "POST",
    path: "/v1/billing/email/otp/start",
    auth: "public",
    tag,
    summary:
      "Sends a 6-digit code to a work email (5 per address and 20 per client IP an hour; 10 billing calls per minute per IP). devCode only where dev codes are on.",
    body: BillingEmailStartInput,
    response: BillingEmailStarted,
    errors: [...limited, ...provider],
    handler: ({ state, body }) => billing.startSignupEmail(pub(state), body),
  }),
  route({
    method: "POST",
    path: "/v1/billing/email/otp/confirm",
    auth: "public",
    tag,
    summary:
      "Trades the code for an emailProofToken: spent by one checkout within 15 minutes, then kept by the client (never in a URL) as the one secret that unlocks that checkout's key at reveal or chain confirm. 400 INVALID_CODE, 429 after 5 attempts.",
    body: BillingEmailConfirmInput,
    response: BillingEmailProof,
    errors: ["INVALID_CODE", ...limited],
    handler: ({ state, body }) => billing.confirmSignupEmail(pub(state), body),
  }),
  route({
    method: "POST",
    path: "/v1/billing/checkout",
    auth: "public",
    tag,
    summary:
      "Spends the email proof, which then binds the checkout: a Growth key is revealed only with it. Builder: 201, organization provisioned, key and console password shown once. Growth: 200 awaiting_payment with checkoutUrl and chainPayment. Institutional: 200 sales_lead. Idempotency-Key is scoped by the proof.",
    body: CheckoutInput,
    response: CheckoutResult,
    idempotent: true,
    errors: ["FORBIDDEN", ...limited, ...provider],
    idempotencyScope: (body) => body.emailProofToken,
    handler: async ({ state, body }) => {
      const out = await billing.checkout(pub(state), body);
      return out.status === "provisioned" ? reply(201, out) : out;
    },
  }),
  route({
    method: "POST",
    path: "/v1/billing/checkout/complete",
    auth: "public",
    tag,
    sandboxOnly: true,
    summary:
      "Sandbox: settles a pending Growth checkout as a paid card would (signup provisions; upgrade changes the plan). 409 when already provisioned.",
    body: SessionInput,
    response: CheckoutSettled,
    errors: ["NOT_FOUND", "CONFLICT", ...limited],
    handler: ({ state, body }) => billing.completeSandboxCheckout(pub(state), body),
  }),
  route({
    method: "POST",
    path: "/v1/billing/checkout/reveal",
    auth: "public",
    tag,
    summary:
      "The API key and console password of a paid signup, once. The session id (a 192-bit secret) is enough within 15 minutes of payment; after that the emailProofToken the checkout spent is needed (403 reveal_window_passed). A proof that is sent must be this checkout's (403 checkout_proof_mismatch, nothing spent); the second reveal is 409 already_revealed; 5 attempts per session an hour.",
    body: RevealInput,
    response: CheckoutRevealed,
    errors: ["NOT_FOUND", "FORBIDDEN", "CONFLICT", ...limited],
    handler: ({ state, body }) => billing.revealCheckout(pub(state), body),
  }),
  route({
    method: "GET",
    path: "/v1/billing/checkout/{sessionId}",
    auth: "public",
    tag,
    summary: "Checkout status with a masked email; never a key. Unknown session: 404.",
    params: SessionParams,
    response: CheckoutStatus,
    errors: ["NOT_FOUND", ...limited],
    handler: ({ state, params }) => billing.checkoutStatus(pub(state), params.sessionId),
  }),
  route({
    method: "POST",
    path: "/v1/billing/chain/confirm",
    auth: "public",
    tag,
    summary:
      "Verifies a transfer of the amount to the treasury with the checkout's memo, then provisions (201) with the API key and console password in the answer, once. The memo on chain is not the session id, which only the buyer holds. An emailProofToken is optional; when sent it must be the one the signup spent (403 before anything settles). 425 while reversible; 409 already provisioned or transaction used; 400 PAYMENT_NOT_VERIFIED.",
    body: ChainConfirmInput,
    response: ChainConfirmed,
    successStatus: 201,
    errors: ["NOT_FOUND", "FORBIDDEN", "CONFLICT", "PAYMENT_NOT_VERIFIED", "TRANSFER_REVERSIBLE", ...limited, ...provider],
    handler: ({ state, body }) => billing.confirmChainPayment(pub(state), body),
  }),
  route({
    method: "POST",
    path: "/v1/billing/stripe/webhook",
    auth: "public",
    tag,
    summary:
      "Stripe notifications, verified with the Stripe-Signature header over the exact body: checkout.session.completed provisions; subscription events change the plan; each event id applies once.",
    response: WebhookReceived,
    errors: ["INVALID_SIGNATURE", "NOT_FOUND"],
    handler: ({ state }) => billing.receivePaymentNotification(pub(state), state.req.body, state.req.headers.get("stripe-signature")),
  }),
  route({
    method: "GET",
    path: "/v1/billing/usage",
    auth: { scope: "read" },
    tag,
    summary: "The organization's plan and meters: requests this minute and today, accounts, verifications this month.",
    response: Usage,
    handler: ({ ctx }) => billing.usage(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/billing/upgrade",
    auth: { scope: "admin" },
    tag,
    summary:
      "Builder → Growth: a checkout for this organization (card or chain); once paid the plan changes, keeping the organization and keys, and the new quota applies at once.",
    response: UpgradeStarted,
    errors: ["CONFLICT", ...provider],
    handler: ({ ctx }) => billing.upgrade(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/billing/portal",
    auth: { scope: "admin" },
    tag,
    summary: "A customer portal URL of the payment provider (invoices, card, cancellation); 409 when the organization never paid by card.",
    response: PortalSession,
    errors: ["CONFLICT", ...provider],
    handler: ({ ctx }) => billing.portal(ctx),
  }),
];

/** The simulated chain's transfers, for testing on-chain checkout in the sandbox. */
export const sandboxChainRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/v1/sandbox/chain/transfer",
    auth: { scope: "read" },
    tag: "Sandbox",
    sandboxOnly: true,
    summary:
      "Sandbox: records a token transfer on the simulated chain; irreversible after SANDBOX_CHAIN_FINALITY_SEC (until then chain confirm answers 425).",
    body: SandboxTransferInput,
    response: SandboxTransfer,
    successStatus: 200,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, body }) => billing.sandboxChainTransfer(ctx, body),
  }),
];
