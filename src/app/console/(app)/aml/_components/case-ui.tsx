"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useMe } from "@/components/console/shell";
import { Badge, fmtTime } from "@/components/ui/badge";
import { present, textIssue } from "@/components/ui/error-text";
import { Counter, FormError, fieldProblem } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

// What the AML queue and the case page share: how a case's priority, status and deadline read,
// and the decision form (propose clear, approve it, confirm the match) with its four-eyes rules.

export type Case = RouterOutputs["aml"]["queue"]["cases"][number];

const PRIORITY_TONE = { low: "slate", medium: "amber", high: "red", critical: "red" } as const;
export const PRIORITY_RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const;
const STATUS_TONE = { open: "amber", pending_approval: "indigo", cleared: "green", confirmed: "slate" } as const;
const AGEING = {
  on_time: { tone: "green", words: "on time" },
  due_soon: { tone: "amber", words: "due soon" },
  overdue: { tone: "red", words: "overdue" },
} as const;

const statusWords = (s: Case["status"]) => s.replace("_", " ");

export function StatusBadge({ status }: { status: Case["status"] }) {
  return <Badge tone={STATUS_TONE[status]}>{statusWords(status)}</Badge>;
}

export function PriorityBadge({ priority }: { priority: Case["priority"] }) {
  return <Badge tone={PRIORITY_TONE[priority]}>{priority}</Badge>;
}

/** Where an open case stands against its deadline, in words; "closed" once it is. */
export function SlaBadge({ c }: { c: Pick<Case, "ageing" | "dueAt" | "closedAt"> }) {
  if (!c.ageing) return <Badge tone="slate">closed</Badge>;
  const a = AGEING[c.ageing];
  return <Badge tone={a.tone}>{a.words}</Badge>;
}

/** Who did something, as the timeline records it: a member by their email, anything else (an API key, the system) as recorded. */
export const who = (actor: string) => (actor.startsWith("member:") ? actor.slice("member:".length) : actor);

/** "3 h", "2 d": how long ago `iso` was, coarse enough for a queue. */
export function age(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** The subject's name as KYC verified it, from the newest hit's evidence that holds one. */
export function subjectName(c: Pick<Case, "hits">): string | null {
  for (const h of [...c.hits].reverse()) if (h.evidence?.subject.name) return h.evidence.subject.name;
  return null;
}

const CASE_FIELDS = { reason: { label: "reason" }, "body.reason": { label: "reason" }, "body.notes": { label: "notes" } };

/**
 * Propose a clear, approve one, or confirm the match, with one text box: the reason to propose or
 * confirm, the optional notes of an approval. Whoever proposed cannot approve (four-eyes); the
 * service refuses it as well. `Actions` wraps the buttons (sticky in a dialog, a row on a page).
 */
export function CaseDecision({
  c,
  onDone,
  Actions,
}: {
  c: Case;
  onDone?: (closed: boolean) => void;
  Actions: (p: { children: React.ReactNode }) => React.ReactNode;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const [text, setText] = useState("");
  const done = (title: string, closed: boolean) => {
    toast({ tone: "ok", title });
    void qc.invalidateQueries({ queryKey: trpc.aml.pathKey() });
    setText("");
    onDone?.(closed);
  };
  const client = useTRPCClient();
  const propose = useSubmission(client.aml.proposeClear, {
    fields: CASE_FIELDS,
    validate: (input) => present([textIssue(["reason"], input.reason, 3, 500)]),
    onSuccess: (r) =>
      r.pendingApproval ? done("Clear proposed: waiting for a second member", false) : done("Case cleared: flags lifted", true),
  });
  const approve = useSubmission(client.aml.approveClear, {
    fields: CASE_FIELDS,
    validate: (input) => present([textIssue(["body", "notes"], input.body.notes ?? "", 0, 500)]),
    onSuccess: () => done("Clear approved: flags lifted", true),
  });
  const confirm = useSubmission(client.aml.confirm, {
    fields: CASE_FIELDS,
    validate: (input) => present([textIssue(["body", "reason"], input.body.reason, 1, 500)]),
    onSuccess: () => done("Match confirmed: flags stay up, and a sanctions match revokes the person's credentials", true),
  });
  const iProposed = c.proposedBy === `member:${me.email}`;
  // The last action tried speaks; the text box is the one field all three share.
  const [tried, setTried] = useState<"propose" | "approve" | "confirm" | null>(null);
  const sub = tried === "propose" ? propose : tried === "approve" ? approve : tried === "confirm" ? confirm : null;
  const textError = sub?.fieldError("reason") ?? sub?.fieldError("body.reason") ?? sub?.fieldError("body.notes");
  const textField = fieldProblem(`case-text-${c.caseId}`, textError, `case-text-count-${c.caseId}`);
  const busy = propose.isPending || approve.isPending || confirm.isPending;
  const closed = c.status === "cleared" || c.status === "confirmed";
  if (closed)
    return (
      <p className="text-sm text-slate-600">
        This case is {statusWords(c.status)}
        {c.closedAt ? ` since ${fmtTime(c.closedAt)}` : ""}: nothing is left to decide. Notes can still be added.
      </p>
    );
  return (
    <form className="space-y-3" onSubmit={(e) => e.preventDefault()}>
      <div>
        <label htmlFor={`case-text-${c.caseId}`} className="label">
          {c.status === "pending_approval" ? "Notes (optional for approval, required to confirm)" : "Reason"}
        </label>
        <textarea
          id={`case-text-${c.caseId}`}
          rows={2}
          className="field"
          {...textField.attrs}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        {textField.line}
        <Counter id={`case-text-count-${c.caseId}`} value={text} max={500} min={c.status === "open" ? 3 : 0} />
      </div>
      {c.status === "pending_approval" && iProposed && (
        <p role="note" className="rounded-md bg-indigo-50 p-2 text-sm text-indigo-900">
          You proposed this clear, so you cannot approve it: four-eyes needs a different member to approve.
        </p>
      )}
      <FormError text={sub?.formError} />
      <Actions>
        <button
          type="button"
          className="btn-secondary"
          disabled={busy || !text.trim()}
          onClick={() => {
            setTried("confirm");
            confirm.submit({ caseId: c.caseId, body: { reason: text } });
          }}
        >
          Confirm match
        </button>
        {c.status === "open" ? (
          <button
            type="button"
            className="btn-primary"
            disabled={busy || text.trim().length < 3}
            onClick={() => {
              setTried("propose");
              propose.submit({ subjectDid: c.subjectDid, reason: text });
            }}
          >
            Propose clear
          </button>
        ) : (
          <button
            type="button"
            className="btn-primary"
            disabled={busy || iProposed}
            onClick={() => {
              setTried("approve");
              approve.submit({ caseId: c.caseId, body: text.trim() ? { notes: text } : {} });
            }}
          >
            Approve clear
          </button>
        )}
      </Actions>
    </form>
  );
}
