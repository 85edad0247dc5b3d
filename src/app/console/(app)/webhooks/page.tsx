"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { Deliveries } from "./_components/deliveries";
import { RecoverDialog } from "./_components/recover-dialog";
import { RegisterWebhook } from "./_components/register-webhook";
import { RotateSecret } from "./_components/rotate-secret";
import { TestEventDialog } from "./_components/test-event-dialog";

type Hook = RouterOutputs["webhooks"]["list"]["webhooks"][number];

export default function WebhooksPage() {
  return (
    <RoleGate min="operator">
      <Webhooks />
      <Deliveries />
    </RoleGate>
  );
}

const STATE_TONE = { active: "green", failing: "amber", disabled: "red", deactivated: "slate" } as const;

/** The state badge with the line that explains it. */
function Health({ hook }: { hook: Hook }) {
  return (
    <div className="space-y-1">
      <Badge tone={STATE_TONE[hook.state]}>{hook.state}</Badge>
      {hook.state === "failing" && hook.failingSince && (
        <p className="text-xs text-slate-600">failing since {fmtTime(hook.failingSince)}</p>
      )}
      {hook.state === "disabled" && hook.disabledAt && (
        <p className="text-xs text-slate-600">
          {hook.disabledReason === "failing" ? "disabled after failing" : "disabled by hand"} {fmtTime(hook.disabledAt)}
        </p>
      )}
      {hook.previousSecretValidUntil && (
        <p className="text-xs text-slate-600">old secret signs until {fmtTime(hook.previousSecretValidUntil)}</p>
      )}
    </div>
  );
}

const rate = (h: Hook) => h.recent.successRate;
const rateText = (h: Hook) =>
  h.recent.successRate === null
    ? "—"
    : `${Math.round(h.recent.successRate * 100)}% of ${h.recent.delivered + h.recent.failed + h.recent.dead}`;

type Dialog =
  | { kind: "rotate"; hook: Hook }
  | { kind: "test"; hook: Hook }
  | { kind: "recover"; hook: Hook; since?: string; note?: string };

function Webhooks() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const list = useQuery({ ...trpc.webhooks.list.queryOptions(), refetchInterval: 10_000 });
  const isAdmin = atLeast(me.role, "admin");
  // Dialogs live outside the table: a row re-rendered by a refetch must not close one (the rotated secret is shown once).
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
  const submission = (title: string, failed: string) => ({
    onSuccess: () => {
      toast({ tone: "ok" as const, title });
      refresh();
    },
    onError: (err: { message: string }) => toast({ tone: "error" as const, title: failed, body: err.message }),
  });
  const deactivate = useSubmission(client.webhooks.deactivate, submission("Webhook deactivated", "The webhook was not deactivated"));
  const disable = useSubmission(client.webhooks.disable, submission("Webhook disabled", "The webhook was not disabled"));
  const enable = useSubmission(client.webhooks.enable, {
    onSuccess: (r, input) => {
      toast({ tone: "ok", title: "Webhook enabled" });
      refresh();
      const hook = list.data?.webhooks.find((h) => h.id === input.id);
      if (hook && r.suggestedRecoverSince)
        setDialog({
          kind: "recover",
          hook,
          since: r.suggestedRecoverSince,
          note: `Enabled. Recover what it missed: deliveries since ${fmtTime(r.suggestedRecoverSince)}, when it began failing or was disabled.`,
        });
    },
    onError: (err) => toast({ tone: "error", title: "The webhook was not enabled", body: err.message }),
  });
  const [deactivateMutate, disableMutate, enableMutate] = [deactivate.submit, disable.submit, enable.submit];
  const columns = useMemo(() => {
    const c = columnsFor<Hook>();
    return [
      c.accessor("url", { header: "URL", cell: (i) => <span className="break-all font-mono text-xs">{i.getValue()}</span> }),
      c.accessor((h) => h.events.join(" "), {
        id: "events",
        header: "Events",
        enableSorting: false,
        cell: (i) => (
          <div className="flex flex-wrap gap-1">
            {i.row.original.events.map((e) => (
              <Badge key={e}>{e}</Badge>
            ))}
          </div>
        ),
      }),
      c.accessor("state", { header: "State", cell: (i) => <Health hook={i.row.original} /> }),
      c.accessor((h) => rate(h) ?? -1, { id: "success", header: "Success (7 days)", cell: (i) => rateText(i.row.original) }),
      c.accessor((h) => h.lastSuccessAt ?? "", {
        id: "lastSuccess",
        header: "Last success",
        sortFn: "datetime",
        cell: (i) => (i.row.original.lastSuccessAt ? fmtTime(i.row.original.lastSuccessAt) : "never"),
      }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) => (
          <HookActions
            hook={i.row.original}
            isAdmin={isAdmin}
            open={setDialog}
            deactivate={deactivateMutate}
            disable={disableMutate}
            enable={enableMutate}
          />
        ),
      }),
    ];
  }, [isAdmin, deactivateMutate, disableMutate, enableMutate]);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signed event deliveries to your endpoints, retried with backoff. Endpoints failing for 5 days are disabled; recover what they missed once they work."
        actions={isAdmin ? <RegisterWebhook /> : undefined}
      />
      <DataTable
        label="Webhooks"
        columns={columns}
        data={list.data?.webhooks}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty="No webhooks registered."
        filterPlaceholder="Filter by URL or event"
      />
      {dialog?.kind === "rotate" && <RotateSecret hook={dialog.hook} onClose={() => setDialog(null)} />}
      {dialog?.kind === "test" && <TestEventDialog hook={dialog.hook} onClose={() => setDialog(null)} />}
      {dialog?.kind === "recover" && (
        <RecoverDialog hook={dialog.hook} since={dialog.since} note={dialog.note} onClose={() => setDialog(null)} />
      )}
    </>
  );
}

