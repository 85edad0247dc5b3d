"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef } from "react";
import { Badge } from "@/components/ui/badge";
import type { RouterOutputs } from "@/trpc/outputs";
import { errorMessage, useTRPC } from "@/trpc/react";

type Overview = RouterOutputs["billing"]["overview"];

/** The payment provider and, once the organization has paid by card, the way to its portal. */
export function Payment({ o }: { o: Overview }) {
  const trpc = useTRPC();
  const busy = useRef(false);
  const portal = useMutation(
    trpc.billing.portal.mutationOptions({
      onSuccess: ({ url }) => window.location.assign(url),
      onError: () => {
        busy.current = false;
      },
    }),
  );
  return (
    <section className="card" aria-labelledby="payment-h">
      <div className="flex items-center justify-between gap-2">
        <h2 id="payment-h" className="font-semibold">
          Payment
        </h2>
        <Badge tone={o.payment.provider === "sandbox" ? "amber" : "slate"}>{o.payment.provider === "sandbox" ? "Sandbox" : "Stripe"}</Badge>
      </div>
      {o.payment.hasCustomer ? (
        <>
          <p className="mt-1 text-sm text-slate-600">
            Change the card, download receipts or cancel in the payment provider&apos;s portal. It returns you to the console.
          </p>
          <button
            type="button"
            className="btn-secondary mt-3"
            disabled={portal.isPending || portal.isSuccess}
            onClick={() => {
              if (busy.current) return;
              busy.current = true;
              portal.mutate();
            }}
          >
            {portal.isPending || portal.isSuccess ? "Opening…" : "Manage payment"}
          </button>
        </>
      ) : (
        <p className="mt-1 text-sm text-slate-600" data-testid="no-portal">
          {o.payment.provider === "sandbox"
            ? "The sandbox takes no real card payments, so there is no card or payment portal to manage."
            : "No card on file: the payment portal opens once this organization has paid by card."}
        </p>
      )}
      {portal.error && (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {errorMessage(portal.error)}
        </p>
      )}
    </section>
  );
}
