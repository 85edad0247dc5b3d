"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useMemo, useState } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader, ShortDid } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Modal, ModalActions } from "@/components/ui/dialog";
import { useTRPC } from "@/trpc/react";
import { age, type Case, CaseDecision, PRIORITY_RANK, PriorityBadge, SlaBadge, StatusBadge, subjectName } from "./_components/case-ui";
import { Screenings } from "./_components/screenings";
import { TakeNext } from "./_components/take-next";

type Status = "open" | "closed" | "all";
const EMPTY: Record<Status, string> = {
  open: "No open AML cases. Screening hits open cases here.",
  closed: "No closed AML cases yet.",
  all: "No AML cases yet. Screening hits open cases here.",
};

export default function AmlPage() {
  return (
    <RoleGate min="compliance_officer">
      <Queue />
    </RoleGate>
  );
}

function Queue() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<Status>("open");
  const [mine, setMine] = useState(false);
  const [search, setSearch] = useState("");
  const q = useDeferredValue(search.trim());
  const queue = useQuery(trpc.aml.queue.queryOptions({ status, mine: mine || undefined, q: q.length >= 2 ? q : undefined, limit: 200 }));
  const [selected, setSelected] = useState<string | null>(null);
  const cases = queue.data?.cases;
  const current = cases?.find((c) => c.caseId === selected) ?? null;
  const columns = useMemo(() => {
    const c = columnsFor<Case>();
    return [
      c.accessor((x) => PRIORITY_RANK[x.priority], {
        id: "priority",
        header: "Priority",
        cell: (i) => <PriorityBadge priority={i.row.original.priority} />,
      }),
      c.accessor((x) => `${subjectName(x) ?? ""} ${x.subjectDid}`, {
        id: "subject",
        header: "Subject",
        cell: (i) => {
          const x = i.row.original;
          const name = subjectName(x);
          return (
            <Link href={`/console/aml/${x.caseId}`} className="block min-w-0 text-indigo-700 hover:underline">
              {name && <span className="block font-medium">{name}</span>}
              <ShortDid did={x.subjectDid} />
            </Link>
          );
        },
      }),
      c.accessor((x) => x.assigneeEmail ?? "", {
        id: "assignee",
        header: "Assignee",
        cell: (i) =>
          i.getValue() ? (
            <span className="[overflow-wrap:anywhere]">{i.getValue()}</span>
          ) : (
            <span className="text-slate-500">unassigned</span>
          ),
      }),
      c.accessor("openedAt", {
        header: "Age",
        sortFn: "datetime",
        cell: (i) => (
          <time dateTime={i.getValue()} title={fmtTime(i.getValue())} className="whitespace-nowrap tabular-nums">
            {age(i.getValue())}
          </time>
        ),
      }),
      c.accessor((x) => x.dueAt ?? "", {
        id: "sla",
        header: "SLA",
        cell: (i) => {
          const x = i.row.original;
          return (
            <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <SlaBadge c={x} />
              {x.ageing && x.dueAt && <span className="whitespace-nowrap text-xs text-slate-500">due {fmtTime(x.dueAt)}</span>}
            </span>
          );
        },
      }),
      c.accessor("status", { header: "Status", cell: (i) => <StatusBadge status={i.getValue()} /> }),
      c.display({
        id: "open",
        header: () => <span className="sr-only">Open</span>,
        cell: (i) => (
          <span className="flex flex-wrap justify-end gap-2">
            <Link href={`/console/aml/${i.row.original.caseId}`} className="btn-secondary">
              Open case
            </Link>
            <button type="button" className="btn-secondary" onClick={() => setSelected(i.row.original.caseId)}>
              Review
            </button>
          </span>
        ),
      }),
    ];
  }, []);
  return (
    <>
      <PageHeader
        title="AML queue"
        description="Open cases, highest priority first, then oldest. Clearing lifts the person's PEP and sanctions flags; with four-eyes on, a second member must approve."
        actions={<TakeNext />}
      />
      <div className="mb-3 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
        <div>
          <label htmlFor="aml-status" className="label">
            Cases
          </label>
          <select id="aml-status" className="field py-1.5" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
            <option value="open">Open (incl. awaiting approval)</option>
            <option value="closed">Closed</option>
            <option value="all">All</option>
          </select>
        </div>
        <div className="sm:w-72">
          <label htmlFor="aml-search" className="label">
            Search by name
          </label>
          <input
            id="aml-search"
            type="search"
            className="field py-1.5"
            placeholder="Subject or list entry name, or DID"
            value={search}
            maxLength={200}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <label className="flex items-center gap-2 text-sm sm:pb-2">
          <input type="checkbox" checked={mine} onChange={(e) => setMine(e.target.checked)} />
          My cases
        </label>
      </div>
      <DataTable
        label="AML cases"
        columns={columns}
        data={cases}
        isLoading={queue.isLoading}
        error={queue.error}
        onRetry={() => void queue.refetch()}
        empty={q.length >= 2 || mine ? "No cases match." : EMPTY[status]}
        filterPlaceholder="Filter the rows shown"
      />
      {current && (
        <Modal
          open
          onOpenChange={(o) => !o && setSelected(null)}
          title={`AML case · ${current.priority} priority`}
          description={current.subjectDid}
        >
          <CaseSummary c={current} />
          <Screenings caseId={current.caseId} />
          <p className="mt-3 text-sm">
            <Link href={`/console/aml/${current.caseId}`} className="text-indigo-700 underline">
              Open the case page
            </Link>{" "}
            for its evidence, timeline, assignee and comments.
          </p>
          <div className="mt-4">
            <CaseDecision c={current} Actions={ModalActions} onDone={(closed) => closed && setSelected(null)} />
          </div>
        </Modal>
      )}
    </>
  );
}

function CaseSummary({ c }: { c: Case }) {
  return (
    <>
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
              <PriorityBadge priority={h.severity} />
              {h.sanctions && <Badge tone="red">sanctions</Badge>}
              {h.pep && <Badge tone="amber">PEP</Badge>}
              <span>score {h.score}</span>
              <span className="text-slate-500">{fmtTime(h.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
