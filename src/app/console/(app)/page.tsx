"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { Badge, PageHeader, fmtTime } from "@/components/ui/badge";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useMe } from "@/components/console/shell";
import { atLeast, roleLabel } from "@/components/console/roles";

/** The organization at a glance, from the same reads the other pages use. */
export default function DashboardPage() {
  const trpc = useTRPC();
  const me = useMe();
  const tenant = useQuery(trpc.tenant.get.queryOptions());
  const accounts = useQuery(trpc.accounts.list.queryOptions({ limit: 200 }));
  const audit = useQuery({ ...trpc.audit.list.queryOptions({ limit: "8" }), enabled: atLeast(me.role, "compliance_officer") });

  const byLifecycle = (accounts.data?.accounts ?? []).reduce<Record<string, number>>((m, a) => ({ ...m, [a.lifecycle]: (m[a.lifecycle] ?? 0) + 1 }), {});
  const t = tenant.data;
  return (
    <>
      <PageHeader title="Dashboard" description={`Signed in as ${me.email} (${roleLabel(me.role)}).`} />
      {tenant.error ? <ErrorState error={tenant.error} onRetry={() => void tenant.refetch()} /> : null}
      <section aria-label="Posture" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Stat label="Plan" value={t?.plan.name} hint={t ? `${t.plan.limits.requestsPerMinute.toLocaleString()} requests / minute` : undefined} />
        <Stat label="Request signing" value={t ? (t.signingEnabled ? "On" : "Off") : undefined} tone={t?.signingEnabled ? "green" : "amber"} />
        <Stat label="IP allowlist" value={t ? (t.ipAllowlist.cidrs.length ? `${t.ipAllowlist.cidrs.length} ranges` : "Open") : undefined} />
        <Stat label="DPA" value={t ? (t.dpaAcceptedAt ? "Accepted" : "Not accepted") : undefined} tone={t?.dpaAcceptedAt ? "green" : "amber"} />
      </section>
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <section className="card" aria-labelledby="accounts-h">
          <div className="flex items-center justify-between">
            <h2 id="accounts-h" className="font-semibold">Accounts by lifecycle</h2>
            <Link href="/console/accounts" className="text-sm text-indigo-600 hover:underline">All accounts</Link>
          </div>
          {accounts.isLoading ? <LoadingRows rows={3} /> : accounts.error ? <ErrorState error={accounts.error} /> : (
            <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
              {["provisional", "bound", "unlocked", "suspended"].map((l) => (
                <div key={l} className="rounded-md bg-slate-50 p-3">
                  <dt className="text-xs uppercase tracking-wide text-slate-500">{l}</dt>
                  <dd className="mt-1 text-2xl font-semibold">{byLifecycle[l] ?? 0}</dd>
                </div>
              ))}
            </dl>
          )}
        </section>
        {atLeast(me.role, "compliance_officer") && (
          <section className="card" aria-labelledby="audit-h">
            <div className="flex items-center justify-between">
              <h2 id="audit-h" className="font-semibold">Recent activity</h2>
              <Link href="/console/audit" className="text-sm text-indigo-600 hover:underline">Audit log</Link>
            </div>
            {audit.isLoading ? <LoadingRows rows={3} /> : audit.error ? <ErrorState error={audit.error} /> : (
              <ul className="mt-3 divide-y divide-slate-100 text-sm">
                {audit.data?.entries.map((e) => (
                  <li key={e.id} className="flex flex-wrap items-baseline justify-between gap-x-3 py-2">
                    <span className="font-mono text-xs text-slate-800">{e.action}</span>
                    <span className="truncate text-slate-500">{e.actor}</span>
                    <span className="text-xs text-slate-400">{fmtTime(e.createdAt)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
      </div>
    </>
  );
}

function Stat({ label, value, hint, tone }: { label: string; value?: string; hint?: string; tone?: "green" | "amber" }) {
  return (
    <div className="card">
      <p className="text-xs uppercase tracking-wide text-slate-500">{label}</p>
      <p className="mt-1 text-xl font-semibold">{value ?? <span className="inline-block h-6 w-20 animate-pulse rounded bg-slate-100" />}</p>
      {hint && <p className="mt-1 text-xs text-slate-500">{hint}</p>}
      {tone && value && <div className="mt-2"><Badge tone={tone}>{tone === "green" ? "good" : "review"}</Badge></div>}
    </div>
  );
}
