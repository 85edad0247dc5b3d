import { env } from "@/env";
import type { Plan } from "@/generated/prisma/enums.ts";
import { randomToken } from "../../crypto/hash";
import { maskEmail } from "../../platform/contact-address";
import { PLANS } from "../../platform/plans";
import { paymentSettings, payments } from "../../providers/payments";
import { appendAudit } from "../audit";
import { confirmChallenge, issueProofToken, OTP, spendProofToken, startChallenge, usableProofToken } from "../contacts";
import { provisionOrganization } from "../org";
import { BILLING, limitPublicCall, newCheckoutId, type PublicContext, workEmail } from "./public";
import { KEY_WARNING, SIGNUP_ACTOR } from "./settle";

/** POST /v1/billing/email/otp/start: a code to a work address (sends capped per address and per IP, docs/api/contract-decisions.md §4). */
export async function startSignupEmail(pub: PublicContext, input: { email: string }) {
  await limitPublicCall(pub);
  const email = workEmail(input.email);
  const { challenge, devCode } = await startChallenge(pub.db, {
    orgId: null,
    purpose: "billing_signup",
    channel: "email",
    address: email,
    clientIp: pub.clientIp,
    message: (code) => ({
      subject: `Your Bind Identity signup code: ${code}`,
      text: `Your code to confirm this address for a Bind Identity signup is ${code}. It expires in ${OTP.ttlSec / 60} minutes. If you did not ask for it, ignore this message.`,
    }),
  });
  return {
    challengeId: challenge.id,
    expiresAt: challenge.expiresAt.toISOString(),
    emailMasked: maskEmail(email),
    ...(devCode ? { devCode } : {}),
  };
}

/** POST /v1/billing/email/otp/confirm: trades the code for an emailProofToken that one checkout accepts. */
export async function confirmSignupEmail(pub: PublicContext, input: { challengeId: string; code: string }) {
  await limitPublicCall(pub);
  const challenge = await confirmChallenge(pub.db, { orgId: null, purpose: "billing_signup", channel: "email", ...input });
  const proof = await issueProofToken(pub.db, challenge);
  return { emailProofToken: proof.token, expiresInSec: proof.expiresInSec, emailMasked: maskEmail(challenge.address) };
}

/** A public signup's email proof: no organization yet, and minted for signup only. */
const SIGNUP_PROOF = { orgId: null, channel: "email", purpose: "billing_signup" } as const;

export type CheckoutInput = {
  emailProofToken: string;
  plan: Plan;
  organizationName: string;
  expectedMonthlyVerifications?: number;
  message?: string;
};

const expiry = () => new Date(Date.now() + BILLING.checkoutTtlSec * 1000);
const memo = () =>
  `bi-${randomToken(9)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "0")}`;

/** Where a card checkout sends the buyer back; the session id lets the page poll and reveal. */
export function returnUrls(sessionId: string) {
  const base = env().BI_PUBLIC_URL;
  return { successUrl: `${base}/billing/return?session=${sessionId}`, cancelUrl: `${base}/billing/return?session=${sessionId}&canceled=1` };
}

/** The chain payment of a Growth checkout: treasury, memo and amount (null when not offered). */
export function chainTerms() {
  const chain = paymentSettings().chain;
  return chain ? { treasury: chain.treasury, memo: memo(), amount: chain.priceGrowth } : null;
}

/**
 * POST /v1/billing/checkout. Builder: provisioned at once (201, key and console password in the
 * answer). Growth: a pending checkout payable by card (checkoutUrl) or by chain transfer
 * (chainPayment). Institutional: a stored sales lead. Every path spends the email proof.
 */
export async function checkout(pub: PublicContext, input: CheckoutInput) {
  await limitPublicCall(pub);
  const entry = PLANS[input.plan];
  if (entry.checkout === "instant") return checkoutInstant(pub, input);
  if (entry.checkout === "sales") return checkoutSalesLead(pub, input);

  // The provider is called before anything is written, so a provider failure leaves the proof
  // unspent for a retry; an abandoned provider session just expires there.
  const proof = await usableProofToken(pub.db, SIGNUP_PROOF, input.emailProofToken);
  const sessionId = newCheckoutId();
  const card = await payments().createCheckout({ checkoutId: sessionId, email: proof.address, ...returnUrls(sessionId) });
  const chain = chainTerms();
  await pub.db.$transaction(async (tx) => {
    const spent = await spendProofToken(tx, SIGNUP_PROOF, input.emailProofToken);
    await tx.checkoutSession.create({
      data: {
        id: sessionId,
        email: spent.address,
        plan: "growth",
        organizationName: input.organizationName,
        status: "awaiting_payment",
        proofTokenId: spent.id,
        paymentSessionId: card.paymentSessionId,
        checkoutUrl: card.checkoutUrl,
        memo: chain?.memo,
        amount: chain?.amount,
        treasury: chain?.treasury,
        expiresAt: expiry(),
      },
    });
  });
  return { sessionId, status: "awaiting_payment" as const, plan: "growth" as const, checkoutUrl: card.checkoutUrl, chainPayment: chain };
}

async function checkoutInstant(pub: PublicContext, input: CheckoutInput) {
  const out = await pub.db.$transaction(async (tx) => {
    const spent = await spendProofToken(tx, SIGNUP_PROOF, input.emailProofToken);
    const provisioned = await provisionOrganization(
      tx as never,
      { name: input.organizationName, email: spent.address, plan: "builder" },
      SIGNUP_ACTOR,
      tx,
    );
    const session = await tx.checkoutSession.create({
      data: {
        id: newCheckoutId(),
        email: spent.address,
        plan: "builder",
        organizationName: input.organizationName,
        status: "provisioned",
        proofTokenId: spent.id,
        orgId: provisioned.organizationId,
        provisionedAt: new Date(),
        // Handed out in this answer (and its idempotent replay, stored sealed): nothing to reveal later.
        revealedAt: new Date(),
        expiresAt: expiry(),
      },
    });
    await appendAudit(
      tx,
      { orgId: provisioned.organizationId, actor: SIGNUP_ACTOR },
      {
        action: "billing.checkout_settled",
        subjectType: "checkout_session",
        subject: session.id,
        data: { plan: "builder", via: "instant" },
      },
    );
    return { session, provisioned };
  });
  return {
    sessionId: out.session.id,
    status: "provisioned" as const,
    plan: "builder" as const,
    organizationId: out.provisioned.organizationId,
    apiKey: out.provisioned.apiKey,
    consolePassword: out.provisioned.consolePassword,
    warning: KEY_WARNING,
  };
}

async function checkoutSalesLead(pub: PublicContext, input: CheckoutInput) {
  const session = await pub.db.$transaction(async (tx) => {
    const spent = await spendProofToken(tx, SIGNUP_PROOF, input.emailProofToken);
    const created = await tx.checkoutSession.create({
      data: {
        id: newCheckoutId(),
        email: spent.address,
        plan: "institutional",
        organizationName: input.organizationName,
        status: "sales_lead",
        proofTokenId: spent.id,
        expiresAt: expiry(),
      },
    });
    await tx.salesLead.create({
      data: {
        sessionId: created.id,
        email: spent.address,
        organizationName: input.organizationName,
        expectedMonthlyVerifications: input.expectedMonthlyVerifications,
        message: input.message,
      },
    });
    return created;
  });
  return { sessionId: session.id, status: "sales_lead" as const, plan: "institutional" as const };
}
