"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ActivityList, BackLink, Fact, Facts, Section } from "@/components/console/activity";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { personShortLabel } from "@/lib/person-label";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";
import { PersonAccessExport } from "./_components/access-export";
import { PossibleDuplicate } from "./_components/duplicate";
import { PersonErasure } from "./_components/erasure";
import { KYC_TONE } from "./_components/kyc-tone";

type Person = RouterOutputs["people"]["get"];
const CASE_TONE = { open: "red", pending_approval: "amber", cleared: "green", confirmed: "slate" } as const;
const SEVERITY_TONE = { critical: "red", high: "red", medium: "amber", low: "slate" } as const;

export default function PersonPage() {
  return (
    <RoleGate min="operator">
      <PersonDetail />
    </RoleGate>
  );
}

function PersonDetail() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const q = useQuery(trpc.people.get.queryOptions({ id: decodeURIComponent(id) }));
  const p = q.data;
  if (p?.erasedAt) return <ErasedPerson p={p} erasedAt={p.erasedAt} />;
  return (
    <>
      <BackLink href="/console/people" label="People" />
      <PageHeader
        title={p ? p.label : "Person"}
        description="We hold no names or documents: they stay with the KYC provider. A person is named here by a short form of their id."
      />
      {q.error && <ErrorState error={q.error} onRetry={() => void q.refetch()} />}
      {q.isLoading && <LoadingRows rows={6} />}
      {p && <Body p={p} />}
    </>
  );
}

/**
 * An erased person: their DID and when they were erased, nothing else. What the read still
 * returns (statuses, dates, revoked bindings) keeps the audit trail and statistics true; the page
 * is not the place to piece the person together again.
 */
function ErasedPerson({ p, erasedAt }: { p: Person; erasedAt: string }) {
  return (
    <>
      <BackLink href="/console/people" label="People" />
      <div className="mb-5">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">{personShortLabel(p.personDid)}</h1>
          <Badge tone="slate">Erased {fmtTime(erasedAt)}</Badge>
        </div>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <span className="min-w-0 break-all font-mono text-xs text-slate-700">{p.personDid}</span>
          <CopyButton value={p.personDid} label="Copy DID" />
        </div>
      </div>
    </>
  );
}