/** Operators test and recover; admins also rotate, disable or enable, and deactivate. */
function HookActions(props: {
  hook: Hook;
  isAdmin: boolean;
  open: (d: Dialog) => void;
  deactivate: (i: { id: string }) => void;
  disable: (i: { id: string }) => void;
  enable: (i: { id: string }) => void;
}) {
  const { hook, isAdmin } = props;
  if (hook.state === "deactivated") return null;
  const id = { id: hook.id };
  return (
    <div className="flex flex-wrap justify-end gap-2">
      {hook.active && (
        <>
          <button type="button" className="btn-secondary" onClick={() => props.open({ kind: "test", hook })}>
            Send test
          </button>
          <button type="button" className="btn-secondary" onClick={() => props.open({ kind: "recover", hook })}>
            Recover
          </button>
        </>
      )}
      {isAdmin && (
        <>
          <button type="button" className="btn-secondary" onClick={() => props.open({ kind: "rotate", hook })}>
            Rotate secret
          </button>
          {hook.active ? (
            <Confirm
              trigger={
                <button type="button" className="btn-secondary">
                  Disable
                </button>
              }
              title="Disable this webhook?"
              description="Nothing is sent to it until it is enabled again. Events meanwhile are kept as dead deliveries, to recover after enabling."
              confirmLabel="Disable"
              onConfirm={() => props.disable(id)}
            />
          ) : (
            <Confirm
              trigger={
                <button type="button" className="btn-secondary">
                  Enable
                </button>
              }
              title="Enable this webhook?"
              description="Deliveries of new events resume at once. Next you can recover what it missed."
              confirmLabel="Enable"
              destructive={false}
              onConfirm={() => props.enable(id)}
            />
          )}
          <Confirm
            trigger={
              <button type="button" className="btn-secondary">
                Deactivate
              </button>
            }
            title="Deactivate this webhook?"
            description="For good: no new deliveries are made to it and deliveries already queued are not sent. Disable it instead to pause it."
            confirmLabel="Deactivate"
            onConfirm={() => props.deactivate(id)}
          />
        </>
      )}
    </div>
  );
}
