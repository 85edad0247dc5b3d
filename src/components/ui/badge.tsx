import { personShortLabel } from "@/lib/person-label";

const TONES = {
  slate: "bg-slate-100 text-slate-700",
  green: "bg-emerald-100 text-emerald-800",
  amber: "bg-amber-100 text-amber-800",
  red: "bg-red-100 text-red-800",
  indigo: "bg-indigo-100 text-indigo-800",
} as const;

export function Badge({ tone = "slate", children }: { tone?: keyof typeof TONES; children: React.ReactNode }) {
  return (
    <span className={`inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ${TONES[tone]}`}>
      {children}
    </span>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: React.ReactNode; actions?: React.ReactNode }) {
  return (
    <div className="mb-5 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {description && <p className="mt-1 text-sm text-slate-600">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

export const fmtTime = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—";

/**
 * A DID short enough for a table cell: its method and last segment, the full DID on hover and for
 * screen readers. A person is named as everywhere in the console ("Person 7F3A-21C9").
 */
export function ShortDid({ did }: { did: string }) {
  if (did.includes(":people:")) {
    return (
      <span title={did} className="whitespace-nowrap text-sm font-medium">
        <span className="sr-only">{did}</span>
        <span aria-hidden>{personShortLabel(did)}</span>
      </span>
    );
  }
  const last = did.split(":").pop() ?? did;
  const short = last.length > 12 ? `${last.slice(0, 8)}…` : last;
  const kind = did.includes(":orgs:") ? "org" : did.split(":").slice(0, 3).join(":");
  return (
    <span title={did} className="whitespace-nowrap font-mono text-xs">
      <span className="sr-only">{did}</span>
      <span aria-hidden>
        {kind} {short}
      </span>
    </span>
  );
}
