/** Billing and self-service signup (issue 9): one module per flow, re-exported for the doors. */
export { BILLING, type PublicContext } from "./public";
export { startSignupEmail, confirmSignupEmail, checkout } from "./signup";
export { completeSandboxCheckout, revealCheckout, checkoutStatus } from "./settle";
export { confirmChainPayment, sandboxChainTransfer } from "./chain-payment";
export { usage, upgrade, portal } from "./subscription";
export { receivePaymentNotification } from "./webhook";
export { advisePlan } from "./advise";
export { listPlans } from "./plans";
export { Advice, AdviseInput, BillingEmailConfirmInput, BillingEmailProof, BillingEmailStartInput, BillingEmailStarted, ChainConfirmInput, ChainConfirmed, CheckoutInput, CheckoutResult, CheckoutRevealed, CheckoutSettled, CheckoutStatus, PlanCatalog, PortalSession, SandboxTransfer, SandboxTransferInput, SessionInput, SessionParams, UpgradeStarted, Usage, WebhookReceived } from "./billing.schema";
