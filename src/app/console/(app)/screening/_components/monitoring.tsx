"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Badge, fmtTime } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";
import { PeriodicSetting } from "./periodic-setting";

type Run = RouterOutputs["screening"]["runs"]["runs"][number];

const STATUS_TONE: Record<Run["status"], "slate" | "indigo" | "green" | "red"> = {
  queued: "slate",
  running: "indigo",
  completed: "green",
  failed: "red",
};
const REFRESH_MS = 3_000;

function Progress({ run }: { run: Run }) {
  const { personsScreened, personsTotal } = run.counts;
  const pct = personsTotal > 0 ? Math.min(100, Math.round((personsScreened / personsTotal) * 100)) : run.status === "completed" ? 100 : 0;
  return (
    <div className="min-w-36">
      <div className="text-xs tabular-nums">
        {personsScreened.toLocaleString()} of {personsTotal.toLocaleString()} people
        {run.counts.accountsScreened > 0 && ` · ${run.counts.accountsScreened.toLocaleString()} accounts`}
      </div>
      <div
        className="mt-1 h-1.5 w-full rounded-full bg-slate-200"
        role="progressbar"
        aria-label="People screened"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div className={`h-1.5 rounded-full ${run.status === "failed" ? "bg-red-500" : "bg-indigo-600"}`} style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

/** Ongoing screening: the periodic setting and the re-screen runs, read again while one runs. */
export function Monitoring() {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.screening.runs.queryOptions({ limit: "50" }),
    // While a run is queued or running its progress is read again every few seconds.
    refetchInterval: (q) => (q.state.data?.runs.some((r) => r.status === "queued" || r.status === "running") ? REFRESH_MS : false),
  });
  const columns = useMemo(() => {
    const c = columnsFor<Run>();
    return [
      c.accessor("createdAt", {
        header: "Queued",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor((r) => (r.kind === "periodic" ? "periodic" : `list change: ${r.list ?? ""}`), {
        id: "trigger",
        header: "Trigger",
        cell: (i) =>
          i.row.original.kind === "periodic" ? (
            "Periodic re-screen"
          ) : (
            <span>
              List change <code className="text-xs">{i.row.original.list}</code>
              {i.row.original.counts.changedEntries > 0 && (
                <span className="text-slate-500"> ({i.row.original.counts.changedEntries.toLocaleString()} changed entries)</span>
              )}
            </span>
          ),
      }),
      c.accessor("status", {
        header: "Status",
        cell: (i) => (
          <span>
            <Badge tone={STATUS_TONE[i.getValue()]}>{i.getValue()}</Badge>
            {i.row.original.error && <span className="mt-1 block text-xs text-red-700">{i.row.original.error}</span>}
          </span>
        ),
      }),
      c.accessor((r) => r.counts.personsScreened, { id: "progress", header: "Progress", cell: (i) => <Progress run={i.row.original} /> }),
      c.accessor((r) => r.counts.hits, {
        id: "hits",
        header: "Hits",
        cell: (i) => (
          <span className="tabular-nums">
            {i.getValue()}
            {i.row.original.counts.casesOpened > 0 && (
              <span className="text-slate-500"> · {i.row.original.counts.casesOpened} cases opened</span>
            )}
          </span>
        ),
      }),
      c.accessor("startedAt", {
        header: "Started",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor("completedAt", {
        header: "Finished",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
    ];
  }, []);
  return (
    <section aria-labelledby="runs-h" className="space-y-3">
      <h2 id="runs-h" className="font-semibold">
        Ongoing screening
      </h2>
      <p className="text-sm text-slate-600">
        When a list changes, your approved people are re-screened against its new and changed entries; a new match opens or escalates an AML
        case.
      </p>
      <PeriodicSetting />
      <DataTable
        label="Re-screen runs"
        columns={columns}
        data={runs.data?.runs}
        isLoading={runs.isLoading}
        error={runs.error}
        onRetry={() => void runs.refetch()}
        empty="No re-screen has run yet."
        filterPlaceholder="Filter by trigger or status"
      />
    </section>
  );
}
