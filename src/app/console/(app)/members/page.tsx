"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { Confirm } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast, ROLES, type Role, roleLabel } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { AddMember } from "./_components/add-member";

type Member = RouterOutputs["members"]["list"]["members"][number];

const SIGN_IN: Record<Member["signIn"], { label: string; tone: "green" | "amber" | "slate" | "indigo" }> = {
  passkey: { label: "Passkey", tone: "green" },
  password_totp: { label: "Password + app", tone: "green" },
  invited: { label: "Invitation sent", tone: "indigo" },
  org_password: { label: "Shared password", tone: "amber" },
};

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
  const client = useTRPCClient();
  const onError = (title: string) => (err: { message: string }) => toast({ tone: "error", title, body: err.message });
  const update = useSubmission(client.members.update, {
    onSuccess: (m) => {
      toast({ tone: "ok", title: `${m.email} is now ${roleLabel(m.role)}${m.active ? "" : " (inactive)"}` });
      void refresh();
    },
    onError: onError("The member was not changed"),
  });
  const updateMutate = update.submit;
  const remove = useSubmission(client.members.remove, {
    onSuccess: (m) => {
      toast({ tone: "ok", title: `${m.email} was deactivated` });
      void refresh();
    },
    onError: onError("The member was not deactivated"),
  });
  const removeMutate = remove.submit;
  const resend = useSubmission(client.members.resendInvitation, {
    onSuccess: (r) => {
      toast(
        r.sent
          ? { tone: "ok", title: `An invitation was sent to ${r.email}`, body: "Any earlier link no longer works." }
          : { tone: "error", title: "The invitation email could not be sent", body: "Try again in a few minutes." },
      );
      void refresh();
    },
    onError: onError("The invitation was not sent"),
  });
  const resendMutate = resend.submit;
  const endSessions = useSubmission(client.members.endSessions, {
    onSuccess: (r) => {
      toast({ tone: "ok", title: r.ended === 1 ? `1 session of ${r.email} was ended` : `${r.ended} sessions of ${r.email} were ended` });
      void refresh();
    },
    onError: onError("The sessions were not ended"),
  });
  const endSessionsMutate = endSessions.submit;
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
      c.accessor((m) => SIGN_IN[m.signIn].label, {
        id: "signIn",
        header: "Sign-in",
        cell: (i) => {
          const m = i.row.original;
          const how = SIGN_IN[m.signIn];
          return (
            <span className="flex flex-col items-start gap-0.5">
              <Badge tone={how.tone}>{how.label}</Badge>
              {m.signIn === "invited" && m.invitationExpiresAt && (
                <span className="text-xs text-slate-500">link expires {fmtTime(m.invitationExpiresAt)}</span>
              )}
              {m.openSessions > 0 && (
                <span className="text-xs text-slate-500">
                  {m.openSessions} open session{m.openSessions === 1 ? "" : "s"}
                </span>
              )}
            </span>
          );
        },
      }),
      c.accessor("updatedAt", { header: "Changed", sortFn: "datetime", cell: (i) => fmtTime(i.getValue()) }),
      c.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: (i) => {
          const m = i.row.original;
          if (!atLeast(me.role, m.role)) return null;
          const canInvite = m.active && (m.signIn === "invited" || m.signIn === "org_password");
          return m.active ? (
            <span className="flex flex-wrap gap-2">
              {canInvite && (
                <button type="button" className="btn-secondary" onClick={() => resendMutate({ email: m.email })}>
                  {m.signIn === "invited" ? "Resend invitation" : "Send invitation"}
                </button>
              )}
              {m.openSessions > 0 && m.email !== me.email && (
                <Confirm
                  trigger={
                    <button type="button" className="btn-secondary">
                      End sessions
                    </button>
                  }
                  title={`End every session of ${m.email}?`}
                  description="They are signed out everywhere at their next request and must sign in again. Their membership and sign-in stay."
                  confirmLabel="End sessions"
                  onConfirm={() => endSessionsMutate({ email: m.email })}
                />
              )}
              <Confirm
                trigger={
                  <button type="button" className="btn-secondary">
                    Deactivate
                  </button>
                }
                title={`Deactivate ${m.email}?`}
                description="Their sessions end at once and they can no longer sign in; an open invitation stops working. Their audit history stays. You can reactivate them later."
                confirmLabel="Deactivate"
                onConfirm={() => removeMutate({ email: m.email })}
              />
            </span>
          ) : (
            <button type="button" className="btn-secondary" onClick={() => updateMutate({ email: m.email, patch: { active: true } })}>
              Reactivate
            </button>
          );
        },
      }),
    ];
  }, [me.role, me.email, grantable, updateMutate, removeMutate, resendMutate, endSessionsMutate]);

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
          owner too; each member is then emailed an invitation to set up a passkey or a password of their own.
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
