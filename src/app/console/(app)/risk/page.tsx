"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { ErrorState } from "@/components/ui/states";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";

type RiskEvent = RouterOutputs["risk"]["overview"]["recentEvents"][number];
const TONE: Record<string, "green" | "amber" | "red"> = { allow: "green", review: "amber", deny: "red" };

export default function RiskPage() {
  return (
    <RoleGate min="compliance_officer">
      <Risk />
    </RoleGate>
  );
}

function Risk() {
  const trpc = useTRPC();
  const risk = useQuery(trpc.risk.overview.queryOptions());
  const v = risk.data?.velocity;
  const columns = useMemo(() => {
    const c = columnsFor<RiskEvent>();
    return [
      c.accessor("createdAt", {
        header: "When",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor("kind", { header: "Kind", cell: (i) => <code className="text-xs">{i.getValue()}</code> }),
      c.accessor("decision", { header: "Decision", cell: (i) => <Badge tone={TONE[i.getValue()] ?? "amber"}>{i.getValue()}</Badge> }),
      c.accessor("score", { header: "Score" }),
      c.accessor((e) => e.reasons.join(", "), {
        id: "reasons",
        header: "Reasons",
        cell: (i) => <span className="text-slate-600">{i.getValue() || "—"}</span>,
      }),
      c.accessor((e) => e.clientIp ?? "", {
        id: "ip",
        // Risk events keep the client address as a keyed hash, and in clear only its network.
        header: "Client network",
        cell: (i) => <span className="font-mono text-xs">{i.getValue() || "—"}</span>,
      }),
    ];
  }, []);
  if (risk.error) return <ErrorState error={risk.error} onRetry={() => void risk.refetch()} />;
  return (
    <>
      <PageHeader title="Risk" description="Velocity, devices shared between people or accounts, and recent risk decisions." />
      <section aria-label="Velocity" className="mb-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {[
          ["Last minute", v?.events1m],
          ["Last hour", v?.events1h],
          ["Last 24 hours", v?.events24h],
          ["Denied (24 h)", v?.decisions24h.deny],
        ].map(([label, n]) => (
          <div key={label as string} className="card">
            <p className="text-xs uppercase tracking-wide text-slate-500">{label}</p>
            <p className="mt-1 text-2xl font-semibold">{n ?? "…"}</p>
          </div>
        ))}
      </section>
      {risk.data && risk.data.sharedDevices.length > 0 && (
        <section className="card mb-6" aria-labelledby="shared-h">
          <h2 id="shared-h" className="font-semibold">
            Shared devices
          </h2>
          <ul className="mt-2 divide-y divide-slate-100 text-sm">
            {risk.data.sharedDevices.map((d) => (
              <li key={d.deviceHash} className="flex flex-wrap justify-between gap-2 py-1.5">
                <code className="text-xs">{d.deviceHash.slice(0, 16)}…</code>
                <span>{d.subjects} subjects</span>
                <span className="text-slate-500">{fmtTime(d.lastSeenAt)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <DataTable
        label="Risk events"
        columns={columns}
        data={risk.data?.recentEvents}
        isLoading={risk.isLoading}
        empty="No risk events yet."
        filterPlaceholder="Filter by kind, decision or reason"
      />
    </>
  );
}
