"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Summary } from "@/components/console/activity";
import { useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { atLeast, roleLabel } from "@/lib/roles";
import { useTRPC } from "@/trpc/react";

const SEVERITIES = ["critical", "high", "medium", "low"] as const;

/** The organization at a glance: posture, accounts, people, AML and risk (the /v1/admin/dashboard aggregates). */
export default function DashboardPage() {
  const trpc = useTRPC();
  const me = useMe();
  const tenant = useQuery(trpc.tenant.get.queryOptions());
  const dash = useQuery(trpc.dashboard.get.queryOptions());
  const t = tenant.data;
  const d = dash.data;
  const openCases = d ? SEVERITIES.reduce((n, s) => n + d.amlCases.open[s] + d.amlCases.pendingApproval[s], 0) : undefined;
  return (
    <>
      <PageHeader title="Dashboard" description={`Signed in as ${me.email} (${roleLabel(me.role)}).`} />
      {(tenant.error || dash.error) && (
        <ErrorState
          error={tenant.error ?? dash.error}
          onRetry={() => {
            void tenant.refetch();
            void dash.refetch();
          }}
        />
      )}
      <section aria-label="Posture" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Stat
          label="Plan"
          value={t?.plan.name}
          hint={t ? `${t.plan.limits.requestsPerMinute.toLocaleString()} requests / minute` : undefined}
        />
        <Stat
          label="Request signing"
          value={t ? (t.signingEnabled ? "On" : "Off") : undefined}
          tone={t ? (t.signingEnabled ? "green" : "amber") : undefined}
        />
        <Stat label="IP allowlist" value={t ? (t.ipAllowlist.cidrs.length ? `${t.ipAllowlist.cidrs.length} ranges` : "Open") : undefined} />
        <Stat
          label="DPA"
          value={t ? (t.dpaAcceptedAt ? "Accepted" : "Not accepted") : undefined}
          tone={t ? (t.dpaAcceptedAt ? "green" : "amber") : undefined}
        />
      </section>
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <Card title="Accounts by lifecycle" link={{ href: "/console/accounts", label: "All accounts" }} loading={!d}>
          <Counts entries={(["provisional", "bound", "unlocked", "suspended"] as const).map((l) => [l, d?.accounts.byLifecycle[l] ?? 0])} />
        </Card>
        <Card
          title="People by KYC status"
          link={atLeast(me.role, "operator") ? { href: "/console/people", label: "All people" } : undefined}
          loading={!d}
        >
          <Counts
            entries={[
              ["approved", d?.people.byKycStatus.approved ?? 0],
              ["pending", (d?.people.byKycStatus.pending ?? 0) + (d?.people.byKycStatus.in_review ?? 0)],
              ["rejected", d?.people.byKycStatus.rejected ?? 0],
              ["flagged", d?.people.flagged ?? 0],
            ]}
          />
        </Card>
        <Card
          title="AML cases"
          link={atLeast(me.role, "compliance_officer") ? { href: "/console/aml", label: "AML queue" } : undefined}
          loading={!d}
        >
          <p className="mt-2 text-sm text-slate-600">{openCases === 0 ? "No open cases." : `${openCases} open or awaiting approval.`}</p>
          <div className="mt-2 flex flex-wrap gap-2">
            {d &&
              SEVERITIES.map((s) => (
                <Badge key={s} tone={s === "critical" || s === "high" ? "red" : s === "medium" ? "amber" : "slate"}>
                  {s}: {d.amlCases.open[s] + d.amlCases.pendingApproval[s]}
                </Badge>
              ))}
          </div>
        </Card>
        <Card
          title="Recent activity"
          link={atLeast(me.role, "compliance_officer") ? { href: "/console/audit", label: "Audit log" } : undefined}
          loading={!d}
        >
          <ul className="mt-2 divide-y divide-slate-100 text-sm">
            {d?.recentAudit.slice(0, 8).map((e) => (
              <li key={e.id} className="py-2">
                <p className="break-words text-slate-800">
                  <Summary entry={e} />
                </p>
                <time className="text-xs text-slate-500" dateTime={e.createdAt}>
                  {fmtTime(e.createdAt)}
                </time>
              </li>
            ))}
          </ul>
        </Card>
      </div>
    </>
  );
}

function Card({
  title,
  link,
  loading,
  children,
}: {
  title: string;
  link?: { href: string; label: string };
  loading: boolean;
  children: React.ReactNode;
}) {
  return (
    <section className="card" aria-label={title}>
      <div className="flex items-center justify-between gap-2">
        <h2 className="font-semibold">{title}</h2>
        {link && (
          <Link href={link.href} className="text-sm text-indigo-600 hover:underline">
            {link.label}
          </Link>
        )}
      </div>
      {loading ? <LoadingRows rows={3} /> : children}
    </section>
  );
}

function Counts({ entries }: { entries: [string, number][] }) {
  return (
    <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
      {entries.map(([label, n]) => (
        <div key={label} className="rounded-md bg-slate-50 p-3">
          <dt className="text-xs uppercase tracking-wide text-slate-500">{label}</dt>
          <dd className="mt-1 text-2xl font-semibold tabular-nums">{n}</dd>
        </div>
      ))}
    </dl>
  );
}

function Stat({ label, value, hint, tone }: { label: string; value?: string; hint?: string; tone?: "green" | "amber" }) {
  return (
    <div className="card">
      <p className="text-xs uppercase tracking-wide text-slate-500">{label}</p>
      <div className="mt-1 flex items-center gap-2">
        <p className="text-xl font-semibold">{value ?? <span className="inline-block h-6 w-20 animate-pulse rounded bg-slate-100" />}</p>
        {tone && <Badge tone={tone}>{tone === "green" ? "good" : "review"}</Badge>}
      </div>
      {hint && <p className="mt-1 text-xs text-slate-500">{hint}</p>}
    </div>
  );
}
