"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { BackLink, Fact, Facts, Section } from "@/components/console/activity";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { FormError } from "@/components/ui/form-field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useSubmission } from "@/components/ui/use-submission";
import { downloadJson } from "@/lib/download-json";
import { personIdOfDid, personShortLabel } from "@/lib/person-label";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { CaseDecision, PriorityBadge, SlaBadge, StatusBadge, subjectName, who } from "../_components/case-ui";
import { Screenings } from "../_components/screenings";
import { Assignment, CommentBox } from "./_components/casework";
import { HitEvidence } from "./_components/hit-evidence";
import { Timeline } from "./_components/timeline";

type CaseTimeline = RouterOutputs["aml"]["timeline"];

export default function AmlCasePage() {
  return (
    <RoleGate min="compliance_officer">
      <CaseView />
    </RoleGate>
  );
}

function CaseView() {
  const { caseId } = useParams<{ caseId: string }>();
  const trpc = useTRPC();
  const q = useQuery(trpc.aml.timeline.queryOptions({ caseId: decodeURIComponent(caseId) }));
  const t = q.data;
  const name = t ? (subjectName(t.case) ?? personShortLabel(t.case.subjectDid)) : null;
  return (
    <>
      <BackLink href="/console/aml" label="AML queue" />
      <PageHeader
        title={name ? `AML case · ${name}` : "AML case"}
        description={
          t ? (
            <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <StatusBadge status={t.case.status} />
              <PriorityBadge priority={t.case.priority} />
              <SlaBadge c={t.case} />
              {t.case.ageing && t.case.dueAt && <span>due {fmtTime(t.case.dueAt)}</span>}
              <span>opened {fmtTime(t.case.openedAt)}</span>
            </span>
          ) : undefined
        }
        actions={t ? <ExportButton caseId={t.case.caseId} /> : undefined}
      />
      {q.error && <ErrorState error={q.error} onRetry={() => void q.refetch()} />}
      {q.isLoading && <LoadingRows rows={6} />}
      {t && <Body t={t} />}
    </>
  );
}

