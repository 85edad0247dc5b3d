"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Account = RouterOutputs["accounts"]["list"]["accounts"][number];
type Lifecycle = Account["lifecycle"];
const TONE = { provisional: "amber", bound: "indigo", unlocked: "green", suspended: "red" } as const;

export default function AccountsPage() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const [lifecycle, setLifecycle] = useState<Lifecycle | "">("");
  const list = useQuery(trpc.accounts.list.queryOptions({ limit: 200, ...(lifecycle ? { lifecycle } : {}) }));
  const client = useTRPCClient();
  const suspend = useSubmission(client.accounts.suspend, {
    onSuccess: (r) => {
      toast({ tone: "ok", title: `${r.accountDid} suspended` });
      void qc.invalidateQueries({ queryKey: trpc.accounts.list.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "The account was not suspended", body: err.message }),
  });
  const suspendMutate = suspend.submit;
  const canSuspend = atLeast(me.role, "admin");
  const columns = useMemo(() => {
    const c = columnsFor<Account>();
    return [
      c.accessor("name", {
        header: "Account",
        cell: (i) => (
          <Link
            href={`/console/accounts/${encodeURIComponent(i.getValue())}`}
            className="font-mono font-medium text-indigo-700 hover:underline"
          >
            {i.getValue()}
          </Link>
        ),
      }),
      c.accessor("lifecycle", { header: "Lifecycle", cell: (i) => <Badge tone={TONE[i.getValue()]}>{i.getValue()}</Badge> }),
      c.accessor((a) => `${a.contacts.email ?? ""} ${a.contacts.phone ?? ""}`, {
        id: "contacts",
        header: "Contacts",
        enableSorting: false,
        cell: (i) => {
          const k = i.row.original.contacts;
          return (
            <span className="text-slate-600">
              {[k.email && `${k.email}${k.emailVerified ? " ✓" : ""}`, k.phone && `${k.phone}${k.phoneVerified ? " ✓" : ""}`]
                .filter(Boolean)
                .join(" · ") || "—"}
            </span>
          );
        },
      }),
      c.accessor("createdAt", { header: "Created", sortFn: "datetime", cell: (i) => fmtTime(i.getValue()) }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) =>
          canSuspend && i.row.original.lifecycle !== "suspended" ? (
            <Confirm
              trigger={
                <button type="button" className="btn-secondary">
                  Suspend
                </button>
              }
              title={`Suspend ${i.row.original.name}?`}
              description="The account is marked suspended for every integration; its previous lifecycle is kept for reinstatement."
              confirmLabel="Suspend"
              onConfirm={() => suspendMutate({ accountDid: i.row.original.accountDid })}
            />
          ) : null,
      }),
    ];
  }, [canSuspend, suspendMutate]);
  return (
    <>
      <PageHeader
        title="Accounts"
        description="Chain accounts created through this organization, newest first. Contacts are shown masked."
      />
      <DataTable
        label="Accounts"
        columns={columns}
        data={list.data?.accounts}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty={
          lifecycle ? `No ${lifecycle} accounts.` : "No accounts yet. They appear here when your backend calls POST /v1/accounts/free."
        }
        filterPlaceholder="Filter by name or contact"
        toolbar={
          <>
            <label htmlFor="lifecycle" className="sr-only">
              Lifecycle
            </label>
            <select
              id="lifecycle"
              className="field w-auto py-1"
              value={lifecycle}
              onChange={(e) => setLifecycle(e.target.value as Lifecycle | "")}
            >
              <option value="">All lifecycles</option>
              {(["provisional", "bound", "unlocked", "suspended"] as const).map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </>
        }
      />
    </>
  );
}
