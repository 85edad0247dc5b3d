"use client";

import Link from "next/link";
import { Icon } from "./icons";
import { type CatalogPlan, fmtCount, planAction, priceLabel } from "./public-api";

/** Lines of `includes` that every plan has: shown once under the cards instead of three times. */
function sharedIncludes(plans: CatalogPlan[]): string[] {
  const [first, ...rest] = plans;
  if (!first || rest.length === 0) return [];
  return first.includes.filter((line) => rest.every((p) => p.includes.includes(line)));
}

/**
 * The plan's own lines, without the shared ones and without lines that only restate a figure the
 * card already shows above them (the catalog writes its `includes` from the same fields).
 */
function ownIncludes(p: CatalogPlan, shared: string[]): string[] {
  const restates = (line: string) =>
    line === p.support ||
    (p.sla != null && line.includes(p.sla)) ||
    line.startsWith(`${fmtCount(p.limits.requestsPerMinute)} requests`) ||
    (p.verificationsPerMonth !== null && line.startsWith(`${fmtCount(p.verificationsPerMonth)} `));
  return p.includes.filter((line) => !shared.includes(line) && !restates(line));
}

export function PlanCards({ plans }: { plans: CatalogPlan[] }) {
  const shared = sharedIncludes(plans);
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      {plans.map((p) => (
        <PlanCard key={p.id} plan={p} own={ownIncludes(p, shared)} />
      ))}
    </div>
  );
}

function PlanCard({ plan: p, own }: { plan: CatalogPlan; own: string[] }) {
  const action = planAction(p);
  const price = priceLabel(p.priceUsdMonthly, p.currency);
  const titleId = `plan-${p.id}`;
  return (
    <section
      aria-labelledby={titleId}
      data-testid={`plan-${p.id}`}
      className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-7"
    >
      <div className="flex items-center justify-between gap-3">
        <h3 id={titleId} className="text-lg font-semibold text-slate-900">
          {p.name}
        </h3>
        <span className="rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-medium text-slate-600">
          {p.selfServe ? "Self-serve" : "Through sales"}
        </span>
      </div>
      <p className="mt-4 flex items-baseline gap-1.5">
        <span data-testid="plan-price" className="text-3xl font-bold tracking-tight text-slate-900">
          {price}
        </span>
        {p.priceUsdMonthly !== null && p.priceUsdMonthly > 0 && <span className="text-sm text-slate-500">per month</span>}
      </p>
      <Link
        href={action.href}
        className={`${p.checkout === "sales" ? "btn-secondary" : "btn-primary border border-transparent"} mt-5 w-full py-2.5 text-base`}
      >
        {action.label}
      </Link>

      <dl className="mt-6 grid grid-cols-2 gap-3">
        <div className="rounded-lg bg-slate-50 p-3">
          <dt className="text-xs text-slate-500">Requests per minute</dt>
          <dd data-testid="plan-rpm" className="mt-1 text-lg font-semibold text-slate-900">
            {fmtCount(p.limits.requestsPerMinute)}
          </dd>
        </div>
        <div className="rounded-lg bg-slate-50 p-3">
          <dt className="text-xs text-slate-500">Verifications a month</dt>
          <dd data-testid="plan-verifications" className="mt-1 text-lg font-semibold text-slate-900">
            {p.verificationsPerMonth === null ? "By contract" : fmtCount(p.verificationsPerMonth)}
          </dd>
        </div>
      </dl>

      <dl className="mt-5 space-y-3 text-sm">
        {p.support !== undefined && (
          <div>
            <dt className="font-medium text-slate-900">Support</dt>
            <dd className="mt-0.5 text-slate-600">{p.support}</dd>
          </div>
        )}
        {p.sla !== undefined && (
          <div>
            <dt className="font-medium text-slate-900">Uptime SLA</dt>
            <dd className="mt-0.5 text-slate-600">{p.sla ?? "None"}</dd>
          </div>
        )}
        {p.atVerificationCap !== undefined && (
          <div>
            <dt className="font-medium text-slate-900">When the month&apos;s verifications are used up</dt>
            <dd className="mt-0.5 text-slate-600">{p.atVerificationCap}</dd>
          </div>
        )}
      </dl>

      {own.length > 0 && (
        <>
          <h4 className="mt-6 text-sm font-medium text-slate-900">Also included</h4>
          <ul className="mt-2 space-y-2 text-sm text-slate-700">
            {own.map((line) => (
              <li key={line} className="flex gap-2">
                <Icon name="check" className="mt-0.5 h-4 w-4 shrink-0 text-indigo-600" />
                <span>{line}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function SharedIncludes({ plans }: { plans: CatalogPlan[] }) {
  const shared = sharedIncludes(plans);
  if (shared.length === 0) return null;
  return (
    <section aria-labelledby="every-plan" className="mt-8 rounded-2xl border border-indigo-100 bg-indigo-50/50 p-6 sm:p-8">
      <h3 id="every-plan" className="text-base font-semibold text-slate-900">
        Every plan includes
      </h3>
      <ul className="mt-4 grid gap-3 text-sm text-slate-700 md:grid-cols-2">
        {shared.map((line) => (
          <li key={line} className="flex gap-2">
            <Icon name="check" className="mt-0.5 h-4 w-4 shrink-0 text-indigo-600" />
            <span>{line}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