function Body({ t }: { t: CaseTimeline }) {
  const c = t.case;
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Section title="Case">
        <Facts>
          <Fact label="Status">
            <span data-testid="case-status">{c.status.replace("_", " ")}</span>
          </Fact>
          <Fact label="Priority">{c.priority}</Fact>
          <Fact label="Deadline">
            {c.ageing ? (
              <span className="flex flex-wrap items-center gap-2">
                <SlaBadge c={c} /> {fmtTime(c.dueAt)}
              </span>
            ) : (
              `closed ${fmtTime(c.closedAt)}`
            )}
          </Fact>
          <Fact label="Opened">
            {fmtTime(c.openedAt)} by <span className="[overflow-wrap:anywhere]">{who(c.openedBy)}</span>
          </Fact>
          <Fact label="Reason">{c.reason}</Fact>
          {c.proposedBy && (
            <Fact label="Clear proposed">
              {fmtTime(c.proposedAt)} by <span className="[overflow-wrap:anywhere]">{who(c.proposedBy!)}</span>: “{c.proposeReason}”
            </Fact>
          )}
          {c.approvedBy && (
            <Fact label="Clear approved">
              {fmtTime(c.approvedAt)} by <span className="[overflow-wrap:anywhere]">{who(c.approvedBy!)}</span>
              {c.approveNotes ? `: “${c.approveNotes}”` : ""}
            </Fact>
          )}
          {c.confirmedBy && (
            <Fact label="Match confirmed">
              {fmtTime(c.confirmedAt)} by <span className="[overflow-wrap:anywhere]">{who(c.confirmedBy!)}</span>: “{c.confirmReason}”
            </Fact>
          )}
        </Facts>
        <Assignment c={c} />
      </Section>
      <Section title="Decision">
        <div className="mt-3">
          <CaseDecision c={c} Actions={RowActions} />
        </div>
        <h3 className="mt-5 text-sm font-semibold">What clearing changes</h3>
        <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-slate-700">
          {t.clearing.changes.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
        <h3 className="mt-3 text-sm font-semibold">What clearing does not change</h3>
        <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-slate-700">
          {t.clearing.doesNotChange.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      </Section>
      <div className="lg:col-span-2">
        <Section title="Evidence">
          {c.hits.length === 0 ? (
            <p className="mt-2 text-sm text-slate-500">No screening hits recorded (opened by hand).</p>
          ) : (
            <ol className="mt-3 space-y-4">
              {c.hits.map((h, i) => (
                <HitEvidence key={h.resultId ?? i} h={h} n={i + 1} />
              ))}
            </ol>
          )}
          <Screenings caseId={c.caseId} />
        </Section>
      </div>
      <Section title="Comments">
        <CommentBox caseId={c.caseId} />
      </Section>
      <Section title="Person and accounts">
        <Related t={t} />
      </Section>
      <div className="lg:col-span-2">
        <Section title="Timeline">
          <Timeline events={t.events} />
        </Section>
      </div>
    </div>
  );
}

function RowActions({ children }: { children: React.ReactNode }) {
  return <div className="flex flex-wrap justify-end gap-2">{children}</div>;
}

function Related({ t }: { t: CaseTimeline }) {
  const personId = personIdOfDid(t.case.subjectDid);
  return (
    <div className="mt-3 space-y-3 text-sm">
      {t.person && personId ? (
        <p className="flex flex-wrap items-center gap-2">
          <Link href={`/console/people/${personId}`} className="font-medium text-indigo-700 underline">
            {personShortLabel(t.person.personDid)}
          </Link>
          <span className="text-slate-600">KYC {t.person.kycStatus.replace("_", " ")}</span>
          {t.person.sanctionsFlag && <Badge tone="red">sanctions flag</Badge>}
          {t.person.pepFlag && <Badge tone="amber">PEP flag</Badge>}
          <span className="text-slate-600">risk {t.person.riskScore} / 100</span>
        </p>
      ) : (
        <p className="break-all text-slate-600">Subject {t.case.subjectDid} (no person record in this organization).</p>
      )}
      {t.bindings.length === 0 ? (
        <p className="text-slate-500">Not bound to any account.</p>
      ) : (
        <ul className="divide-y divide-slate-100" aria-label="Bindings">
          {t.bindings.map((b) => {
            const a = t.accounts.find((x) => x.accountDid === b.accountDid);
            return (
              <li key={b.bindingId} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                <Link
                  href={`/console/accounts/${encodeURIComponent(a?.name ?? b.accountDid)}`}
                  className="font-mono font-medium text-indigo-700 underline"
                >
                  {a?.name ?? b.accountDid}
                </Link>
                {a && <Badge tone="indigo">{a.lifecycle}</Badge>}
                {b.revokedAt ? <Badge tone="red">revoked {fmtTime(b.revokedAt)}</Badge> : <Badge tone="green">active</Badge>}
                <span className="text-xs text-slate-500">bound {fmtTime(b.createdAt)}</span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** Downloads the signed examiner's bundle (aml.exportCase) as a JSON file; the export is itself recorded on the timeline. */
function ExportButton({ caseId }: { caseId: string }) {
  const client = useTRPCClient();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const exp = useSubmission(client.aml.exportCase, {
    onSuccess: (bundle) => {
      downloadJson(`aml-case-${caseId}.json`, bundle);
      void qc.invalidateQueries({ queryKey: trpc.aml.timeline.queryKey({ caseId }) });
    },
  });
  return (
    <div className="flex flex-col gap-2">
      <button type="button" className="btn-secondary" disabled={exp.isPending} onClick={() => exp.submit({ caseId })}>
        Export for an examiner
      </button>
      <FormError text={exp.formError} />
    </div>
  );
}
