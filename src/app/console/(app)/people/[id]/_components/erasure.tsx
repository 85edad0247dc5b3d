"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Section } from "@/components/console/activity";
import { Badge, fmtTime } from "@/components/ui/badge";
import { FormDialog } from "@/components/ui/form-dialog";
import { fieldProblem } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { personShortLabel } from "@/lib/person-label";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Person = Pick<RouterOutputs["people"]["get"], "id" | "personDid">;
type Erased = RouterOutputs["people"]["erase"];
type Hold = { erasableFrom: string | null; heldBy: string[] };

/** How many leading characters of the person's id the member types; the service checks the same. */
const CONFIRMATION_LENGTH = 8;

/** Compared as the service compares (services/people/erasure-console.ts): case, spaces and hyphens aside. */
const normalised = (s: string) => s.trim().toLowerCase().replace(/-/g, "");

/** What holds a scheduled erasure, in words: the retention date, the open case, or both. */
function holdWords({ erasableFrom, heldBy }: Hold): string {
  const retention = heldBy.includes("aml_retention") && erasableFrom;
  const openCase = heldBy.includes("open_case");
  if (retention && openCase)
    return `It is carried out on ${fmtTime(erasableFrom)}, when the AML retention period ends, once the person's open AML case is closed.`;
  if (retention) return `It is carried out on ${fmtTime(erasableFrom)}, when the AML retention period ends.`;
  return "It is carried out when the person's open AML case is closed.";
}

/** The 409 `erasure_held` of a held request (recorded and scheduled by the service), or null for any other failure. */
function holdOf(err: unknown): Hold | null {
  const data = (err as { data?: { code?: string; details?: Record<string, unknown> | null } } | null)?.data;
  const d = data?.details;
  if (data?.code !== "CONFLICT" || d?.reason !== "erasure_held") return null;
  return {
    erasableFrom: typeof d.erasableFrom === "string" ? d.erasableFrom : null,
    heldBy: Array.isArray(d.heldBy) ? d.heldBy.filter((h): h is string => typeof h === "string") : [],
  };
}

/**
 * The person page's erasure section, for admins: the state of a scheduled erasure with a way to
 * withdraw it, or the button that opens the erase dialog.
 */
export function PersonErasure({ person }: { person: Person }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.people.erasure.queryOptions({ id: person.id }));
  const [open, setOpen] = useState(false);
  const e = q.data;
  return (
    <Section title="Erasure">
      {q.error && <p className="mt-2 text-sm text-red-700">The erasure state could not be read: {q.error.message}</p>}
      {e?.status === "scheduled" ? (
        <div className="mt-2 space-y-3 text-sm">
          <p className="flex flex-wrap items-center gap-2">
            <Badge tone="amber">erasure scheduled</Badge>
            <span className="text-slate-600">requested {fmtTime(e.requestedAt)}</span>
          </p>
          <p className="text-slate-700">
            {holdWords(e)} The person's bindings were revoked when it was requested; withdrawing the erasure keeps the person, and the
            bindings stay revoked.
          </p>
          <Withdraw id={person.id} />
        </div>
      ) : (
        <div className="mt-2 space-y-3 text-sm">
          <p className="text-slate-700">
            Erasing revokes the person's bindings and blanks everything personal kept about them. It cannot be undone.
          </p>
          {e?.status === "withdrawn" && <p className="text-slate-500">An erasure requested {fmtTime(e.requestedAt)} was withdrawn.</p>}
          <button type="button" className="btn-danger" disabled={q.isLoading} onClick={() => setOpen(true)}>
            Erase this person
          </button>
        </div>
      )}
      {open && <EraseDialog person={person} onClose={() => setOpen(false)} />}
    </Section>
  );
}

