"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm, Modal } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { SCOPES, type Scope } from "@/lib/scopes";
import type { RouterOutputs } from "@/trpc/outputs";
import { errorMessage, useTRPC } from "@/trpc/react";

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
  const qc = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.apiKeys.list.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: () => {
        toast({ tone: "ok", title: "Key revoked", body: "Calls with it now answer 401." });
        void refresh();
      },
      onError: (err) => toast({ tone: "error", title: "The key was not revoked", body: errorMessage(err) }),
    }),
  );
  const revokeMutate = revoke.mutate;
  const columns = useMemo(() => {
    const c = columnsFor<Key>();
    return [
      c.accessor("name", { header: "Name", cell: (i) => <span className="font-medium">{i.getValue()}</span> }),
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

function MintKey({ onMinted }: { onMinted: () => void }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const mint = useMutation(trpc.apiKeys.mint.mutationOptions({ onSuccess: () => onMinted() }));
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
              mint.mutate({ name, scopes });
            }}
          >
            <div>
              <label htmlFor="key-name" className="label">
                Name
              </label>
              <input
                id="key-name"
                required
                minLength={2}
                maxLength={64}
                className="field"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="e.g. Wallet backend (production)"
              />
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
            </fieldset>
            {mint.error && (
              <p role="alert" className="text-sm text-red-700">
                {errorMessage(mint.error)}
              </p>
            )}
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
