"use client";

import { useEffect, useState } from "react";
import { billingCall, type CheckoutStatus, statusOf } from "./checkout-api";

const PLAN_NAMES: Record<string, string> = { builder: "Builder", growth: "Growth", institutional: "Institutional" };

export function SandboxCheckout({ sessionId }: { sessionId: string }) {
  const [status, setStatus] = useState<CheckoutStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);

  useEffect(() => {
    statusOf(sessionId).then(setStatus, (e: Error) => setError(e.message));
  }, [sessionId]);

  async function pay() {
    setPaying(true);
    setError(null);
    try {
      await billingCall("/v1/billing/checkout/complete", { sessionId });
      window.location.assign(`/billing/return?session=${encodeURIComponent(sessionId)}`);
    } catch (e) {
      setError((e as Error).message);
      setPaying(false);
    }
  }

  if (error && !status)
    return (
      <p role="alert" className="mt-6 rounded-md border border-red-200 bg-red-50 p-4 text-red-800">
        {error}
      </p>
    );
  if (!status) return <p className="mt-6 text-slate-500">Loading your checkout…</p>;
  const payable = status.status === "awaiting_payment";
  return (
    <section className="mt-6 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className="text-slate-500">Plan</dt>
        <dd className="font-medium">{PLAN_NAMES[status.plan] ?? status.plan}</dd>
        <dt className="text-slate-500">Account email</dt>
        <dd className="font-medium">{status.emailMasked}</dd>
        <dt className="text-slate-500">Card</dt>
        <dd className="font-mono">4242 4242 4242 4242 (test)</dd>
      </dl>
      {error ? (
        <p role="alert" className="mt-4 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      ) : null}
      {payable ? (
        <button
          type="button"
          onClick={pay}
          disabled={paying}
          className="mt-6 w-full rounded-md bg-indigo-600 px-4 py-3 font-medium text-white hover:bg-indigo-500 disabled:opacity-60"
        >
          {paying ? "Paying…" : "Pay with the test card"}
        </button>
      ) : (
        <p className="mt-6 text-slate-700">
          This checkout is {status.status.replace("_", " ")}.{" "}
          <a className="text-indigo-600 underline" href={`/billing/return?session=${encodeURIComponent(sessionId)}`}>
            See its status
          </a>
        </p>
      )}
    </section>
  );
}
