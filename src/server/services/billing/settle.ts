import type { CheckoutSession } from "@/generated/prisma/client.ts";
import { constantTimeEqual, sha256Hex } from "../../crypto/hash";
import { open, seal } from "../../crypto/secret-box";
import type { Tx } from "../../db/client";
import { conflict, forbidden, notFound, rateLimited } from "../../errors";
import { orgChanged } from "../../platform/auth-cache";
import { maskEmail } from "../../platform/contact-address";
import { hitWindow } from "../../platform/rate-limit";
import { appendAudit, uniqueKeyTaken } from "../audit";
import { provisionOrganization } from "../org";
import type { PublicContext } from "./public";
import { BILLING, limitPublicCall } from "./public";

export const SIGNUP_ACTOR = { type: "system", label: "billing" } as const;
export const KEY_WARNING = "Store the API key and console password now: they are shown once and cannot be recovered.";

/** How a pending checkout was paid; a card payment's `eventAt` is when the provider created its event. */
export type Settlement =
  | { via: "card"; customerId: string | null; subscriptionId: string | null; eventAt: Date }
  | { via: "chain"; transactionId: string }
  | { via: "sandbox" };

export type Settled = {
  session: CheckoutSession;
  organizationId: string;
  plan: "growth";
  upgraded: boolean;
  /** Present only when the caller hands them out itself (chain confirm); else sealed for one reveal. */
  secrets?: { apiKey: string; consolePassword: string };
};

export async function findSession(db: PublicContext["db"] | Tx, sessionId: string): Promise<CheckoutSession> {
  const session = await db.checkoutSession.findUnique({ where: { id: sessionId } });
  if (!session) throw notFound("Checkout session");
  return session;
}

/**
 * Refuses unless `token` is the email proof this checkout spent. The session id travels in URLs
 * (the return page, the card provider's success_url) and the chain memo is public, so neither may
 * unlock the key; the proof stays with the client that started the checkout, never in a URL.
 * Only the proof's hash is stored, and it is compared whatever the proof's expiry or use: this
 * checkout spent it.
 * A checkout without a proof (an upgrade, started with the organization's key) matches nothing.
 */
export async function assertCheckoutProof(db: PublicContext["db"] | Tx, session: Pick<CheckoutSession, "proofTokenId">, token: string) {
  const proof = session.proofTokenId
    ? await db.proofToken.findUnique({ where: { id: session.proofTokenId }, select: { tokenHash: true } })
    : null;
  if (!constantTimeEqual(sha256Hex(token), proof?.tokenHash ?? "")) {
    throw forbidden(
      "checkout_proof_mismatch",
      "The API key and console password are shown only with the email proof that started this checkout.",
    );
  }
}

/**
 * Turns a pending Growth checkout into a provisioned organization (signup) or a paid plan
 * (upgrade), inside the caller's transaction. The move out of `awaiting_payment` is one
 * conditional UPDATE, so concurrent settlements of one checkout provision exactly once; a chain
 * transaction id is unique across checkouts, so one transfer pays once.
 */
