"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { MintKey } from "./_components/mint-key";

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
