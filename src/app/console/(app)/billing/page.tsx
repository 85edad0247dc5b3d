"use client";

import { useQuery } from "@tanstack/react-query";
import { RoleGate } from "@/components/console/shell";
import { PageHeader } from "@/components/ui/badge";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";
import { Invoices } from "./_components/invoices";
import { Payment } from "./_components/payment";
import { priceText, Upgrade, verificationsText } from "./_components/upgrade";
import { dayLabel, UsageChart } from "./_components/usage-chart";

type Overview = RouterOutputs["billing"]["overview"];

const n = (v: number) => v.toLocaleString();

export default function BillingPage() {
  return (
    <RoleGate min="admin">
      <Billing />
    </RoleGate>
  );
}

function Billing() {
  const trpc = useTRPC();
  const overview = useQuery(trpc.billing.overview.queryOptions());
  const o = overview.data;
  return (
    <>
      <PageHeader
        title="Billing"
        description="Your plan, what the organization has used against its limits, and payments. Days and months are counted in UTC."
      />
      {overview.error ? (
        <ErrorState error={overview.error} onRetry={() => void overview.refetch()} />
      ) : !o ? (
        <div className="card">
          <LoadingRows rows={5} />
        </div>
      ) : (
        <div className="space-y-6">
          <div className="grid gap-6 lg:grid-cols-5">
            <PlanCard o={o} />
            <UsageCard o={o} />
          </div>
          {o.upgradeTo && <Upgrade from={o.plan} to={o.upgradeTo} />}
          <History />
          <div className="grid gap-6 lg:grid-cols-3">
            <Payment o={o} />
            <div className="min-w-0 lg:col-span-2">
              <Invoices />
            </div>
          </div>
        </div>
      )}
    </>
  );
}

function PlanCard({ o }: { o: Overview }) {
  const p = o.plan;
  const rows: [string, string][] = [
    ["Requests a minute", n(p.limits.requestsPerMinute)],
    ["KYC verifications", verificationsText(p)],
    ["Support", p.support],
    ["Uptime SLA", p.sla ?? "None on this plan"],
  ];
  return (
    <section className="card lg:col-span-2" aria-labelledby="plan-h">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Current plan</p>
      <div className="mt-1 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="plan-h" className="text-xl font-semibold" data-testid="plan-name">
          {p.name}
        </h2>
        <span className="text-sm font-medium text-slate-700">{priceText(p)}</span>
      </div>
      <dl className="mt-4 space-y-2.5 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="grid grid-cols-[9rem_1fr] gap-3">
            <dt className="text-slate-500">{label}</dt>
            <dd className="min-w-0 font-medium text-slate-800">{value}</dd>
          </div>
        ))}
      </dl>
      <details className="mt-4 text-sm">
        <summary className="cursor-pointer text-indigo-600">What the plan includes</summary>
        <ul className="mt-2 list-disc space-y-1 pl-5 text-slate-600">
          {p.includes.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </details>
    </section>
  );
}

/** A bar for a count against a limit; screen readers get the native meter and its "x of y". */
function Meter({ label, value, max, valueText }: { label: string; value: number; max: number; valueText: string }) {
  const ratio = max > 0 ? Math.min(1, value / max) : 0;
  const tone = ratio >= 1 ? "bg-red-500" : ratio >= 0.8 ? "bg-amber-500" : "bg-indigo-500";
  return (
    <>
      <meter className="sr-only" aria-label={label} min={0} max={max} value={Math.min(value, max)} aria-valuetext={valueText} />
      <div aria-hidden className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100">
        <div className={`h-full rounded-full ${tone}`} style={{ width: `${Math.max(value > 0 ? 2 : 0, ratio * 100)}%` }} />
      </div>
    </>
  );
}

