"use client";
import { Badge, fmtTime } from "@/components/ui/badge";
import type { RouterOutputs } from "@/trpc/outputs";
import { PriorityBadge } from "../../_components/case-ui";

type Hit = RouterOutputs["aml"]["timeline"]["case"]["hits"][number];

/** One screening hit with the evidence behind it: who was screened, what matched and why, what the KYC provider reported. */
export function HitEvidence({ h, n }: { h: Hit; n: number }) {
  const e = h.evidence;
  return (
    <li className="rounded-md border border-slate-200 p-3 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">Hit {n}</span>
        <PriorityBadge priority={h.severity} />
        {h.sanctions && <Badge tone="red">sanctions</Badge>}
        {h.pep && <Badge tone="amber">PEP</Badge>}
        <span>score {h.score}</span>
        <time className="text-slate-500" dateTime={h.createdAt}>
          {fmtTime(h.createdAt)}
        </time>
      </div>
      {!e ? (
        <p className="mt-2 text-slate-500">This hit was recorded before evidence was kept.</p>
      ) : (
        <>
          <p className="mt-2 break-words text-slate-800">{e.summary}</p>
          <h4 className="mt-3 text-xs font-semibold uppercase tracking-wide text-slate-500">Who was screened</h4>
          <dl className="mt-1 grid gap-x-6 gap-y-1 sm:grid-cols-3">
            <Pair label="Name" value={e.subject.name} />
            <Pair label="Birth date" value={e.subject.birthDate} />
            <Pair label="Country" value={e.subject.country} />
          </dl>
          <p className="mt-1 text-xs text-slate-500">
            {e.subject.source === "kyc_provider" ? "As the KYC provider verified them." : "Only what the person's record holds."}
          </p>
          {e.matches.length > 0 && (
            <>
              <h4 className="mt-3 text-xs font-semibold uppercase tracking-wide text-slate-500">What matched, and why</h4>
              <ul className="mt-1 space-y-2">
                {e.matches.map((m) => (
                  <li key={m.entryId} className="rounded bg-slate-50 p-2">
                    <p className="break-words">
                      <span className="font-medium">{m.name}</span> on {m.list}
                      {m.programme ? ` · programme ${m.programme}` : ""}
                      {m.topics.length ? ` · ${m.topics.join(", ")}` : ""} · score {m.score}
                    </p>
                    <p className="mt-1 break-words text-slate-700">Why: {m.explanation}</p>
                    <dl className="mt-1 grid gap-x-6 gap-y-1 text-xs sm:grid-cols-2">
                      <Pair label="Aliases" value={m.aliases.join(", ") || null} />
                      <Pair label="Matched name" value={m.matchedName} />
                      <Pair label="Birth dates" value={m.birthDates.join(", ") || null} />
                      <Pair label="Countries" value={m.countries.join(", ") || null} />
                      <Pair label="List version" value={m.listVersionHash ? m.listVersionHash.slice(0, 16) : m.listVersionId} />
                      <Pair label="Entry" value={m.externalId ?? m.entryId} />
                    </dl>
                  </li>
                ))}
              </ul>
            </>
          )}
          {e.provider && (
            <>
              <h4 className="mt-3 text-xs font-semibold uppercase tracking-wide text-slate-500">What the KYC provider reported</h4>
              <p className="mt-1 break-words">
                {e.provider.name}:{" "}
                {[e.provider.sanctions && "sanctions match", e.provider.pep && "PEP"].filter(Boolean).join(", ") || "no match"}
                {e.provider.labels.length ? ` · labels ${e.provider.labels.join(", ")}` : ""}
              </p>
            </>
          )}
        </>
      )}
    </li>
  );
}

function Pair({ label, value }: { label: string; value: string | null }) {
  return (
    <div className="min-w-0">
      <dt className="inline text-slate-500">{label}: </dt>
      <dd className="inline break-words">{value ?? "—"}</dd>
    </div>
  );
}
