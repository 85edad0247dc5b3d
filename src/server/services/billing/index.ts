/** Billing and self-service signup: one module per flow, re-exported for the doors. */

export { advisePlan } from "./advise";
export {
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
} from "./billing.schema";
export { confirmChainPayment, sandboxChainTransfer } from "./chain-payment";
export { BillingHistory, BillingInvoices } from "./console.schema";
export { usageHistory } from "./history";
export { listInvoices } from "./invoices";
export { billingOverview } from "./overview";
export { listPlans } from "./plans";
export type { PublicContext } from "./public";
export { checkoutStatus, completeSandboxCheckout, revealCheckout } from "./settle";
export { checkout, confirmSignupEmail, startSignupEmail } from "./signup";
export { portal, upgrade, usage } from "./subscription";
export { receivePaymentNotification } from "./webhook";
