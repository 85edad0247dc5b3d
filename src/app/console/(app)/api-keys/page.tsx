"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm, Modal } from "@/components/ui/dialog";
import { present, textIssue } from "@/components/ui/error-text";
import { Counter, FieldError, FormError } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { SCOPES, type Scope } from "@/lib/scopes";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Key = RouterOutputs["apiKeys"]["list"]["keys"][number];

export default function ApiKeysPage() {
  return (
    <RoleGate min="admin">
      <ApiKeys />
    </RoleGate>
  );
}

function ApiKeys() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.apiKeys.list.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const revoke = useSubmission(client.apiKeys.revoke, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Key revoked", body: "Calls with it now answer 401." });
      void refresh();
    },
    onError: (err) => toast({ tone: "error", title: "The key was not revoked", body: err.message }),
  });
  const revokeMutate = revoke.submit;
  const columns = useMemo(() => {
    const c = columnsFor<Key>();
    return [
      c.accessor("name", {
        header: "Name",
        cell: (i) => (
          <Link href={`/console/api-keys/${i.row.original.id}`} className="font-medium text-indigo-700 hover:underline">
            {i.getValue()}
          </Link>
        ),
      }),
      c.accessor("prefix", { header: "Key", cell: (i) => <code className="text-xs">{i.getValue()}…</code> }),
      c.accessor((k) => k.scopes.join(" "), {
        id: "scopes",
        header: "Scopes",
        enableSorting: false,
        cell: (i) => (
          <div className="flex max-w-xs flex-wrap gap-1">
            {i.row.original.scopes.map((s) => (
              <Badge key={s} tone={s === "admin" ? "red" : "slate"}>
                {s}
              </Badge>
            ))}
          </div>
        ),
      }),
      c.accessor("createdAt", { header: "Created", sortFn: "datetime", cell: (i) => fmtTime(i.getValue()) }),
      c.accessor((k) => k.lastUsedAt ?? "", { id: "lastUsed", header: "Last used", cell: (i) => fmtTime(i.row.original.lastUsedAt) }),
      c.accessor((k) => (k.revokedAt ? "revoked" : "active"), {
        id: "status",
        header: "Status",
        cell: (i) => <Badge tone={i.getValue() === "active" ? "green" : "slate"}>{i.getValue()}</Badge>,
      }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) =>
          i.row.original.revokedAt ? null : (
            <Confirm
              trigger={
                <button type="button" className="btn-secondary">
                  Revoke
                </button>
              }
              title={`Revoke “${i.row.original.name}”?`}
              description="Every call made with this key answers 401 from now on. This cannot be undone."
              confirmLabel="Revoke key"
              onConfirm={() => revokeMutate({ id: i.row.original.id })}
            />
          ),
      }),
    ];
  }, [revokeMutate]);
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys your backends use to call /v1. A key is shown once, when it is minted; only its prefix is kept to tell keys apart."
        actions={<MintKey onMinted={refresh} />}
      />
      <DataTable
        label="API keys"
        columns={columns}
        data={list.data?.keys}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty="No API keys."
        filterPlaceholder="Filter by name, prefix or scope"
      />
    </>
  );
}

const KEY_FIELDS = { name: { label: "key name" }, scopes: { label: "scope" } };

function MintKey({ onMinted }: { onMinted: () => void }) {
  const client = useTRPCClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const mint = useSubmission(client.apiKeys.mint, {
    fields: KEY_FIELDS,
    validate: (input) =>
      present([
        textIssue(["name"], input.name, 2, 64),
        input.scopes?.length ? null : { path: ["scopes"], code: "too_small", origin: "array", minimum: 1 },
      ]),
    onSuccess: () => onMinted(),
  });
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      mint.reset();
      setName("");
      setScopes(["read"]);
    }
  };
  const toggle = (s: Scope) => setScopes((all) => (all.includes(s) ? all.filter((x) => x !== s) : [...all, s]));
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Mint key
      </button>
      <Modal
        open={open}
        onOpenChange={close}
        title={mint.data ? "Your new API key" : "Mint an API key"}
        description={mint.data ? mint.data.warning : "Give each integration its own key with only the scopes it needs."}
      >
        {mint.data ? (
          <div className="space-y-4">
            <div className="rounded-md border border-amber-300 bg-amber-50 p-3">
              <p className="text-sm font-medium text-amber-900">Shown once. Copy it now and store it in your secrets manager.</p>
              <div className="mt-2 flex items-center gap-2">
                <code data-testid="minted-key" className="min-w-0 flex-1 break-all rounded bg-white p-2 text-xs">
                  {mint.data.apiKey}
                </code>
                <CopyButton value={mint.data.apiKey} label="Copy key" />
              </div>
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
              mint.submit({ name, scopes });
            }}
          >
            <div>
              <label htmlFor="key-name" className="label">
                Name
              </label>
              <input
                id="key-name"
                required
                aria-describedby="key-name-count key-name-error"
                aria-invalid={!!mint.fieldError("name")}
                className="field"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="e.g. Wallet backend (production)"
              />
              <FieldError id="key-name-error" text={mint.fieldError("name")} />
              <Counter id="key-name-count" value={name} min={2} max={64} />
            </div>
            <fieldset>
              <legend className="label">Scopes</legend>
              <div className="grid grid-cols-1 gap-1.5 sm:grid-cols-2">
                {SCOPES.map((s) => (
                  <label key={s} className="flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      checked={scopes.includes(s)}
                      onChange={() => toggle(s)}
                      className="h-4 w-4 rounded border-slate-300"
                    />
                    <code>{s}</code>
                  </label>
                ))}
              </div>
              <FieldError id="key-scopes-error" text={mint.fieldError("scopes")} />
            </fieldset>
            <FormError text={mint.formError} />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn-secondary" onClick={() => close(false)}>
                Cancel
              </button>
              <button type="submit" className="btn-primary" disabled={mint.isPending || scopes.length === 0}>
                {mint.isPending ? "Minting…" : "Mint key"}
              </button>
            </div>
          </form>
        )}
      </Modal>
    </>
  );
}
