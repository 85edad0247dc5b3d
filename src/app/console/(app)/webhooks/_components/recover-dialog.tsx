"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, fmtTime } from "@/components/ui/badge";
import { FormDialog } from "@/components/ui/form-dialog";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPC, useTRPCClient } from "@/trpc/react";

/** A datetime-local value (the browser's time zone) for a date. */
const localInput = (d: Date) => {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** Progress of one recover job, read again every second until it completes. */
function Progress({ hookId, jobId }: { hookId: string; jobId: string }) {
  const trpc = useTRPC();
  const job = useQuery({
    ...trpc.webhooks.recoverJob.queryOptions({ id: hookId, jobId }),
    refetchInterval: (q) => (q.state.data?.state === "completed" ? false : 1000),
  });
  const j = job.data;
  if (!j) return <p className="text-sm text-slate-600">Reading the job…</p>;
  return (
    <div className="space-y-2 text-sm" data-testid="recover-progress">
      <p className="flex flex-wrap items-center gap-2">
        <Badge tone={j.state === "completed" ? "green" : "amber"}>{j.state}</Badge>
        <span>
          {j.done} of {j.total} sent again, {j.delivered} delivered
        </span>
      </p>
      <p className="text-slate-600">
        Deliveries created from {fmtTime(j.since)} to {fmtTime(j.until)}, oldest event first. Asking again for the same range shows this
        job.
      </p>
    </div>
  );
}

/**
 * Re-sends every failed or dead delivery of one endpoint in a time range. `since` is prefilled
 * (a day back, or the suggestion of an enable) and `note` says why when it came from one.
 */
export function RecoverDialog(props: { hook: { id: string; url: string }; since?: string; note?: string; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [since, setSince] = useState(() => localInput(props.since ? new Date(props.since) : new Date(Date.now() - 86_400_000)));
  const [until, setUntil] = useState("");
  const recover = useSubmission(client.webhooks.recover, {
    onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() }),
  });
  return (
    <FormDialog
      onOpenChange={(o) => !o && props.onClose()}
      title={recover.data ? "Recover queued" : "Recover deliveries"}
      description={
        props.note ??
        "Sends every failed or dead delivery of this endpoint in the range again, one at a time in the order the events happened."
      }
      submission={recover}
      onSubmit={() => recover.submit({ id: props.hook.id, body: { since: toIso(since) ?? "", ...(until ? { until: toIso(until) } : {}) } })}
      submitLabel="Recover"
      pendingLabel="Queuing…"
      done={recover.data && <Progress hookId={props.hook.id} jobId={recover.data.id} />}
    >
      <p className="break-all text-sm text-slate-700">{props.hook.url}</p>
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          <label htmlFor="recover-since" className="label">
            Created since
          </label>
          <input
            id="recover-since"
            type="datetime-local"
            required
            className="field"
            value={since}
            onChange={(e) => setSince(e.target.value)}
          />
        </div>
        <div>
          <label htmlFor="recover-until" className="label">
            Until (empty: now)
          </label>
          <input id="recover-until" type="datetime-local" className="field" value={until} onChange={(e) => setUntil(e.target.value)} />
        </div>
      </div>
    </FormDialog>
  );
}