function Body({ p }: { p: Person }) {
  const me = useMe();
  const compliance = atLeast(me.role, "compliance_officer");
  const admin = atLeast(me.role, "admin");
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      {compliance && p.duplicate && (
        <div className="min-w-0 lg:col-span-2">
          <PossibleDuplicate duplicate={p.duplicate} />
        </div>
      )}
      <Section title="KYC">
        <Facts>
          <Fact label="Status">
            <Badge tone={KYC_TONE[p.kycStatus]}>{p.kycStatus.replace("_", " ")}</Badge>
          </Fact>
          <Fact label="Level">{p.kycLevel}</Fact>
          <Fact label="Provider">{p.kycProvider ?? "—"}</Fact>
          <Fact label="Reviewed">{fmtTime(p.reviewedAt)}</Fact>
          <Fact label="Country">{p.country ?? "—"}</Fact>
          <Fact label="Started">{fmtTime(p.createdAt)}</Fact>
          <Fact label="DID">
            <span className="flex items-center gap-2">
              <span className="break-all font-mono text-xs">{p.personDid}</span>
              <CopyButton value={p.personDid} label="Copy DID" />
            </span>
          </Fact>
          {compliance && p.pairwiseId && (
            <Fact label="Pairwise id">
              <span className="flex items-center gap-2">
                <span className="break-all font-mono text-xs">{p.pairwiseId}</span>
                <CopyButton value={p.pairwiseId} label="Copy pairwise id" />
              </span>
            </Fact>
          )}
        </Facts>
      </Section>
      <Section title="Flags">
        <Facts>
          <Fact label="Sanctions">{p.sanctionsFlag ? <Badge tone="red">flagged</Badge> : "No"}</Fact>
          <Fact label="PEP">{p.pepFlag ? <Badge tone="amber">flagged</Badge> : "No"}</Fact>
          <Fact label="Risk score">
            <span className="tabular-nums">{p.riskScore} / 100</span>
          </Fact>
        </Facts>
      </Section>
      <Section title="Screening results">
        {p.screenings.length === 0 ? (
          <p className="mt-2 text-sm text-slate-500">Not screened yet. Screening runs when KYC is approved.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm">
            {p.screenings.map((s) => (
              <li key={s.resultId} className="py-2">
                <div className="flex flex-wrap items-center gap-2">
                  {s.severity ? <Badge tone={SEVERITY_TONE[s.severity]}>{s.severity}</Badge> : <Badge tone="green">no match</Badge>}
                  {s.sanctions && <Badge tone="red">sanctions</Badge>}
                  {s.pep && <Badge tone="amber">PEP</Badge>}
                  <span className="text-slate-500">score {s.score}</span>
                  <time className="ml-auto text-xs text-slate-500" dateTime={s.screenedAt}>
                    {fmtTime(s.screenedAt)}
                  </time>
                </div>
                <p className="mt-1 break-words text-xs text-slate-500">
                  Lists: {s.listVersions.map((v) => `${v.list} (version ${v.versionHash.slice(0, 8)})`).join(", ") || "—"}
                </p>
                {s.matches.map((m) => (
                  <p key={`${m.list}-${m.externalId}`} className="mt-1 break-words">
                    Matched <span className="font-medium">{m.name}</span> on {m.list} ({m.externalId}
                    {m.topics.length ? `, ${m.topics.join(", ")}` : ""}) at {Math.round(m.score * 100)}%
                  </p>
                ))}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section
        title="AML cases"
        actions={
          compliance && p.amlCases.length ? (
            <Link href="/console/aml" className="text-sm text-indigo-600 hover:underline">
              AML queue
            </Link>
          ) : undefined
        }
      >
        {p.amlCases.length === 0 ? (
          <p className="mt-2 text-sm text-slate-500">No AML cases.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm">
            {p.amlCases.map((c) => (
              <li key={c.caseId} className="py-2">
                <div className="flex flex-wrap items-center gap-2">
                  <Badge tone={CASE_TONE[c.status]}>{c.status.replace("_", " ")}</Badge>
                  <Badge tone={SEVERITY_TONE[c.priority]}>{c.priority}</Badge>
                  <time className="ml-auto text-xs text-slate-500" dateTime={c.createdAt}>
                    opened {fmtTime(c.createdAt)}
                  </time>
                </div>
                <p className="mt-1 break-words text-slate-700">{c.reason}</p>
                <p className="mt-1 break-words text-xs text-slate-500">
                  Opened by {c.openedBy}
                  {c.proposedBy && ` · proposed by ${c.proposedBy}`}
                  {c.approvedBy && ` · approved by ${c.approvedBy}`}
                  {c.confirmedBy && ` · confirmed by ${c.confirmedBy}`}
                  {c.closedAt && ` · closed ${fmtTime(c.closedAt)}`}
                </p>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Bindings and accounts">
        {p.bindings.length === 0 ? (
          <p className="mt-2 text-sm text-slate-500">Not bound to any account.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm">
            {p.bindings.map((b) => {
              const account = p.accounts.find((a) => a.accountDid === b.accountDid);
              return (
                <li key={b.bindingId} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                  <Link
                    href={`/console/accounts/${encodeURIComponent(b.accountName)}`}
                    className="font-mono font-medium text-indigo-700 hover:underline"
                  >
                    {b.accountName}
                  </Link>
                  {account && <Badge tone="indigo">{account.lifecycle}</Badge>}
                  {b.revokedAt ? <Badge tone="red">revoked {fmtTime(b.revokedAt)}</Badge> : <Badge tone="green">active</Badge>}
                  <span className="text-xs text-slate-500">bound {fmtTime(b.createdAt)}</span>
                </li>
              );
            })}
          </ul>
        )}
      </Section>
      <Section title="Activity">
        <ActivityList entries={p.audit} empty="No audit entries about this person." />
      </Section>
      {compliance && <PersonAccessExport person={p} />}
      {admin && <PersonErasure person={p} />}
    </div>
  );
}