export async function settleCheckout(tx: Tx, sessionId: string, s: Settlement, opts: { handOut: boolean }): Promise<Settled> {
  const now = new Date();
  let moved: { count: number };
  try {
    moved = await tx.checkoutSession.updateMany({
      // A payment that arrives after the checkout was shown as expired still settles: the money moved.
      where: { id: sessionId, status: { in: ["awaiting_payment", "expired"] } },
      data: {
        status: "provisioned",
        provisionedAt: now,
        ...(s.via === "chain" ? { transactionId: s.transactionId } : {}),
        ...(s.via === "card" ? { paymentCustomerId: s.customerId, paymentSubscriptionId: s.subscriptionId } : {}),
      },
    });
  } catch (err) {
    if (uniqueKeyTaken(err)) throw conflict("transaction_used", "This transaction already paid for another checkout.");
    throw err;
  }
  const session = await findSession(tx, sessionId);
  if (moved.count === 0) {
    if (session.status === "provisioned") throw conflict("already_provisioned", "This checkout is already provisioned.");
    throw conflict("not_awaiting_payment", `This checkout is ${session.status}, not awaiting payment.`);
  }
  const customerId = s.via === "card" ? s.customerId : null;
  // From now on this checkout's subscription is the one that pays, and only its events newer than
  // this payment move the plan. A chain or sandbox payment has no subscription: events of an
  // earlier card subscription then no longer concern the plan this payment bought.
  const paidBy =
    s.via === "card" && s.subscriptionId
      ? { paymentSubscriptionId: s.subscriptionId, paymentSubscriptionEventAt: s.eventAt }
      : { paymentSubscriptionId: null, paymentSubscriptionEventAt: null };
  const audit = { action: "billing.checkout_settled", subjectType: "checkout_session", subject: session.id };
  const auditData = {
    plan: "growth",
    via: s.via,
    ...(s.via === "chain" ? { transactionId: s.transactionId } : {}),
    ...(s.via === "card" ? { subscriptionId: s.subscriptionId } : {}),
  };

  if (session.purpose === "upgrade" && session.orgId) {
    const org = await tx.organization.findUniqueOrThrow({ where: { id: session.orgId } });
    await tx.organization.update({
      where: { id: org.id },
      data: { plan: "growth", ...(customerId ? { paymentCustomerId: customerId } : {}), ...paidBy },
    });
    await appendAudit(tx, { orgId: org.id, actor: SIGNUP_ACTOR }, { ...audit, data: { ...auditData, from: org.plan, to: "growth" } });
    return { session, organizationId: org.id, plan: "growth", upgraded: true };
  }

  // The first argument is only used when no transaction is given; here it always is.
  const out = await provisionOrganization(
    tx as never,
    { name: session.organizationName, email: session.email, plan: "growth" },
    SIGNUP_ACTOR,
    tx,
  );
  if (s.via === "card") {
    await tx.organization.update({
      where: { id: out.organizationId },
      data: { ...(customerId ? { paymentCustomerId: customerId } : {}), ...paidBy },
    });
  }
  const secrets = { apiKey: out.apiKey, consolePassword: out.consolePassword };
  await tx.checkoutSession.update({
    where: { id: session.id },
    data: { orgId: out.organizationId, ...(opts.handOut ? { revealedAt: now } : { revealPayloadEnc: seal(JSON.stringify(secrets)) }) },
  });
  await appendAudit(tx, { orgId: out.organizationId, actor: SIGNUP_ACTOR }, { ...audit, data: auditData });
  return { session, organizationId: out.organizationId, plan: "growth", upgraded: false, ...(opts.handOut ? { secrets } : {}) };
}

/** Runs after the settling transaction commits: an upgraded plan's quota applies from the next request. */
export function afterSettled(settled: Settled): void {
  if (settled.upgraded) orgChanged(settled.organizationId);
}

const settledView = (s: Settled) => ({
  sessionId: s.session.id,
  status: "provisioned" as const,
  plan: s.plan,
  organizationId: s.organizationId,
  upgraded: s.upgraded,
  revealAvailable: !s.upgraded,
});

/** POST /v1/billing/checkout/complete (sandbox only): settles a pending Growth checkout as a paid card would. */
export async function completeSandboxCheckout(pub: PublicContext, input: { sessionId: string }) {
  await limitPublicCall(pub);
  const settled = await pub.db.$transaction((tx) => settleCheckout(tx, input.sessionId, { via: "sandbox" }, { handOut: false }));
  afterSettled(settled);
  return settledView(settled);
}

