"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm, Modal, ModalActions } from "@/components/ui/dialog";
import { FieldError, FormError } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast } from "@/lib/roles";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS, type WebhookEventName } from "@/lib/webhook-events";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Hook = RouterOutputs["webhooks"]["list"]["webhooks"][number];

const HOOK_FIELDS = {
  url: { label: "URL" },
  events: {
    label: "events",
    words: (value: unknown, issue: { code: string }) =>
      typeof value === "string" && issue.code === "invalid_value"
        ? `${value} is not an event the service sends: pick from the list.`
        : undefined,
  },
};
type Delivery = RouterOutputs["webhooks"]["deliveries"]["deliveries"][number];
const STATUS_TONE = { pending: "amber", failed: "amber", delivered: "green", dead: "red" } as const;

export default function WebhooksPage() {
  return (
    <RoleGate min="operator">
      <Webhooks />
      <Deliveries />
    </RoleGate>
  );
}

function Webhooks() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const list = useQuery(trpc.webhooks.list.queryOptions());
  const isAdmin = atLeast(me.role, "admin");
  const deactivate = useSubmission(client.webhooks.deactivate, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Webhook deactivated" });
      void qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "The webhook was not deactivated", body: err.message }),
  });
  const deactivateMutate = deactivate.submit;
  // The rotation dialog lives outside the table: a row re-rendered by a refetch must not close it
  // while it shows the new secret.
  const [rotating, setRotating] = useState<Hook | null>(null);
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
      c.accessor((h) => (h.active ? "active" : "inactive"), {
        id: "status",
        header: "Status",
        cell: (i) => (
          <div className="space-y-1">
            <Badge tone={i.getValue() === "active" ? "green" : "slate"}>{i.getValue()}</Badge>
            {i.row.original.previousSecretValidUntil && (
              <p className="text-xs text-slate-600">old secret signs until {fmtTime(i.row.original.previousSecretValidUntil)}</p>
            )}
          </div>
        ),
      }),
      c.accessor("createdAt", { header: "Registered", sortFn: "datetime", cell: (i) => fmtTime(i.getValue()) }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) =>
          isAdmin && i.row.original.active ? (
            <div className="flex flex-wrap justify-end gap-2">
              <button type="button" className="btn-secondary" onClick={() => setRotating(i.row.original)}>
                Rotate secret
              </button>
              <Confirm
                trigger={
                  <button type="button" className="btn-secondary">
                    Deactivate
                  </button>
                }
                title="Deactivate this webhook?"
                description="No new deliveries are made to it. Deliveries already queued are not sent."
                confirmLabel="Deactivate"
                onConfirm={() => deactivateMutate({ id: i.row.original.id })}
              />
            </div>
          ) : null,
      }),
    ];
  }, [isAdmin, deactivateMutate]);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signed event deliveries to your endpoints, retried with backoff; dead deliveries can be replayed."
        actions={isAdmin ? <Register /> : undefined}
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
      {rotating && <RotateSecret hook={rotating} onClose={() => setRotating(null)} />}
    </>
  );
}

const OVERLAPS = [
  { hours: 24, label: "24 hours (recommended)" },
  { hours: 72, label: "3 days" },
  { hours: 168, label: "7 days" },
  { hours: 1, label: "1 hour" },
  { hours: 0, label: "No overlap: the old secret stops at once" },
];

