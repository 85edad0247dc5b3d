"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Summary } from "@/components/console/activity";
import { RoleGate } from "@/components/console/shell";
import { fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { FormError } from "@/components/ui/form-field";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPCClient } from "@/trpc/react";
import { Exports } from "./_components/exports";

type Entry = RouterOutputs["audit"]["list"]["entries"][number];

export default function AuditPage() {
  return (
    <RoleGate min="compliance_officer">
      <PageHeader
        title="Audit log"
        description="Every change, hash-chained per organization: altering, removing or reordering an entry breaks the chain."
        actions={<VerifyChain />}
      />
      <Entries />
      <Exports />
    </RoleGate>
  );
}

function VerifyChain() {
  const client = useTRPCClient();
  const verify = useSubmission(client.audit.verify);
  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <button type="button" className="btn-primary" onClick={() => verify.submit()} disabled={verify.isPending}>
        {verify.isPending ? "Verifying…" : "Verify the chain"}
      </button>
      {verify.data && (
        <p role="status" data-testid="verify-result" className={`text-sm ${verify.data.valid ? "text-emerald-700" : "text-red-700"}`}>
          {verify.data.valid
            ? `Chain intact: ${verify.data.entries} entries, head ${verify.data.headHash.slice(0, 12)}…`
            : `Chain broken${verify.data.firstInvalidEntryId ? ` at entry ${verify.data.firstInvalidEntryId}` : ""}: ${verify.data.reason}`}
        </p>
      )}
      <FormError text={verify.formError} />
    </div>
  );
}

const PAGE = 100;

function Entries() {
  const client = useTRPCClient();
  const [action, setAction] = useState("");
  const pages = useInfiniteQuery({
    queryKey: ["audit.list.pages"],
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam }) => client.audit.list.query({ limit: String(PAGE), ...(pageParam ? { before: String(pageParam) } : {}) }),
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  });
  const entries = useMemo(() => pages.data?.pages.flatMap((p) => p.entries), [pages.data]);
  const actions = useMemo(() => [...new Set((entries ?? []).map((e) => e.action))].sort(), [entries]);
  const shown = useMemo(() => (action ? entries?.filter((e) => e.action === action) : entries), [entries, action]);
  const columns = useMemo(() => {
    const c = columnsFor<Entry>();
    return [
      c.accessor("seq", { header: "#", cell: (i) => <span className="tabular-nums text-slate-500">{i.getValue()}</span> }),
      c.accessor("createdAt", {
        header: "When",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor("action", { header: "Action", cell: (i) => <code className="text-xs">{i.getValue()}</code> }),
      c.accessor((e) => `${e.summary} ${e.actor}`, {
        id: "what",
        header: "What happened",
        cell: (i) => (
          <span className="break-words" title={i.row.original.actor}>
            <Summary entry={i.row.original} />
          </span>
        ),
      }),
      c.accessor((e) => `${e.actorName} ${e.actor}`, {
        id: "actor",
        header: "Actor",
        cell: (i) => (
          <span className="break-words" title={i.row.original.actor}>
            {i.row.original.actorName}
          </span>
        ),
      }),
      c.accessor((e) => `${e.subjectName ?? ""} ${e.subjectType ?? ""} ${e.subject ?? ""}`, {
        id: "subject",
        header: "Subject",
        cell: (i) => (
          <span className="break-all text-slate-600" title={i.row.original.subject ?? undefined}>
            {i.row.original.subjectName ?? i.row.original.subject ?? "—"}
          </span>
        ),
      }),
      c.accessor((e) => JSON.stringify(e.data), {
        id: "data",
        header: "Details",
        enableSorting: false,
        cell: (i) =>
          Object.keys(i.row.original.data).length ? (
            <details>
              <summary className="cursor-pointer text-indigo-600">View</summary>
              <pre className="mt-1 max-w-md overflow-x-auto rounded bg-slate-50 p-2 text-xs">
                {JSON.stringify(i.row.original.data, null, 2)}
              </pre>
            </details>
          ) : (
            "—"
          ),
      }),
    ];
  }, []);
  return (
    <DataTable
      label="Audit entries"
      columns={columns}
      data={shown}
      isLoading={pages.isLoading}
      error={pages.error}
      onRetry={() => void pages.refetch()}
      empty="No audit entries yet."
      filterPlaceholder="Filter by actor, subject or details"
      pageSize={25}
      toolbar={
        <>
          <label className="sr-only" htmlFor="action-filter">
            Action
          </label>
          <select id="action-filter" className="field w-auto py-1" value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">All actions</option>
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          {pages.hasNextPage && (
            <button type="button" className="btn-secondary" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
              Load older
            </button>
          )}
        </>
      }
    />
  );
}
