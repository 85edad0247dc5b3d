"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { PlanAdvisor } from "./plan-advisor";
import { PlanCards, SharedIncludes } from "./plan-cards";
import { type CatalogPlan, fetchPlans } from "./public-api";

/** /pricing: the plan catalog as GET /v1/billing/plans serves it (never a copy), then the advisor. */
export function Pricing() {
  const [plans, setPlans] = useState<CatalogPlan[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => {
    setError(null);
    setPlans(null);
    fetchPlans().then(setPlans, setError);
  }, []);
  useEffect(load, [load]);

  return (
    <>
      <section aria-labelledby="plans-title" className="mx-auto max-w-6xl px-4 pb-16 sm:px-6">
        <h2 id="plans-title" className="sr-only">
          Plans
        </h2>
        {error ? (
          <div className="rounded-2xl border border-slate-200 bg-white">
            <ErrorState error={error} onRetry={load} />
          </div>
        ) : plans === null ? (
          <div className="grid gap-6 lg:grid-cols-3">
            {[0, 1, 2].map((i) => (
              <div key={i} className="rounded-2xl border border-slate-200 bg-white">
                <LoadingRows rows={6} />
              </div>
            ))}
          </div>
        ) : (
          <>
            <PlanCards plans={plans} />
            <SharedIncludes plans={plans} />
          </>
        )}
      </section>

      <section aria-labelledby="advisor-title" className="border-t border-slate-200 bg-white">
        <div className="mx-auto grid max-w-6xl gap-10 px-4 py-16 sm:px-6 lg:grid-cols-[1fr_1.6fr]">
          <div>
            <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Plan advisor</p>
            <h2 id="advisor-title" className="mt-2 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
              Not sure which plan fits?
            </h2>
            <p className="mt-4 leading-relaxed text-slate-600">
              Tell us what you are building and the volumes you expect. The advisor checks them against the limits above and tells you which
              plan fits, and why.
            </p>
          </div>
          <div className="min-w-0">
            <PlanAdvisor plans={plans ?? []} />
          </div>
        </div>
      </section>
    </>
  );
}
