"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm, Modal } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { atLeast, ROLES, type Role, roleLabel } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { errorMessage, useTRPC } from "@/trpc/react";

type Member = RouterOutputs["members"]["list"]["members"][number];

export default function MembersPage() {
  return (
    <RoleGate min="admin">
      <Members />
    </RoleGate>
  );
}

function Members() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const list = useQuery(trpc.members.list.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const onError = (title: string) => (err: unknown) => toast({ tone: "error", title, body: errorMessage(err) });
  const update = useMutation(
    trpc.members.update.mutationOptions({
      onSuccess: (m) => {
        toast({ tone: "ok", title: `${m.email} is now ${roleLabel(m.role)}${m.active ? "" : " (inactive)"}` });
        void refresh();
      },
      onError: onError("The member was not changed"),
    }),
  );
  const updateMutate = update.mutate;
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      onSuccess: (m) => {
        toast({ tone: "ok", title: `${m.email} was deactivated` });
        void refresh();
      },
      onError: onError("The member was not deactivated"),
    }),
  );
  const removeMutate = remove.mutate;
  const grantable = useMemo(() => ROLES.filter((r) => atLeast(me.role, r)), [me.role]);

  const columns = useMemo(() => {
    const c = columnsFor<Member>();
    return [
      c.accessor("email", { header: "Email", cell: (i) => <span className="font-medium">{i.getValue()}</span> }),
      c.accessor("role", {
        header: "Role",
        cell: (i) => {
          const m = i.row.original;
          if (!atLeast(me.role, m.role) || !m.active) return roleLabel(m.role);
          return (
            <select
              aria-label={`Role of ${m.email}`}
              className="field w-auto py-1"
              value={m.role}
              onChange={(e) => updateMutate({ email: m.email, patch: { role: e.target.value as Role } })}
            >
              {grantable.map((r) => (
                <option key={r} value={r}>
                  {roleLabel(r)}
                </option>
              ))}
            </select>
          );
        },
      }),
      c.accessor((m) => (m.active ? "active" : "inactive"), {
        id: "status",
        header: "Status",
        cell: (i) => <Badge tone={i.getValue() === "active" ? "green" : "slate"}>{i.getValue()}</Badge>,
      }),
      c.accessor("updatedAt", { header: "Changed", sortFn: "datetime", cell: (i) => fmtTime(i.getValue()) }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) => {
          const m = i.row.original;
          if (!atLeast(me.role, m.role)) return null;
          return m.active ? (
            <Confirm
              trigger={
                <button type="button" className="btn-secondary">
                  Deactivate
                </button>
              }
              title={`Deactivate ${m.email}?`}
              description="They are signed out at their next request and can no longer sign in. Their audit history stays. You can reactivate them later."
              confirmLabel="Deactivate"
              onConfirm={() => removeMutate({ email: m.email })}
            />
          ) : (
            <button type="button" className="btn-secondary" onClick={() => updateMutate({ email: m.email, patch: { active: true } })}>
              Reactivate
            </button>
          );
        },
      }),
    ];
  }, [me.role, grantable, updateMutate, removeMutate]);

  return (
    <>
      <PageHeader
        title="Members"
        description="People who can sign in to this console. Roles from weakest: viewer, operator, compliance officer, admin, owner. You can grant roles up to your own."
        actions={<AddMember grantable={grantable} onAdded={refresh} />}
      />
      {list.data && list.data.members.length === 0 && (
        <p className="mb-4 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          No members yet: anyone with the console password signs in as owner. Adding the first member ends this, and you are added as an
          owner too.
        </p>
      )}
      <DataTable
        label="Members"
        columns={columns}
        data={list.data?.members}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty="No members yet."
        filterPlaceholder="Filter by email, role or status"
      />
    </>
  );
}

function AddMember({ grantable, onAdded }: { grantable: Role[]; onAdded: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const add = useMutation(
    trpc.members.add.mutationOptions({
      onSuccess: (m) => {
        toast({ tone: "ok", title: `${m.email} added as ${roleLabel(m.role)}` });
        setOpen(false);
        setEmail("");
        onAdded();
      },
    }),
  );
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Add member
      </button>
      <Modal
        open={open}
        onOpenChange={(o) => {
          setOpen(o);
          add.reset();
        }}
        title="Add a member"
        description="They sign in with the organization's console password and a code emailed to this address. Adding an existing address updates its role and reactivates it."
      >
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate({ email, role });
          }}
        >
          <div>
            <label htmlFor="member-email" className="label">
              Email
            </label>
            <input id="member-email" type="email" required className="field" value={email} onChange={(e) => setEmail(e.target.value)} />
          </div>
          <div>
            <label htmlFor="member-role" className="label">
              Role
            </label>
            <select id="member-role" className="field" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {grantable.map((r) => (
                <option key={r} value={r}>
                  {roleLabel(r)}
                </option>
              ))}
            </select>
          </div>
          {add.error && (
            <p role="alert" className="text-sm text-red-700">
              {errorMessage(add.error)}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <button type="button" className="btn-secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="btn-primary" disabled={add.isPending}>
              {add.isPending ? "Adding…" : "Add member"}
            </button>
          </div>
        </form>
      </Modal>
    </>
  );
}
