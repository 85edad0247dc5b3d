"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { z } from "zod";
import { ApiError, billingCall, type CheckoutStatus, errorText, rememberCheckoutProof, statusOf } from "@/components/billing/checkout-api";
import { Badge } from "@/components/ui/badge";
import type { ChainConfirmed, CheckoutRevealed } from "@/server/services/billing";
import type { Secrets } from "./key-reveal";
import { QrCode } from "./qr-code";
import type { ChainPayment, SignupState } from "./signup-state";
import { CopyRow, checks, ErrorNote, FieldError, Spinner, useSending } from "./signup-ui";

type Update = (patch: Partial<SignupState>) => void;

/** Where a chain confirmation stands: sending, seen but reversible (retrying by itself), or refused. */
type Confirm =
  | { kind: "idle" }
  | { kind: "checking" }
  | { kind: "waiting"; reason: "reversible" | "busy"; retryInSec: number; attempt: number }
  | { kind: "failed"; text: string };

/** Backoff of the automatic retries: at least what Retry-After asks, doubling from 2 s up to 30 s. */
const retryDelaySec = (attempt: number, retryAfterSec: number | null) => Math.max(retryAfterSec ?? 0, Math.min(30, 2 ** (attempt + 1)));

function StatusLine({ status, confirm }: { status: CheckoutStatus | null; confirm: Confirm }) {
  let tone: "slate" | "amber" | "green" | "red" = "slate";
  let label = "Checking…";
  let text = "Reading the status of your checkout.";
  if (confirm.kind === "waiting" && confirm.reason === "reversible") {
    tone = "amber";
    label = "Payment seen";
    text = "Payment seen, waiting until it is irreversible. This page checks again by itself; keep it open.";
  } else if (status?.status === "awaiting_payment") {
    tone = "amber";
    label = "Awaiting payment";
    text = status.expiresAt
      ? `Nothing is paid yet. This checkout stays open until ${new Date(status.expiresAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}.`
      : "Nothing is paid yet.";
  } else if (status?.status === "provisioned") {
    tone = "green";
    label = "Paid";
    text = "Your payment is settled and your organization exists.";
  } else if (status?.status === "expired") {
    tone = "red";
    label = "Expired";
    text = "This checkout expired unpaid. A payment made for it still counts; otherwise start again.";
  }
  return (
    <div role="status" aria-live="polite" data-testid="payment-status" className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
      <Badge tone={tone}>{label}</Badge>
      <span>{text}</span>
    </div>
  );
}

function ChainTerms({ terms }: { terms: ChainPayment }) {
  const rows = [
    { label: "Treasury account (to)", value: terms.treasury, copy: "Copy account", qr: "QR code of the treasury account" },
    { label: "Memo", value: terms.memo, copy: "Copy memo", qr: "QR code of the memo" },
    { label: "Amount", value: terms.amount, copy: "Copy amount", qr: "QR code of the amount" },
  ];
  return (
    <div className="space-y-3">
      {rows.map((r) => (
        <div key={r.label} className="flex items-start gap-3 rounded-lg border border-slate-200 bg-white p-3 sm:items-center">
          <div className="min-w-0 flex-1 sm:order-2">
            <CopyRow label={r.label} value={r.value} copyLabel={r.copy} testId={`chain-${r.label.split(" ")[0]!.toLowerCase()}`} />
          </div>
          <QrCode value={r.value} label={r.qr} className="h-20 w-20 rounded border border-slate-100 sm:order-1 sm:h-24 sm:w-24" />
        </div>
      ))}
    </div>
  );
}

