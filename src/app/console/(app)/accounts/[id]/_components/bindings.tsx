"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useMe } from "@/components/console/shell";
import { Badge, fmtTime } from "@/components/ui/badge";
import { present, textIssue } from "@/components/ui/error-text";
import { FormDialog } from "@/components/ui/form-dialog";
import { Counter, fieldProblem } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { downloadJson } from "@/lib/download-json";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Account = RouterOutputs["accounts"]["detail"];
type Binding = Account["allBindings"][number];

const STATUS_TONE = { active: "green", suspended: "amber", revoked: "red" } as const;
const REASON_WORDS: Record<string, string> = {
  sanctions_flag: "sanctions flag",
  key_changed: "the account's keys changed",
};

/** Saves a binding's AccountBinding credential as a JSON file, built in the browser from the read. */
function downloadCredential(account: string, b: Binding) {
  downloadJson(`credential-${account}-${b.bindingId}.json`, b.credential);
}

/** What the public status lists say about the credential, in words a relying party would read. */
function PublishedStatus({ b }: { b: Binding }) {
  if (!b.published.length) return <>No status list: issued before status lists.</>;
  const set = b.published.filter((p) => p.set).map((p) => p.statusPurpose);
  return <>{set.length ? `Status lists say: ${set.join(" and ")}` : "Status lists say: valid"}</>;
}

export function Bindings({ a }: { a: Account }) {
  const me = useMe();
  const canOpenPeople = atLeast(me.role, "operator");
  const canRevoke = atLeast(me.role, "compliance_officer");
  const [revoking, setRevoking] = useState<Binding | null>(null);
  if (a.allBindings.length === 0) return <p className="mt-2 text-sm text-slate-500">Not bound to a person yet.</p>;
  return (
    <>
      <ul className="mt-2 divide-y divide-slate-100 text-sm" aria-label="Bindings">
        {a.allBindings.map((b) => (
          <li key={b.bindingId} className="py-3" data-binding={b.bindingId}>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
              {canOpenPeople ? (
                <Link href={`/console/people/${b.personId}`} className="font-medium text-indigo-700 hover:underline">
                  {b.personLabel}
                </Link>
              ) : (
                <span className="font-medium">{b.personLabel}</span>
              )}
              <Badge tone={STATUS_TONE[b.status]}>
                {b.status === "revoked" && b.revokedAt ? `revoked ${fmtTime(b.revokedAt)}` : b.status}
              </Badge>
              <span className="flex flex-wrap gap-2 sm:ml-auto">
                {canRevoke && b.status !== "revoked" && (
                  <button type="button" className="btn-danger" onClick={() => setRevoking(b)}>
                    Revoke binding
                  </button>
                )}
                <button type="button" className="btn-secondary" onClick={() => downloadCredential(a.name, b)}>
                  Download credential
                </button>
              </span>
            </div>
            <p className="mt-1 break-all text-xs text-slate-500">
              Bound {fmtTime(b.createdAt)} · credential hash {b.bindingVcHash.slice(0, 16)}…
            </p>
            <p className="mt-1 text-xs text-slate-600">
              <PublishedStatus b={b} />
            </p>
            {b.status === "suspended" && (
              <p className="mt-1 text-xs text-amber-800">
                {b.suspendedFor.length
                  ? `Suspended: ${b.suspendedFor.map((r) => REASON_WORDS[r] ?? r).join(", ")}.`
                  : "Suspended. Why is shown to compliance officers."}
              </p>
            )}
            {b.revocationReason && <p className="mt-1 text-xs text-red-800 [overflow-wrap:anywhere]">Revoked: “{b.revocationReason}”</p>}
          </li>
        ))}
      </ul>
      {revoking && <RevokeDialog account={a} binding={revoking} onClose={() => setRevoking(null)} />}
    </>
  );
}

/** Ends a binding for good: the reason goes to the audit log and the identity.unbound webhook. */
function RevokeDialog({ account, binding, onClose }: { account: Account; binding: Binding; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const [reason, setReason] = useState("");
  const revoke = useSubmission(client.accounts.revokeBinding, {
    fields: { "body.reason": { label: "reason" } },
    validate: (input) => present([textIssue(["body", "reason"], input.body.reason, 3, 500)]),
    onSuccess: (r) => {
      toast({ tone: "ok", title: `Binding revoked: ${account.name} is ${r.lifecycle} again` });
      void qc.invalidateQueries({ queryKey: trpc.accounts.pathKey() });
      onClose();
    },
  });
  const error = revoke.fieldError("body.reason");
  const reasonField = fieldProblem("revoke-reason", error, "revoke-reason-count");
  return (
    <FormDialog
      onOpenChange={(open) => !open && onClose()}
      title="Revoke this binding"
      description={`${binding.personLabel} will no longer be bound to ${account.name}. The credential's revocation bit is set at once, relying parties see it as revoked, and this cannot be undone.`}
      submission={revoke}
      onSubmit={() => revoke.submit({ id: binding.bindingId, body: { reason } })}
      submitLabel="Revoke binding"
      pendingLabel="Revoking…"
      destructive
      className=""
    >
      <label htmlFor="revoke-reason" className="label">
        Reason
      </label>
      <textarea
        id="revoke-reason"
        rows={3}
        className="field"
        {...reasonField.attrs}
        value={reason}
        onChange={(e) => {
          setReason(e.target.value);
          // An earlier refusal is about the text as it was; it goes once the text changes.
          if (error) revoke.reset();
        }}
      />
      {reasonField.line}
      <Counter id="revoke-reason-count" value={reason} max={500} min={3} />
    </FormDialog>
  );
}
