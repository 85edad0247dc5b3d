"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Badge, fmtTime } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { AttemptsDialog } from "./attempts-dialog";

type Delivery = RouterOutputs["webhooks"]["deliveries"]["deliveries"][number];
const STATUS_TONE = { pending: "amber", failed: "amber", delivered: "green", dead: "red" } as const;

/** The organization's recent deliveries: filter by status, see each one's attempts, replay a failed or dead one. */
export function Deliveries() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const [status, setStatus] = useState<Delivery["status"] | "">("");
  const [inspecting, setInspecting] = useState<Delivery | null>(null);
  const list = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ limit: "100", ...(status ? { status } : {}) }),
    refetchInterval: 5000,
  });
  const replay = useSubmission(client.webhooks.replay, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Delivery queued again", body: "Same body and delivery id, fresh signature." });
      void qc.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "The delivery was not replayed", body: err.message }),
  });
  const replayMutate = replay.submit;
  const replaying = replay.isPending;
  const columns = useMemo(() => {
    const c = columnsFor<Delivery>();
    return [
      c.accessor("event", { header: "Event", cell: (i) => <code className="text-xs">{i.getValue()}</code> }),
      c.accessor("status", { header: "Status", cell: (i) => <Badge tone={STATUS_TONE[i.getValue()]}>{i.getValue()}</Badge> }),
      c.accessor("attempts", { header: "Attempts" }),
      c.accessor((d) => d.lastError ?? (d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : ""), {
        id: "lastError",
        header: "Last answer",
        cell: (i) => <span className="text-slate-600">{i.getValue() || "—"}</span>,
      }),
      c.accessor("updatedAt", {
        header: "Updated",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) => (
          <div className="flex flex-wrap justify-end gap-2">
            {i.row.original.attempts > 0 && (
              <button type="button" className="btn-secondary" onClick={() => setInspecting(i.row.original)}>
                Attempts
              </button>
            )}
            {(i.row.original.status === "dead" || i.row.original.status === "failed") && (
              <button type="button" className="btn-secondary" disabled={replaying} onClick={() => replayMutate({ id: i.row.original.id })}>
                Replay
              </button>
            )}
          </div>
        ),
      }),
    ];
  }, [replayMutate, replaying]);
  return (
    <section className="mt-8" aria-labelledby="deliveries-h">
      <h2 id="deliveries-h" className="mb-3 text-lg font-semibold">
        Deliveries
      </h2>
      <DataTable
        label="Deliveries"
        columns={columns}
        data={list.data?.deliveries}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty={status ? `No ${status} deliveries.` : "No deliveries yet."}
        filterPlaceholder="Filter by event or error"
        toolbar={
          <>
            <label htmlFor="delivery-status" className="sr-only">
              Status
            </label>
            <select
              id="delivery-status"
              className="field w-auto py-1"
              value={status}
              onChange={(e) => setStatus(e.target.value as Delivery["status"] | "")}
            >
              <option value="">All statuses</option>
              {(["pending", "failed", "delivered", "dead"] as const).map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </>
        }
      />
      {inspecting && <AttemptsDialog delivery={inspecting} onClose={() => setInspecting(null)} />}
    </section>
  );
}