/** Step 3 for Growth: pay by card (the provider's page, then /billing/return) or by token transfer, confirmed here. */
export function PaymentStep({
  state,
  update,
  onRevealed,
  onShownElsewhere,
  onRestart,
}: {
  state: SignupState;
  update: Update;
  onRevealed: (s: Secrets) => void;
  onShownElsewhere: (organizationId: string | null) => void;
  onRestart: () => void;
}) {
  const sessionId = state.sessionId!;
  const proof = state.emailProofToken;
  const [status, setStatus] = useState<CheckoutStatus | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Confirm>({ kind: "idle" });
  const [txId, setTxId] = useState(state.transactionId ?? "");
  const [payer, setPayer] = useState(state.payer ?? "");
  const [touched, setTouched] = useState(false);
  const confirming = useRef(false);
  const retryTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const card = useSending();
  const revealing = useSending();
  const [revealError, setRevealError] = useState<string | null>(null);

  // The status line stays true: poll while the checkout waits for its payment.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = () =>
      statusOf(sessionId).then(
        (s) => {
          if (stopped) return;
          setStatus(s);
          setStatusError(null);
          if (s.status === "awaiting_payment") timer = setTimeout(poll, 4000);
        },
        (e) => {
          if (stopped) return;
          setStatusError(errorText(e));
          timer = setTimeout(poll, e instanceof ApiError && e.retryAfterSec ? e.retryAfterSec * 1000 : 8000);
        },
      );
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [sessionId]);

  useEffect(() => () => clearTimeout(retryTimer.current), []);

  // Back from the card page, the browser may restore this page as it was left: busy opening the checkout.
  const resetCard = card.reset;
  useEffect(() => {
    const onShow = (e: PageTransitionEvent) => e.persisted && resetCard();
    window.addEventListener("pageshow", onShow);
    return () => window.removeEventListener("pageshow", onShow);
  }, [resetCard]);

  // Paid, and its key already shown (or this tab lost the proof): say so instead of offering a reveal.
  const confirmIdle = confirm.kind === "idle" || confirm.kind === "failed";
  useEffect(() => {
    if (status?.status === "provisioned" && confirmIdle && (!status.revealAvailable || !proof)) {
      onShownElsewhere(status.organizationId);
    }
  }, [status, proof, confirmIdle, onShownElsewhere]);

  const attempt = useCallback(
    async (n: number, transactionId: string, account: string) => {
      setConfirm({ kind: "checking" });
      try {
        const out = await billingCall<z.infer<typeof ChainConfirmed>>("/v1/billing/chain/confirm", {
          sessionId,
          transactionId,
          ...(account ? { account } : {}),
          ...(proof ? { emailProofToken: proof } : {}),
        });
        if (out.apiKey && out.consolePassword) {
          onRevealed({
            apiKey: out.apiKey,
            consolePassword: out.consolePassword,
            organizationId: out.organizationId,
          });
        } else {
          // Settled without handing the key out: the status poll offers the one reveal.
          confirming.current = false;
          setConfirm({ kind: "idle" });
          setStatus(await statusOf(sessionId));
        }
      } catch (e) {
        const retriable = e instanceof ApiError && (e.status === 425 || e.status === 429 || e.status === 503 || e.status === 0);
        if (retriable && n < 60) {
          const wait = retryDelaySec(n, e.retryAfterSec);
          setConfirm({ kind: "waiting", reason: e.status === 425 ? "reversible" : "busy", retryInSec: wait, attempt: n + 1 });
          retryTimer.current = setTimeout(() => void attempt(n + 1, transactionId, account), wait * 1000);
          return;
        }
        confirming.current = false;
        setConfirm({ kind: "failed", text: errorText(e) });
        update({ transactionId: undefined, payer: undefined });
      }
    },
    [sessionId, proof, onRevealed, update],
  );

  // After a reload in the middle of a confirmation, carry on with the same transfer.
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current || !state.transactionId || confirming.current) return;
    resumed.current = true;
    confirming.current = true;
    void attempt(0, state.transactionId, state.payer ?? "");
  }, [state.transactionId, state.payer, attempt]);

  const txProblem = checks.transactionId(txId);
  const payerProblem = checks.account(payer);

  function submitChain(e: React.FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (txProblem || payerProblem || confirming.current) return;
    confirming.current = true;
    resumed.current = true;
    const transactionId = txId.trim();
    const account = payer.trim();
    update({ transactionId, payer: account || undefined });
    void attempt(0, transactionId, account);
  }

  function payByCard() {
    void card.run(async () => {
      if (!state.checkoutUrl || !proof) return;
      // The return page reveals the key only in the tab that holds the proof this checkout spent.
      rememberCheckoutProof(sessionId, proof);
      window.location.assign(state.checkoutUrl);
      return "keep";
    });
  }

  function reveal() {
    void revealing.run(async () => {
      if (!proof) return;
      setRevealError(null);
      try {
        const out = await billingCall<z.infer<typeof CheckoutRevealed>>("/v1/billing/checkout/reveal", {
          sessionId,
          emailProofToken: proof,
        });
        onRevealed(out);
      } catch (e) {
        setRevealError(errorText(e));
      }
    });
  }

  const busyConfirming = confirm.kind === "checking" || confirm.kind === "waiting";
  const paid = status?.status === "provisioned";

  return (
    <div className="space-y-6">
      <div>
        <h2 className="text-xl font-semibold tracking-tight">Pay for Growth</h2>
        <p className="mt-1 text-sm text-slate-600">
          {state.organizationName.trim()} · {state.emailMasked}. Pay by card or with a token transfer; your API key appears as soon as the
          payment settles.
        </p>
      </div>
      <StatusLine status={status} confirm={confirm} />
      {statusError ? <p className="text-sm text-slate-500">The status could not be refreshed: {statusError}</p> : null}

      {paid && status.revealAvailable && proof ? (
        <div className="rounded-lg border border-emerald-200 bg-emerald-50 p-4">
          <p className="text-sm text-emerald-900">Your payment is settled. Your API key and console password can be shown once, here.</p>
          {revealError ? (
            <div className="mt-3">
              <ErrorNote>{revealError}</ErrorNote>
            </div>
          ) : null}
          <button type="button" className="btn-primary mt-3" onClick={reveal} disabled={revealing.busy}>
            {revealing.busy ? "Showing…" : "Show my API key (once)"}
          </button>
        </div>
      ) : null}

      {status?.status === "expired" ? (
        <button type="button" className="btn-secondary" onClick={onRestart}>
          Start a new signup
        </button>
      ) : null}

      {!paid ? (
        <>
          <section aria-labelledby="pay-card" className="rounded-lg border border-slate-200 p-3 sm:p-4">
            <h3 id="pay-card" className="font-semibold">
              Pay by card
            </h3>
            <p className="mt-1 text-sm text-slate-600">
              You continue on our payment provider&apos;s secure page and come back to a page that shows your key once, in this browser tab.
            </p>
            <button type="button" className="btn-primary mt-3" onClick={payByCard} disabled={card.busy || busyConfirming || !proof}>
              {card.busy ? "Opening the checkout…" : "Pay by card"}
            </button>
          </section>

          {state.chainPayment ? (
            <section aria-labelledby="pay-chain" className="space-y-4 rounded-lg border border-slate-200 p-3 sm:p-4">
              <div>
                <h3 id="pay-chain" className="font-semibold">
                  Or pay on chain
                </h3>
                <p className="mt-1 text-sm text-slate-600">
                  Send exactly this transfer from your wallet. The memo ties the payment to this checkout: without it we cannot find your
                  payment.
                </p>
              </div>
              <ChainTerms terms={state.chainPayment} />
              <form onSubmit={submitChain} noValidate className="space-y-4 border-t border-slate-200 pt-4">
                <p className="text-sm text-slate-700">Once the transfer is sent, paste its transaction id.</p>
                <div className="grid gap-4 sm:grid-cols-[2fr_1fr]">
                  <div className="min-w-0">
                    <label htmlFor="signup-tx" className="label">
                      Transaction id
                    </label>
                    <input
                      id="signup-tx"
                      className="field font-mono"
                      autoComplete="off"
                      spellCheck={false}
                      value={txId}
                      disabled={busyConfirming}
                      onChange={(e) => {
                        setTxId(e.target.value);
                        setTouched(true);
                        if (confirm.kind === "failed") setConfirm({ kind: "idle" });
                      }}
                      aria-invalid={touched && txProblem ? true : undefined}
                      aria-describedby={touched && txProblem ? "signup-tx-error" : undefined}
                    />
                    <FieldError id="signup-tx-error" text={touched ? txProblem : null} />
                  </div>
                  <div className="min-w-0">
                    <label htmlFor="signup-payer" className="label">
                      Paying account <span className="font-normal text-slate-500">(optional)</span>
                    </label>
                    <input
                      id="signup-payer"
                      className="field font-mono"
                      autoComplete="off"
                      spellCheck={false}
                      placeholder="youraccount"
                      value={payer}
                      disabled={busyConfirming}
                      onChange={(e) => setPayer(e.target.value)}
                      aria-invalid={payerProblem ? true : undefined}
                      aria-describedby={payerProblem ? "signup-payer-error" : undefined}
                    />
                    <FieldError id="signup-payer-error" text={payerProblem} />
                  </div>
                </div>
                {confirm.kind === "failed" ? <ErrorNote>{confirm.text}</ErrorNote> : null}
                {confirm.kind === "waiting" ? (
                  <p className="flex items-center gap-2 text-sm text-amber-900" data-testid="confirm-waiting">
                    <Spinner />
                    {confirm.reason === "reversible"
                      ? `Payment seen, waiting until it is irreversible. Checking again in ${confirm.retryInSec} s.`
                      : `The service is busy. Trying again in ${confirm.retryInSec} s.`}
                  </p>
                ) : null}
                <button type="submit" className="btn-primary py-2.5" disabled={busyConfirming || card.busy}>
                  {busyConfirming ? <Spinner /> : null}
                  {confirm.kind === "checking" ? "Checking the transfer…" : confirm.kind === "waiting" ? "Waiting…" : "Confirm my payment"}
                </button>
              </form>
            </section>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