function UsageCard({ o }: { o: Overview }) {
  const m = o.usage.meters;
  const plan = o.plan;
  const perMinute = plan.limits.requestsPerMinute;
  const cap = plan.verificationsPerMonth;
  const month = new Date(o.usage.periods.month);
  const nextMonth = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  const monthName = month.toLocaleDateString(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
  const left = cap === null ? null : Math.max(0, cap - m.verificationsThisMonth);
  return (
    <section className="card lg:col-span-3" aria-labelledby="usage-h">
      <h2 id="usage-h" className="font-semibold">
        Usage this period
      </h2>
      <div className="mt-4 grid gap-5 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <div className="flex flex-wrap items-baseline justify-between gap-x-3 text-sm">
            <span className="font-medium text-slate-700">KYC verifications in {monthName}</span>
            <span className="tabular-nums text-slate-600" data-testid="verifications-used">
              {cap === null ? `${n(m.verificationsThisMonth)} (no monthly cap)` : `${n(m.verificationsThisMonth)} of ${n(cap)}`}
            </span>
          </div>
          {cap !== null && (
            <Meter
              label="KYC verifications this month"
              value={m.verificationsThisMonth}
              max={cap}
              valueText={`${n(m.verificationsThisMonth)} of ${n(cap)} used`}
            />
          )}
          <p className="mt-2 text-sm text-slate-600">
            {left === null
              ? "Every verification is counted for the contract's volume price."
              : left === 0
                ? `The monthly allowance is used up until ${dayLabel(nextMonth, { day: "numeric", month: "long" })}.`
                : `${n(left)} left until ${dayLabel(nextMonth, { day: "numeric", month: "long" })}.`}
          </p>
          {left === 0 ? (
            <p role="status" className="mt-2 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
              {plan.atVerificationCap}
            </p>
          ) : (
            <p className="mt-2 text-xs text-slate-500">
              <span className="font-medium text-slate-600">At the cap: </span>
              {plan.atVerificationCap}
            </p>
          )}
        </div>
        <div>
          <div className="flex items-baseline justify-between gap-3 text-sm">
            <span className="font-medium text-slate-700">Requests this minute</span>
            <span className="tabular-nums text-slate-600">
              {n(m.requestsThisMinute)} of {n(perMinute)}
            </span>
          </div>
          <Meter
            label="Requests this minute"
            value={m.requestsThisMinute}
            max={perMinute}
            valueText={`${n(m.requestsThisMinute)} of ${n(perMinute)} a minute`}
          />
          <p className="mt-2 text-xs text-slate-500">Over the limit, /v1 answers 429 until the next minute.</p>
        </div>
        <dl className="grid grid-cols-2 gap-3">
          <div className="rounded-md bg-slate-50 p-3">
            <dt className="text-xs uppercase tracking-wide text-slate-500">Requests today</dt>
            <dd className="mt-1 text-2xl font-semibold tabular-nums" data-testid="requests-today">
              {n(m.requestsToday)}
            </dd>
          </div>
          <div className="rounded-md bg-slate-50 p-3">
            <dt className="text-xs uppercase tracking-wide text-slate-500">Accounts</dt>
            <dd className="mt-1 text-2xl font-semibold tabular-nums">{n(m.accounts)}</dd>
          </div>
        </dl>
      </div>
    </section>
  );
}

function History() {
  const trpc = useTRPC();
  const history = useQuery(trpc.billing.history.queryOptions());
  const h = history.data;
  return (
    <section className="card" aria-labelledby="history-h">
      <h2 id="history-h" className="font-semibold">
        The last 30 days
      </h2>
      {history.error ? (
        <ErrorState error={history.error} onRetry={() => void history.refetch()} />
      ) : !h ? (
        <LoadingRows rows={3} />
      ) : (
        <div className="mt-4 grid gap-8 lg:grid-cols-2">
          <UsageChart
            title="API requests per day"
            unit="requests"
            tone="indigo"
            days={h.days.map((d) => ({ day: d.day, count: d.requests }))}
          />
          <UsageChart
            title="KYC verifications per day"
            unit="verifications"
            tone="emerald"
            days={h.days.map((d) => ({ day: d.day, count: d.verifications }))}
          />
        </div>
      )}
    </section>
  );
}
