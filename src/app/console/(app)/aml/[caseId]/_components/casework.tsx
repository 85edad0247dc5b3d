"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useMe } from "@/components/console/shell";
import { fmtTime } from "@/components/ui/badge";
import { present, textIssue } from "@/components/ui/error-text";
import { FormDialog } from "@/components/ui/form-dialog";
import { Counter, FormError, fieldProblem } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import type { Case } from "../../_components/case-ui";

// Who works a case (assign to me, reassign with a reason, unassign) and its notes
// (docs/api/guides/aml-cases.md, "Who works a case" and "Notes").

const COMMENT_MAX = 4000;
const REASON_MAX = 500;
const ASSIGN_FIELDS = { "body.assigneeEmail": { label: "member's email" }, "body.reason": { label: "reason" } };

function useRefresh() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: trpc.aml.pathKey() });
}

export function Assignment({ c }: { c: Case }) {
  const me = useMe();
  const client = useTRPCClient();
  const toast = useToast();
  const refresh = useRefresh();
  const [reassigning, setReassigning] = useState(false);
  const assign = useSubmission(client.aml.assign, {
    fields: ASSIGN_FIELDS,
    onSuccess: () => {
      toast({ tone: "ok", title: "The case is yours" });
      refresh();
    },
  });
  const unassign = useSubmission(client.aml.unassign, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Back in the unassigned queue" });
      refresh();
    },
  });
  const open = c.status === "open" || c.status === "pending_approval";
  const busy = assign.isPending || unassign.isPending;
  return (
    <div className="mt-4 border-t border-slate-100 pt-3 text-sm">
      <p data-testid="case-assignee">
        <span className="text-xs uppercase tracking-wide text-slate-500">Assignee </span>
        {c.assigneeEmail ? (
          <>
            <span className="font-medium [overflow-wrap:anywhere]">
              {c.assigneeEmail === me.email ? `you (${me.email})` : c.assigneeEmail}
            </span>
            <span className="text-slate-500"> since {fmtTime(c.assignedAt)}</span>
          </>
        ) : (
          <span className="text-slate-600">nobody yet</span>
        )}
      </p>
      {open && (
        <div className="mt-2 flex flex-wrap gap-2">
          {!c.assigneeEmail ? (
            <button
              type="button"
              className="btn-secondary"
              disabled={busy}
              onClick={() => assign.submit({ caseId: c.caseId, body: { assigneeEmail: me.email } })}
            >
              Assign to me
            </button>
          ) : (
            <>
              <button type="button" className="btn-secondary" disabled={busy} onClick={() => setReassigning(true)}>
                Reassign
              </button>
              <button
                type="button"
                className="btn-secondary"
                disabled={busy}
                onClick={() => unassign.submit({ caseId: c.caseId, body: {} })}
              >
                Unassign
              </button>
            </>
          )}
        </div>
      )}
      <div className="mt-2 space-y-2">
        <FormError text={assign.formError} />
        <FormError text={unassign.formError} />
      </div>
      {reassigning && <ReassignDialog c={c} onClose={() => setReassigning(false)} />}
    </div>
  );
}

function ReassignDialog({ c, onClose }: { c: Case; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const toast = useToast();
  const refresh = useRefresh();
  const me = useMe();
  const [email, setEmail] = useState("");
  const [reason, setReason] = useState("");
  // Members who already work cases, offered as suggestions (the member list itself is for admins).
  const known = useQuery(trpc.aml.queue.queryOptions({ status: "all", limit: 200 }));
  const suggestions = [
    ...new Set([me.email, ...(known.data?.cases ?? []).map((x) => x.assigneeEmail).filter((e): e is string => !!e)]),
  ].filter((e) => e !== c.assigneeEmail);
  const reassign = useSubmission(client.aml.reassign, {
    fields: ASSIGN_FIELDS,
    validate: (input) =>
      present([
        input.body.assigneeEmail.includes("@") ? null : { path: ["body", "assigneeEmail"], code: "invalid_format", format: "email" },
        textIssue(["body", "reason"], input.body.reason, 3, REASON_MAX),
      ]),
    onSuccess: (r) => {
      toast({ tone: "ok", title: `Reassigned to ${r.assigneeEmail}` });
      refresh();
      onClose();
    },
  });
  const emailField = fieldProblem("reassign-email", reassign.fieldError("body.assigneeEmail"));
  const reasonField = fieldProblem("reassign-reason", reassign.fieldError("body.reason"), "reassign-reason-count");
  return (
    <FormDialog
      onOpenChange={(o) => !o && onClose()}
      title="Reassign the case"
      description={`Now with ${c.assigneeEmail}.`}
      submission={reassign}
      onSubmit={() => reassign.submit({ caseId: c.caseId, body: { assigneeEmail: email.trim(), reason } })}
      submitLabel="Reassign"
      className="space-y-3"
    >
      <div>
        <label htmlFor="reassign-email" className="label">
          Member's email
        </label>
        <input
          id="reassign-email"
          type="email"
          className="field"
          list="reassign-suggestions"
          autoComplete="off"
          {...emailField.attrs}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <datalist id="reassign-suggestions">
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        {emailField.line}
        <p className="mt-1 text-xs text-slate-500">A member with the compliance officer role or above.</p>
      </div>
      <div>
        <label htmlFor="reassign-reason" className="label">
          Reason
        </label>
        <textarea
          id="reassign-reason"
          rows={2}
          className="field"
          {...reasonField.attrs}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
        {reasonField.line}
        <Counter id="reassign-reason-count" value={reason} max={REASON_MAX} min={3} />
      </div>
    </FormDialog>
  );
}

/** A comment (note) on the case (1 to 4000 characters): shown in the timeline; the audit log keeps only its id and length. */
export function CommentBox({ caseId }: { caseId: string }) {
  const client = useTRPCClient();
  const toast = useToast();
  const refresh = useRefresh();
  const [text, setText] = useState("");
  const comment = useSubmission(client.aml.comment, {
    fields: { "body.text": { label: "comment" } },
    validate: (input) => present([textIssue(["body", "text"], input.body.text, 1, COMMENT_MAX)]),
    onSuccess: () => {
      toast({ tone: "ok", title: "Comment added" });
      setText("");
      refresh();
    },
  });
  const textField = fieldProblem("case-comment", comment.fieldError("body.text"), "case-comment-count");
  return (
    <form
      className="mt-3 space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        comment.submit({ caseId, body: { text } });
      }}
    >
      <label htmlFor="case-comment" className="label">
        Comment
      </label>
      <textarea id="case-comment" rows={3} className="field" {...textField.attrs} value={text} onChange={(e) => setText(e.target.value)} />
      {textField.line}
      <Counter id="case-comment-count" value={text} max={COMMENT_MAX} />
      <FormError text={comment.formError} />
      <div className="flex justify-end">
        <button type="submit" className="btn-primary" disabled={comment.isPending || !text.trim()}>
          Add comment
        </button>
      </div>
    </form>
  );
}
