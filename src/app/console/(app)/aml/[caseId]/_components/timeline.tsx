"use client";

import { fmtTime } from "@/components/ui/badge";
import type { RouterOutputs } from "@/trpc/outputs";
import { who } from "../../_components/case-ui";

type Event = RouterOutputs["aml"]["timeline"]["events"][number];

/** Each kind of timeline event in words (docs/api/guides/aml-cases.md, "The timeline"). */
const KIND: Record<Event["kind"], string> = {
  opened: "Case opened",
  hit_added: "Screening hit recorded",
  webhook_sent: "Webhook event queued",
  assigned: "Assigned",
  reassigned: "Reassigned",
  unassigned: "Unassigned",
  comment: "Comment",
  proposed: "Clear proposed",
  approved: "Clear approved",
  cleared: "Cleared",
  confirmed: "Match confirmed",
  reopened: "Reopened: a new match withdrew the proposal",
  overdue: "Overdue: the deadline passed and the email went out",
  exported: "Exported for an examiner",
  credentials_changed: "Credentials changed",
};

const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

/** The one line under an event: to whom, why, with what notes. */
function detail(e: Event): string | null {
  const d = e.data;
  switch (e.kind) {
    case "assigned":
      return [str(d.assigneeEmail) && `to ${d.assigneeEmail}`, d.via === "next" && "taken as the next case"].filter(Boolean).join(", ");
    case "reassigned":
      return [str(d.from) && `from ${d.from}`, str(d.assigneeEmail) && `to ${d.assigneeEmail}`, str(d.reason) && `because “${d.reason}”`]
        .filter(Boolean)
        .join(" ");
    case "unassigned":
      return [str(d.from) && `from ${d.from}`, str(d.reason) && `because “${d.reason}”`].filter(Boolean).join(" ");
    case "proposed":
    case "cleared":
    case "confirmed":
      return str(d.reason) && `“${d.reason}”`;
    case "approved":
      return [str(d.proposedBy) && `proposed by ${who(String(d.proposedBy))}`, str(d.notes) && `notes “${d.notes}”`]
        .filter(Boolean)
        .join("; ");
    case "opened":
      return str(d.priority) && `${d.priority} priority`;
    case "credentials_changed": {
      const accounts = Array.isArray(d.bindings) ? d.bindings.map((b: { accountDid?: string }) => b.accountDid).filter(Boolean) : [];
      return `${str(d.change) ?? "changed"}: ${accounts.join(", ") || "no accounts"}`;
    }
    default:
      return null;
  }
}

export function Timeline({ events }: { events: Event[] }) {
  if (!events.length) return <p className="mt-2 text-sm text-slate-500">Nothing recorded yet.</p>;
  return (
    <ol className="mt-3 space-y-3 border-l-2 border-slate-200 pl-4 text-sm" aria-label="Case timeline">
      {events.map((e) => {
        const line = detail(e);
        return (
          <li key={e.seq} data-kind={e.kind} className="min-w-0">
            <p className="flex flex-wrap items-baseline gap-x-2">
              <span className="font-medium text-slate-900">{KIND[e.kind]}</span>
              <span className="text-slate-600 [overflow-wrap:anywhere]">by {who(e.actor)}</span>
              <time className="text-xs text-slate-500" dateTime={e.at}>
                {fmtTime(e.at)}
              </time>
            </p>
            {line && <p className="mt-0.5 break-words text-slate-700">{line}</p>}
            {e.text != null && <p className="mt-1 whitespace-pre-wrap break-words rounded bg-slate-50 p-2 text-slate-800">{e.text}</p>}
          </li>
        );
      })}
    </ol>
  );
}