/**
 * Asks for the first characters of the person's id, then erases. The submit button waits for the
 * exact characters and is disabled while the call runs; `useSubmission` also ignores a second
 * submit and sends one Idempotency-Key, so a double click erases once. A held erasure is not a
 * failure here: the service recorded it, and the dialog says until when and offers to withdraw.
 */
function EraseDialog({ person, onClose }: { person: Person; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const [text, setText] = useState("");
  const [held, setHeld] = useState<Hold | null>(null);
  const expected = person.id.slice(0, CONFIRMATION_LENGTH);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.people.pathKey() });
  const eraseOrHold = {
    mutate: async (
      input: { id: string; confirmation: string },
      opts: { context: { idempotencyKey: string } },
    ): Promise<{ erased: Erased } | { held: Hold }> => {
      try {
        return { erased: await client.people.erase.mutate(input, opts) };
      } catch (err) {
        const hold = holdOf(err);
        if (hold) return { held: hold };
        throw err;
      }
    },
  };
  const erase = useSubmission(eraseOrHold, {
    fields: {
      confirmation: {
        label: "confirmation",
        words: () => `Type ${expected}, the first ${CONFIRMATION_LENGTH} characters of the person's id.`,
      },
    },
    onSuccess: (r) => {
      void refresh();
      if ("held" in r) {
        setHeld(r.held);
        return;
      }
      toast({
        tone: "ok",
        title: `${personShortLabel(person.personDid)} erased`,
        body: "Their bindings are revoked and their personal data blanked.",
      });
      onClose();
    },
  });
  const error = erase.fieldError("confirmation");
  const field = fieldProblem("erase-confirmation", error, "erase-confirmation-hint");
  return (
    <FormDialog
      onOpenChange={(o) => !o && onClose()}
      title={held ? "Erasure scheduled" : "Erase this person"}
      description={
        held
          ? undefined
          : "Their bindings are revoked, everything personal kept about them is blanked and their data key destroyed: this cannot be undone. An open AML case or the AML retention period holds the erasure; it is then scheduled for when the hold ends."
      }
      submission={erase}
      onSubmit={() => erase.submit({ id: person.id, confirmation: text })}
      submitLabel="Erase this person"
      pendingLabel="Erasing…"
      destructive
      disabled={normalised(text) !== expected}
      className=""
      done={
        held && (
          <div role="status" className="space-y-3 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
            <p>
              The person's AML records must be kept for now, so the erasure is scheduled. {holdWords(held)} Their bindings are revoked
              already.
            </p>
            <Withdraw id={person.id} onWithdrawn={onClose} />
          </div>
        )
      }
    >
      <label htmlFor="erase-confirmation" className="label">
        Type <code className="rounded bg-slate-100 px-1 font-mono">{expected}</code> to confirm
      </label>
      <input
        id="erase-confirmation"
        className="field font-mono"
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        {...field.attrs}
        value={text}
        onChange={(ev) => {
          setText(ev.target.value);
          if (error) erase.reset();
        }}
      />
      <p id="erase-confirmation-hint" className="mt-1 text-xs text-slate-500">
        The first {CONFIRMATION_LENGTH} characters of the person's id, which follows “people:” in their DID.
      </p>
      {field.line}
    </FormDialog>
  );
}

/** Withdraws a scheduled erasure: the person stays; bindings the request revoked stay revoked. */
function Withdraw({ id, onWithdrawn }: { id: string; onWithdrawn?: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const withdraw = useSubmission(client.people.withdrawErasure, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Erasure withdrawn", body: "The person's data is kept." });
      void qc.invalidateQueries({ queryKey: trpc.people.pathKey() });
      onWithdrawn?.();
    },
    onError: (err) => toast({ tone: "error", title: "The erasure was not withdrawn", body: err.message }),
  });
  return (
    <button type="button" className="btn-secondary" disabled={withdraw.isPending} onClick={() => withdraw.submit({ id })}>
      {withdraw.isPending ? "Withdrawing…" : "Withdraw the erasure"}
    </button>
  );
}
