"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader, ShortDid } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Modal, ModalActions } from "@/components/ui/dialog";
import { present, textIssue } from "@/components/ui/error-text";
import { Counter, FieldError, FormError } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Case = RouterOutputs["aml"]["queue"]["cases"][number];

const CASE_FIELDS = { reason: { label: "reason" }, "body.reason": { label: "reason" }, "body.notes": { label: "notes" } };
const PRIORITY_TONE = { low: "slate", medium: "amber", high: "red", critical: "red" } as const;
const PRIORITY_RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const;

export default function AmlPage() {
  return (
    <RoleGate min="compliance_officer">
      <Queue />
    </RoleGate>
  );
}

function Queue() {
  const trpc = useTRPC();
  const queue = useQuery(trpc.aml.queue.queryOptions());
  const [selected, setSelected] = useState<string | null>(null);
  const cases = queue.data?.cases;
  const current = cases?.find((c) => c.caseId === selected) ?? null;
  const columns = useMemo(() => {
    const c = columnsFor<Case>();
    return [
      c.accessor((x) => PRIORITY_RANK[x.priority], {
        id: "priority",
        header: "Priority",
        cell: (i) => <Badge tone={PRIORITY_TONE[i.row.original.priority]}>{i.row.original.priority}</Badge>,
      }),
      c.accessor("subjectDid", { header: "Subject", cell: (i) => <ShortDid did={i.getValue()} /> }),
      c.accessor("status", {
        header: "Status",
        cell: (i) => <Badge tone={i.getValue() === "pending_approval" ? "indigo" : "amber"}>{i.getValue().replace("_", " ")}</Badge>,
      }),
      c.accessor("reason", { header: "Reason", cell: (i) => <span className="text-slate-600">{i.getValue()}</span> }),
      c.accessor("openedAt", {
        header: "Opened",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.display({
        id: "open",
        header: () => <span className="sr-only">Open</span>,
        cell: (i) => (
          <button type="button" className="btn-secondary" onClick={() => setSelected(i.row.original.caseId)}>
            Review
          </button>
        ),
      }),
    ];
  }, []);
  return (
    <>
      <PageHeader
        title="AML queue"
        description="Open cases, highest priority first, then oldest. Clearing lifts the person's PEP and sanctions flags; with four-eyes on, a second member must approve."
      />
      <DataTable
        label="AML cases"
        columns={columns}
        data={cases}
        isLoading={queue.isLoading}
        error={queue.error}
        onRetry={() => void queue.refetch()}
        empty="No open AML cases. Screening hits open cases here."
        filterPlaceholder="Filter by subject, status or reason"
      />
      {current && <CaseDialog c={current} onClose={() => setSelected(null)} />}
    </>
  );
}

function CaseDialog({ c, onClose }: { c: Case; onClose: () => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const [text, setText] = useState("");
  const done = (title: string) => () => {
    toast({ tone: "ok", title });
    void qc.invalidateQueries({ queryKey: trpc.aml.queue.queryKey() });
    setText("");
  };
  const client = useTRPCClient();
  const propose = useSubmission(client.aml.proposeClear, {
    fields: CASE_FIELDS,
    validate: (input) => present([textIssue(["reason"], input.reason, 3, 500)]),
    onSuccess: (r) => done(r.pendingApproval ? "Clear proposed: waiting for a second member" : "Case cleared")(),
  });
  const approve = useSubmission(client.aml.approveClear, {
    fields: CASE_FIELDS,
    validate: (input) => present([textIssue(["body", "notes"], input.body.notes ?? "", 0, 500)]),
    onSuccess: () => {
      done("Clear approved: flags lifted")();
      onClose();
    },
  });
  const confirm = useSubmission(client.aml.confirm, {
    fields: CASE_FIELDS,
    validate: (input) => present([textIssue(["body", "reason"], input.body.reason, 1, 500)]),
    onSuccess: () => {
      done("Match confirmed: flags stay up")();
      onClose();
    },
  });
  const iProposed = c.proposedBy === `member:${me.email}`;
  // The last action tried speaks; the text box is the one field all three share.
  const [tried, setTried] = useState<"propose" | "approve" | "confirm" | null>(null);
  const sub = tried === "propose" ? propose : tried === "approve" ? approve : tried === "confirm" ? confirm : null;
  const textError = sub?.fieldError("reason") ?? sub?.fieldError("body.reason") ?? sub?.fieldError("body.notes");
  const busy = propose.isPending || approve.isPending || confirm.isPending;
  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`AML case · ${c.priority} priority`} description={c.subjectDid}>
      <div>
        <dl className="grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[8rem_1fr]">
          <dt className="text-slate-500">Status</dt>
          <dd data-testid="case-status">{c.status.replace("_", " ")}</dd>
          <dt className="text-slate-500">Reason</dt>
          <dd>{c.reason}</dd>
          <dt className="text-slate-500">Opened</dt>
          <dd>
            {fmtTime(c.openedAt)} by <span className="break-all">{c.openedBy}</span>
          </dd>
          {c.proposedBy && (
            <>
              <dt className="text-slate-500">Clear proposed</dt>
              <dd>
                {fmtTime(c.proposedAt)} by <span className="break-all">{c.proposedBy}</span>: “{c.proposeReason}”
              </dd>
            </>
          )}
        </dl>
        <h3 className="mt-4 text-sm font-semibold">Screening hits</h3>
        {c.hits.length === 0 ? (
          <p className="text-sm text-slate-500">No screening hits recorded (opened by hand).</p>
        ) : (
          <ul className="mt-1 divide-y divide-slate-100 text-sm">
            {c.hits.map((h, i) => (
              <li key={h.resultId ?? i} className="flex flex-wrap items-center gap-2 py-1.5">
                <Badge tone={PRIORITY_TONE[h.severity] ?? "slate"}>{h.severity}</Badge>
                {h.sanctions && <Badge tone="red">sanctions</Badge>}
                {h.pep && <Badge tone="amber">PEP</Badge>}
                <span>score {h.score}</span>
                <span className="text-slate-500">{fmtTime(h.createdAt)}</span>
              </li>
            ))}
          </ul>
        )}
        <Screenings caseId={c.caseId} />
        <form className="mt-4 space-y-3" onSubmit={(e) => e.preventDefault()}>
          <div>
            <label htmlFor="case-text" className="label">
              {c.status === "pending_approval" ? "Notes (optional for approval, required to confirm)" : "Reason"}
            </label>
            <textarea
              id="case-text"
              rows={2}
              className="field"
              aria-describedby="case-text-count case-text-error"
              aria-invalid={!!textError}
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
            <FieldError id="case-text-error" text={textError} />
            <Counter id="case-text-count" value={text} max={500} min={c.status === "open" ? 3 : 0} />
          </div>
          {c.status === "pending_approval" && iProposed && (
            <p role="note" className="rounded-md bg-indigo-50 p-2 text-sm text-indigo-900">
              You proposed this clear, so you cannot approve it: four-eyes needs a different member to approve.
            </p>
          )}
          <FormError text={sub?.formError} />
          <ModalActions>
            <button
              type="button"
              className="btn-secondary"
              disabled={busy || !text.trim()}
              onClick={() => {
                setTried("confirm");
                confirm.submit({ caseId: c.caseId, body: { reason: text } });
              }}
            >
              Confirm match
            </button>
            {c.status === "open" ? (
              <button
                type="button"
                className="btn-primary"
                disabled={busy || text.trim().length < 3}
                onClick={() => {
                  setTried("propose");
                  propose.submit({ subjectDid: c.subjectDid, reason: text });
                }}
              >
                Propose clear
              </button>
            ) : (
              <button
                type="button"
                className="btn-primary"
                disabled={busy || iProposed}
                onClick={() => {
                  setTried("approve");
                  approve.submit({ caseId: c.caseId, body: text.trim() ? { notes: text } : {} });
                }}
              >
                Approve clear
              </button>
            )}
          </ModalActions>
        </form>
      </div>
    </Modal>
  );
}

/** What the stored screening recorded for this case's hits: list versions and each match's score breakdown. */
function Screenings({ caseId }: { caseId: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.aml.detail.queryOptions({ caseId }));
  const screenings = detail.data?.screenings ?? [];
  if (detail.isLoading) return <p className="mt-3 text-sm text-slate-500">Loading the screening details…</p>;
  if (!screenings.length)
    return (
      <p className="mt-3 text-sm text-slate-500">
        No list screening is stored for this case (the match came from the KYC provider or the case was opened by hand).
      </p>
    );
  return (
    <section className="mt-4" aria-label="Screening details">
      {screenings.map((s) => (
        <div key={s.resultId} className="rounded-md border border-slate-200 p-3 text-sm">
          <p className="font-medium">
            Screening of {fmtTime(s.screenedAt)} · score {s.score}
            {s.scoringVersion ? ` · scoring ${s.scoringVersion}` : ""}
            {s.threshold != null ? ` · threshold ${s.threshold}` : ""}
          </p>
          <p className="mt-1 text-xs text-slate-500">
            Lists:{" "}
            {s.listVersions.map((v) => `${v.list ?? "list"} ${v.versionHash ? v.versionHash.slice(0, 10) : v.id.slice(0, 8)}`).join(", ") ||
              "—"}
          </p>
          <ul className="mt-2 space-y-2">
            {s.matches.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a stored result's matches, read-only and in their stored order
              <li key={i} className="rounded bg-slate-50 p-2">
                <p>
                  <span className="font-medium">{m.name ?? "entry"}</span> on {m.list ?? "a list"} · {m.topics.join(", ")} ·{" "}
                  {m.score != null ? m.score.toFixed(2) : "—"}
                </p>
                {m.breakdown && (
                  <dl className="mt-1 grid grid-cols-2 gap-x-3 text-xs text-slate-600 sm:grid-cols-3">
                    {Object.entries(m.breakdown).map(([k, v]) => (
                      <div key={k} className="flex justify-between gap-2">
                        <dt>{k}</dt>
                        <dd className="tabular-nums">{typeof v === "number" ? v.toFixed(2) : String(v)}</dd>
                      </div>
                    ))}
                  </dl>
                )}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
