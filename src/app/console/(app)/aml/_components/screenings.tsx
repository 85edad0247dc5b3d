"use client";

import { useQuery } from "@tanstack/react-query";
import { fmtTime } from "@/components/ui/badge";
import { useTRPC } from "@/trpc/react";

/** What the stored screening recorded for this case's hits: list versions and each match's score breakdown. */
export function Screenings({ caseId }: { caseId: string }) {
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
