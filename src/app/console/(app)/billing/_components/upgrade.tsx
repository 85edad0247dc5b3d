"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Plan = RouterOutputs["billing"]["overview"]["plan"];
type Started = RouterOutputs["billing"]["upgrade"];

const n = (v: number) => v.toLocaleString();
export const priceText = (p: Plan) =>
  p.priceUsdMonthly === null ? "Priced by contract" : p.priceUsdMonthly === 0 ? "Free" : `$${n(p.priceUsdMonthly)} a month`;
export const verificationsText = (p: Plan) =>
  p.verificationsPerMonth === null ? "No monthly cap (by contract)" : `${n(p.verificationsPerMonth)} a month`;

/** Builder → Growth: what changes, when, and the two ways to pay (card checkout, or a chain transfer). */
export function Upgrade({ from, to }: { from: Plan; to: Plan }) {
  const client = useTRPCClient();
  // One submission however fast the clicks (use-submission.ts): the button is disabled while busy,
  // and the submission carries an Idempotency-Key, so a repeat is answered with the first checkout.
  const start = useSubmission(client.billing.upgrade);
  const changes: [string, string, string][] = [
    ["Price", priceText(from), priceText(to)],
    ["Requests a minute", n(from.limits.requestsPerMinute), n(to.limits.requestsPerMinute)],
    ["KYC verifications", verificationsText(from), verificationsText(to)],
    ["Support", from.support, to.support],
    ...(from.sla || to.sla ? [["Uptime SLA", from.sla ?? "None", to.sla ?? "None"] as [string, string, string]] : []),
  ];
  return (
    <section className="card" aria-labelledby="upgrade-h">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <h2 id="upgrade-h" className="font-semibold">
            Upgrade to {to.name}
          </h2>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            The new limits apply as soon as the payment settles: at once for a card, and for a chain transfer once it is irreversible and
            confirmed. The organization, its API keys and its members stay as they are.
          </p>
        </div>
        {!start.data && (
          <button type="button" className="btn-primary shrink-0 self-start" disabled={start.isPending} onClick={() => start.submit()}>
            {start.isPending ? "Starting…" : `Upgrade to ${to.name}`}
          </button>
        )}
      </div>
      <dl className="mt-4 divide-y divide-slate-100 rounded-md border border-slate-200 text-sm">
        <div
          aria-hidden
          className="hidden bg-slate-50 px-3 py-2 text-xs font-medium uppercase tracking-wide text-slate-500 sm:grid sm:grid-cols-[12rem_1fr_1fr] sm:gap-3"
        >
          <span />
          <span>Now, on {from.name}</span>
          <span>With {to.name}</span>
        </div>
        {changes.map(([label, now, next]) => (
          <div key={label} className="grid gap-1 px-3 py-2 sm:grid-cols-[12rem_1fr_1fr] sm:gap-3">
            <dt className="font-medium text-slate-700">{label}</dt>
            <dd className="text-slate-600">
              <span className="sr-only">Now: </span>
              {now}
            </dd>
            <dd className="text-slate-900">
              <span aria-hidden className="mr-1 text-slate-500 sm:hidden">
                →
              </span>
              <span className="sr-only">With {to.name}: </span>
              <span className="font-medium">{next}</span>
            </dd>
          </div>
        ))}
      </dl>
      {start.error && (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {start.error.message}
        </p>
      )}
      {start.data && <PayFor started={start.data} plan={to} />}
    </section>
  );
}

function PayFor({ started, plan }: { started: Started; plan: Plan }) {
  const chain = started.chainPayment;
  return (
    <div className="mt-5 grid items-start gap-4 lg:grid-cols-2" data-testid="upgrade-payment">
      <div className="rounded-md border border-slate-200 p-4">
        <h3 className="text-sm font-semibold">Pay by card</h3>
        <p className="mt-1 text-sm text-slate-600">
          The payment provider&apos;s checkout opens in this tab; {plan.name} applies as soon as the payment goes through.
        </p>
        <a href={started.checkoutUrl} className="btn-primary mt-3">
          Pay by card
        </a>
      </div>
      <div className="rounded-md border border-slate-200 p-4">
        <h3 className="text-sm font-semibold">Pay on chain</h3>
        {chain ? (
          <>
            <p className="mt-1 text-sm text-slate-600">
              Send exactly this amount to the treasury account with this memo, then confirm it below.
            </p>
            <dl className="mt-3 space-y-2 text-sm">
              {(
                [
                  ["Treasury account", chain.treasury, "Copy treasury account"],
                  ["Amount", chain.amount, "Copy amount"],
                  ["Memo", chain.memo, "Copy memo"],
                ] as const
              ).map(([label, value, copy]) => (
                <div key={label}>
                  <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
                  <dd className="mt-0.5 flex items-center gap-2">
                    <code className="min-w-0 flex-1 break-all rounded bg-slate-50 px-2 py-1.5 text-xs">{value}</code>
                    <CopyButton value={value} label={copy} />
                  </dd>
                </div>
              ))}
            </dl>
            <ConfirmTransfer sessionId={started.sessionId} plan={plan} />
          </>
        ) : (
          <p className="mt-1 text-sm text-slate-600">This deployment takes no payments on chain; pay by card.</p>
        )}
      </div>
    </div>
  );
}

/** The /v1 error envelope in words; a 425 or 429 says when to try again (Retry-After). */
async function confirmOnChain(sessionId: string, transactionId: string) {
  const res = await fetch("/v1/billing/chain/confirm", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sessionId, transactionId }),
  }).catch(() => null);
  if (!res) throw new Error("The service could not be reached. Check your connection and try again.");
  if (res.ok) return;
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  const message = body?.error?.message ?? `The confirmation failed (${res.status}).`;
  const after = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
  throw new Error(
    (res.status === 425 || res.status === 429) && Number.isFinite(after)
      ? `${message} Try again in ${after} second${after === 1 ? "" : "s"}.`
      : message,
  );
}

function ConfirmTransfer({ sessionId, plan }: { sessionId: string; plan: Plan }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [tx, setTx] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const busy = useRef(false);
  return (
    <form
      className="mt-4 border-t border-slate-100 pt-3"
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy.current) return;
        busy.current = true;
        setPending(true);
        setError(null);
        try {
          await confirmOnChain(sessionId, tx.trim());
          toast({ tone: "ok", title: `Upgraded to ${plan.name}`, body: "The new limits apply from the next request." });
          await qc.invalidateQueries({ queryKey: trpc.billing.pathKey() });
        } catch (err) {
          setError((err as Error).message);
        } finally {
          busy.current = false;
          setPending(false);
        }
      }}
    >
      <label htmlFor="chain-tx" className="label">
        Transaction id of your transfer
      </label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <input
          id="chain-tx"
          required
          maxLength={128}
          className="field font-mono"
          value={tx}
          onChange={(e) => setTx(e.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="btn-secondary shrink-0" disabled={pending || tx.trim() === ""}>
          {pending ? "Confirming…" : "Confirm transfer"}
        </button>
      </div>
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      )}
    </form>
  );
}
