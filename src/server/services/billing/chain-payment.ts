import { Asset } from "@wharfkit/antelope";
import { env } from "@/env";
import type { ServiceContext } from "../../context";
import { AppError, conflict, notFound } from "../../errors";
import { chainAdapter, createSimulatedChain, usesSimulatedChain } from "../../providers/chain";
import { appendAudit } from "../audit";
import { limitPublicCall, type PublicContext } from "./public";
import { afterSettled, assertCheckoutProof, auditKeysHandedOut, findSession, KEY_WARNING, settleCheckout } from "./settle";

const notVerified = (reason: string, message: string) => new AppError("PAYMENT_NOT_VERIFIED", message, { reason });

/** True when `paid` is the same token (symbol and precision) and at least `due`. */
function covers(paid: string, due: string): boolean {
  try {
    const p = Asset.from(paid);
    const d = Asset.from(due);
    return p.symbol.equals(d.symbol) && BigInt(p.units.toString()) >= BigInt(d.units.toString());
  } catch {
    return false;
  }
}

/**
 * POST /v1/billing/chain/confirm: verifies, through the chain adapter, a token transfer to the
 * treasury carrying this checkout's memo (from `account` when given), waits for finality (425
 * until irreversible), then provisions in one transaction and answers the key once, as the
 * contract says. The memo is public on chain but the session id is not: it is a 192-bit secret
 * only the buyer holds (docs/security.md, "Checkout keys without the email proof"). An email proof,
 * when sent, must be this checkout's.
 */
export async function confirmChainPayment(
  pub: PublicContext,
  input: { sessionId: string; transactionId: string; account?: string; emailProofToken?: string },
) {
  await limitPublicCall(pub, "poll");
  const session = await findSession(pub.db, input.sessionId);
  // The proof and the session's link to it never change, so checking before the transaction holds.
  const proof = input.emailProofToken;
  if (proof !== undefined) await assertCheckoutProof(pub.db, session, proof);
  if (session.status === "provisioned") throw conflict("already_provisioned", "This checkout is already provisioned.");
  if (session.status !== "awaiting_payment" && session.status !== "expired") {
    throw conflict("not_awaiting_payment", `This checkout is ${session.status}, not awaiting payment.`);
  }
  if (!session.memo || !session.treasury || !session.amount) {
    throw notVerified("chain_payment_unavailable", "This checkout takes no on-chain payment.");
  }
  const txId = input.transactionId.trim().toLowerCase();
  const used = await pub.db.checkoutSession.findUnique({ where: { transactionId: txId }, select: { id: true } });
  if (used) throw conflict("transaction_used", "This transaction already paid for a checkout.");

  const transfer = await chainAdapter(pub.db).getTransfer(txId);
  if (!transfer) throw notVerified("transfer_not_found", "No token transfer was found for this transaction id.");
  if (transfer.to !== session.treasury) throw notVerified("wrong_recipient", "The transfer does not go to the treasury account.");
  if (transfer.memo !== session.memo) throw notVerified("wrong_memo", "The transfer does not carry this checkout's memo.");
  if (!covers(transfer.quantity, session.amount)) throw notVerified("wrong_amount", `The transfer does not cover ${session.amount}.`);
  if (input.account && transfer.from !== input.account)
    throw notVerified("wrong_sender", "The transfer does not come from the given account.");
  if (!transfer.irreversible) {
    const retryAfterSec = usesSimulatedChain() ? Math.max(1, env().SANDBOX_CHAIN_FINALITY_SEC) : 3;
    throw new AppError(
      "TRANSFER_REVERSIBLE",
      "The transfer is seen but still reversible; retry shortly.",
      { retryAfterSec },
      {
        "Retry-After": String(retryAfterSec),
      },
    );
  }

  const settled = await pub.db.$transaction(async (tx) => {
    const out = await settleCheckout(tx, session.id, { via: "chain", transactionId: txId }, { handOut: true });
    if (out.secrets)
      await auditKeysHandedOut(tx, pub, session.id, out.organizationId, { via: "chain_confirm", withProof: proof !== undefined });
    return out;
  });
  afterSettled(settled);
  return {
    sessionId: settled.session.id,
    status: "provisioned" as const,
    plan: settled.plan,
    organizationId: settled.organizationId,
    upgraded: settled.upgraded,
    transactionId: txId,
    revealAvailable: !settled.upgraded && !settled.secrets,
    ...(settled.secrets ? { ...settled.secrets, warning: KEY_WARNING } : {}),
  };
}

/** POST /v1/sandbox/chain/transfer: a transfer on the simulated chain, irreversible after SANDBOX_CHAIN_FINALITY_SEC. */
export async function sandboxChainTransfer(ctx: ServiceContext, input: { from: string; to: string; quantity: string; memo: string }) {
  if (!usesSimulatedChain()) throw notFound("The simulated chain");
  return ctx.db.$transaction(async (tx) => {
    const { transactionId } = await createSimulatedChain(tx).recordTransfer(input);
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "sandbox.chain_transfer",
        subjectType: "chain_transaction",
        subject: transactionId,
        data: { from: input.from, to: input.to, quantity: input.quantity },
      },
    );
    return { transactionId };
  });
}