/** The audit entry of a signup's key leaving the service (reveal or chain confirm), in the caller's transaction. */
export async function auditKeysHandedOut(
  tx: Tx,
  pub: PublicContext,
  sessionId: string,
  orgId: string,
  how: { via: "reveal" | "chain_confirm"; withProof: boolean },
) {
  await appendAudit(
    tx,
    { orgId, actor: SIGNUP_ACTOR },
    {
      action: "billing.keys_revealed",
      subjectType: "checkout_session",
      subject: sessionId,
      data: { clientIp: pub.clientIp, via: how.via, withEmailProof: how.withProof },
    },
  );
}

/**
 * POST /v1/billing/checkout/reveal: the API key and console password, once. The session id alone
 * is enough within BILLING.revealWindowSec of settlement (the contract's request); with the email
 * proof that started the checkout, at any time until the one reveal (docs/security.md, "Checkout
 * keys without the email proof"). The sealed payload is read and erased under a row lock, so two
 * concurrent reveals cannot both see it; a wrong proof is refused before it is read.
 */
export async function revealCheckout(pub: PublicContext, input: { sessionId: string; emailProofToken?: string }) {
  await limitPublicCall(pub);
  const perSession = await hitWindow(pub.db, `billing-reveal:session:${input.sessionId}`, BILLING.revealsPerSessionHour, 3600, pub.now());
  if (perSession.exceeded)
    throw rateLimited(perSession.resetSec, "Too many reveal attempts for this checkout; retry after the window resets.");
  return pub.db.$transaction(async (tx) => {
    const session = await findSession(tx, input.sessionId);
    await tx.$queryRaw`SELECT id FROM checkout_sessions WHERE id = ${session.id} FOR UPDATE`;
    const row = await tx.checkoutSession.findUniqueOrThrow({ where: { id: session.id } });
    // An upgrade has no proof and never any keys to show; saying so tells no more than the status poll.
    if (row.purpose === "upgrade")
      throw conflict("nothing_to_reveal", "An upgrade keeps the organization's keys; there is nothing to reveal.");
    if (input.emailProofToken !== undefined) await assertCheckoutProof(tx, row, input.emailProofToken);
    if (row.status !== "provisioned") throw conflict("not_provisioned", `This checkout is ${row.status}; there is nothing to reveal.`);
    if (!row.revealPayloadEnc || !row.orgId)
      throw conflict("already_revealed", "The keys of this checkout were already revealed; they are shown once.");
    const settledAt = row.provisionedAt ?? row.updatedAt;
    if (input.emailProofToken === undefined && pub.now().getTime() - settledAt.getTime() > BILLING.revealWindowSec * 1000) {
      throw forbidden(
        "reveal_window_passed",
        `Without the email proof the keys are shown only in the ${BILLING.revealWindowSec / 60} minutes after payment; send the emailProofToken that started this checkout.`,
      );
    }
    const secrets = JSON.parse(open(row.revealPayloadEnc)) as { apiKey: string; consolePassword: string };
    await tx.checkoutSession.update({ where: { id: row.id }, data: { revealPayloadEnc: null, revealedAt: new Date() } });
    await auditKeysHandedOut(tx, pub, row.id, row.orgId, { via: "reveal", withProof: input.emailProofToken !== undefined });
    return { sessionId: row.id, organizationId: row.orgId, ...secrets, warning: KEY_WARNING };
  });
}

/** GET /v1/billing/checkout/{sessionId}: status with a masked email, never a key. */
export async function checkoutStatus(pub: PublicContext, sessionId: string) {
  await limitPublicCall(pub, "poll");
  const s = await findSession(pub.db, sessionId);
  const expired = s.status === "awaiting_payment" && s.expiresAt <= pub.now();
  return {
    sessionId: s.id,
    status: expired ? ("expired" as const) : s.status,
    plan: s.plan,
    purpose: s.purpose,
    emailMasked: maskEmail(s.email),
    organizationId: s.orgId,
    revealAvailable: s.revealPayloadEnc !== null,
    expiresAt: s.expiresAt.toISOString(),
  };
}