/** A new signing secret, shown once, with the old one still signing for the chosen overlap. */
function RotateSecret({ hook, onClose }: { hook: Hook; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [overlapHours, setOverlapHours] = useState(24);
  const rotate = useSubmission(client.webhooks.rotateSecret, {
    onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
  });
  const close = (o: boolean) => {
    if (!o) onClose();
  };
  const until = rotate.data?.previousSecretValidUntil;
  return (
    <Modal
      open
      onOpenChange={close}
      title={rotate.data ? "New signing secret" : "Rotate the signing secret?"}
      description={
        rotate.data
          ? rotate.data.warning
          : "Deliveries carry a signature by the new secret, and by the old one until the overlap ends, so your receiver keeps verifying while you update it."
      }
    >
      {rotate.data ? (
        <div className="space-y-4">
          <div className="flex items-center gap-2 rounded-md border border-amber-300 bg-amber-50 p-3">
            <code className="min-w-0 flex-1 break-all text-xs" data-testid="rotated-secret">
              {rotate.data.secret}
            </code>
            <CopyButton value={rotate.data.secret} label="Copy secret" />
          </div>
          <p className="text-sm text-slate-700">
            {until
              ? `The old secret keeps signing until ${fmtTime(until)}. Update your receiver before then.`
              : "The old secret no longer signs: update your receiver now."}
          </p>
          <div className="flex justify-end">
            <button type="button" className="btn-primary" onClick={() => close(false)}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            rotate.submit({ id: hook.id, body: { overlapHours } });
          }}
        >
          <p className="break-all text-sm text-slate-700">{hook.url}</p>
          <div>
            <label htmlFor={`overlap-${hook.id}`} className="label">
              Old secret keeps signing for
            </label>
            <select
              id={`overlap-${hook.id}`}
              className="field"
              value={overlapHours}
              onChange={(e) => setOverlapHours(Number(e.target.value))}
            >
              {OVERLAPS.map((o) => (
                <option key={o.hours} value={o.hours}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          <FormError text={rotate.formError} />
          <ModalActions>
            <button type="button" className="btn-secondary" onClick={() => close(false)}>
              Cancel
            </button>
            <button type="submit" className="btn-primary" disabled={rotate.isPending}>
              {rotate.isPending ? "Rotating…" : "Rotate secret"}
            </button>
          </ModalActions>
        </form>
      )}
    </Modal>
  );
}

function Register() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState("");
  const [every, setEvery] = useState(true);
  const [picked, setPicked] = useState<WebhookEventName[]>([]);
  const register = useSubmission(client.webhooks.register, {
    fields: HOOK_FIELDS,
    onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
  });
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      register.reset();
      setUrl("");
      setEvery(true);
      setPicked([]);
    }
  };
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Register webhook
      </button>
      <Modal
        open={open}
        onOpenChange={close}
        title={register.data ? "Webhook registered" : "Register a webhook"}
        description={
          register.data ? register.data.warning : "An HTTPS endpoint of yours; every delivery is signed with a secret shown once."
        }
      >
        {register.data ? (
          <div className="space-y-4">
            <div className="flex items-center gap-2 rounded-md border border-amber-300 bg-amber-50 p-3">
              <code className="min-w-0 flex-1 break-all text-xs">{register.data.secret}</code>
              <CopyButton value={register.data.secret} label="Copy secret" />
            </div>
            <div className="flex justify-end">
              <button type="button" className="btn-primary" onClick={() => close(false)}>
                Done
              </button>
            </div>
          </div>
        ) : (
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              register.submit({ url, events: every ? ["*"] : WEBHOOK_EVENT_NAMES.filter((n) => picked.includes(n)) });
            }}
          >
            <div>
              <label htmlFor="hook-url" className="label">
                URL
              </label>
              <input
                id="hook-url"
                required
                className="field font-mono"
                aria-describedby="hook-url-error"
                aria-invalid={!!register.fieldError("url")}
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                placeholder="https://example.com/bind-identity"
              />
              <FieldError id="hook-url-error" text={register.fieldError("url")} />
            </div>
            <fieldset aria-describedby="hook-events-error">
              <legend className="label">Events</legend>
              <div className="space-y-2 text-sm">
                <label className="flex items-start gap-2">
                  <input type="radio" name="hook-scope" className="mt-1" checked={every} onChange={() => setEvery(true)} />
                  <span>Every event, including events added later</span>
                </label>
                <label className="flex items-start gap-2">
                  <input type="radio" name="hook-scope" className="mt-1" checked={!every} onChange={() => setEvery(false)} />
                  <span>Only the events I pick</span>
                </label>
                {!every && (
                  <ul className="ml-6 space-y-2">
                    {WEBHOOK_EVENTS.map((e) => (
                      <li key={e.name}>
                        <label className="flex items-start gap-2">
                          <input
                            type="checkbox"
                            className="mt-1"
                            checked={picked.includes(e.name)}
                            onChange={(ev) => setPicked((p) => (ev.target.checked ? [...p, e.name] : p.filter((n) => n !== e.name)))}
                          />
                          <span>
                            <code className="text-xs">{e.name}</code>
                            <span className="block text-slate-600">{e.firesWhen}</span>
                          </span>
                        </label>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
              <FieldError
                id="hook-events-error"
                text={register.fieldError("events") ?? (!every && picked.length === 0 ? "Pick at least one event." : undefined)}
              />
            </fieldset>
            <FormError text={register.formError} />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn-secondary" onClick={() => close(false)}>
                Cancel
              </button>
              <button type="submit" className="btn-primary" disabled={register.isPending || (!every && picked.length === 0)}>
                {register.isPending ? "Registering…" : "Register"}
              </button>
            </div>
          </form>
        )}
      </Modal>
    </>
  );
}

function Deliveries() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const [status, setStatus] = useState<Delivery["status"] | "">("");
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
        header: "Last error",
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
        cell: (i) =>
          i.row.original.status === "dead" || i.row.original.status === "failed" ? (
            <button type="button" className="btn-secondary" disabled={replaying} onClick={() => replayMutate({ id: i.row.original.id })}>
              Replay
            </button>
          ) : null,
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
    </section>
  );
}
