"use client";

import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Summary } from "@/components/console/activity";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { dateIssue, present } from "@/components/ui/error-text";
import { FieldError, FormError } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Entry = RouterOutputs["audit"]["list"]["entries"][number];

const EXPORT_FIELDS = {
  from: { label: "start" },
  to: {
    label: "end",
    words: (_: unknown, issue: { code: string; message?: string }) =>
      issue.code !== "custom"
        ? undefined
        : /later than/.test(issue.message ?? "")
          ? "The end must be after the start."
          : `The range is too long: ${issue.message?.replace(/^the range may span /, "an export may span ")}.`,
  },
};

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

function Exports() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const today = new Date();
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  const [from, setFrom] = useState(iso(new Date(today.getTime() - 30 * 86_400_000)));
  const [to, setTo] = useState(iso(new Date(today.getTime() + 86_400_000)));
  const list = useQuery({
    ...trpc.audit.exports.queryOptions({ limit: "20" }),
    refetchInterval: (q) => (q.state.data?.exports.some((e) => e.status === "queued" || e.status === "running") ? 1500 : false),
  });
  const request = useSubmission(client.audit.requestExport, {
    fields: EXPORT_FIELDS,
    validate: (input) => present([dateIssue(["from"], input.from), dateIssue(["to"], input.to)]),
    onSuccess: () => {
      toast({ tone: "ok", title: "Export queued", body: "It is signed and ready in a few seconds." });
      void qc.invalidateQueries({ queryKey: trpc.audit.exports.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "The export was not started", body: err.message }),
  });
  async function download(jobId: string) {
    const job = await client.audit.getExport.query({ jobId });
    const blob = new Blob([JSON.stringify(job.artifact, null, 2)], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `audit-export-${jobId}.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  }
  return (
    <section className="card mt-6" aria-labelledby="exports-h">
      <h2 id="exports-h" className="font-semibold">
        Signed exports
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        A JSON file of the entries in a range with a checkpoint signed by the issuer key, verifiable away from this service.
      </p>
      <form
        className="mt-3 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          request.submit({ from: from && `${from}T00:00:00Z`, to: to && `${to}T00:00:00Z` });
        }}
      >
        <div>
          <label htmlFor="export-from" className="label">
            From
          </label>
          <input
            id="export-from"
            type="date"
            className="field"
            aria-describedby="export-from-error"
            aria-invalid={!!request.fieldError("from")}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
          />
        </div>
        <div>
          <label htmlFor="export-to" className="label">
            To (exclusive)
          </label>
          <input
            id="export-to"
            type="date"
            className="field"
            aria-describedby="export-to-error"
            aria-invalid={!!request.fieldError("to")}
            value={to}
            onChange={(e) => setTo(e.target.value)}
          />
        </div>
        <button type="submit" className="btn-primary" disabled={request.isPending}>
          {request.isPending ? "Starting…" : "Start export"}
        </button>
      </form>
      <div className="mt-2 space-y-1">
        <FieldError id="export-from-error" text={request.fieldError("from")} />
        <FieldError id="export-to-error" text={request.fieldError("to")} />
        <FormError text={request.formError} />
      </div>
      <ul className="mt-4 divide-y divide-slate-100 text-sm" aria-label="Export jobs">
        {list.data?.exports.length === 0 && <li className="py-3 text-slate-500">No exports yet.</li>}
        {list.data?.exports.map((j) => (
          <li key={j.jobId} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2">
            <Badge tone={j.status === "completed" ? "green" : j.status === "failed" ? "red" : "amber"}>{j.status}</Badge>
            <span className="text-slate-600">
              {fmtTime(j.from)} → {fmtTime(j.to)}
            </span>
            {j.error && <span className="text-red-700">{j.error}</span>}
            {j.status === "completed" && (
              <button type="button" className="btn-secondary ml-auto" onClick={() => void download(j.jobId)}>
                Download
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
