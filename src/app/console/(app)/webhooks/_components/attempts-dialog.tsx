"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge, fmtTime } from "@/components/ui/badge";
import { Modal } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useTRPC } from "@/trpc/react";

const TONE = { pending: "amber", failed: "amber", delivered: "green", dead: "red" } as const;

/** A delivery's attempts with what the receiver answered (redacted, at most 2 KB each). */
export function AttemptsDialog(props: { delivery: { id: string; event: string }; onClose: () => void }) {
  const trpc = useTRPC();
  const attempts = useQuery(trpc.webhooks.attempts.queryOptions({ id: props.delivery.id }));
  return (
    <Modal
      open
      onOpenChange={(o) => !o && props.onClose()}
      title={`Attempts of ${props.delivery.event}`}
      description="Newest first. Answers are the first 2 KB, with secrets, signatures and email addresses redacted; nothing is kept of a redirect."
    >
      {attempts.isLoading ? (
        <LoadingRows rows={2} />
      ) : attempts.error ? (
        <ErrorState error={attempts.error} onRetry={() => void attempts.refetch()} />
      ) : attempts.data?.attempts.length ? (
        <ol className="space-y-3" aria-label="Attempts">
          {attempts.data.attempts.map((a) => (
            <li key={`${a.at}-${a.attempt}`} className="rounded-md border border-slate-200 p-3 text-sm">
              <p className="flex flex-wrap items-center gap-2">
                <span className="font-medium">#{a.attempt}</span>
                <Badge tone={TONE[a.outcome]}>{a.outcome}</Badge>
                <span>{a.statusCode ? `HTTP ${a.statusCode}` : "no answer"}</span>
                <span className="text-slate-600">{a.latencyMs} ms</span>
                <span className="text-slate-600">{fmtTime(a.at)}</span>
              </p>
              {a.error && <p className="mt-1 text-slate-700">{a.error}</p>}
              {a.answer !== null ? (
                <pre className="mt-2 max-h-48 overflow-y-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 text-xs">
                  {a.answer}
                </pre>
              ) : (
                <p className="mt-1 text-xs text-slate-500">No answer body kept.</p>
              )}
            </li>
          ))}
        </ol>
      ) : (
        <p className="text-sm text-slate-600">No attempt yet.</p>
      )}
    </Modal>
  );
}
