"use client";

import Link from "next/link";
import { useMe } from "@/components/console/shell";
import { fmtTime } from "@/components/ui/badge";
import { personIdOfDid } from "@/lib/person-label";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";

type Entry = RouterOutputs["dashboard"]["get"]["recentAudit"][number];
type Me = ReturnType<typeof useMe>;

/** The console page of an audit entry's subject, when there is one this member can open. */
export function subjectHref(e: Pick<Entry, "subjectType" | "subject">, role: Me["role"]): string | null {
  if (!e.subject) return null;
  if (e.subjectType === "person" && atLeast(role, "operator")) {
    const id = personIdOfDid(e.subject);
    return id ? `/console/people/${id}` : null;
  }
  if (e.subjectType === "account") return `/console/accounts/${encodeURIComponent(e.subject.split(":").pop() ?? e.subject)}`;
  if (e.subjectType === "api_key" && atLeast(role, "admin")) return `/console/api-keys/${e.subject}`;
  return null;
}

/** An entry's sentence with its subject's name linked to the subject's page. */
export function Summary({ entry }: { entry: Entry }) {
  const me = useMe();
  const href = subjectHref(entry, me.role);
  const name = entry.subjectName;
  const at = href && name ? entry.summary.lastIndexOf(name) : -1;
  if (!href || !name || at < 0) return <>{entry.summary}</>;
  return (
    <>
      {entry.summary.slice(0, at)}
      <Link href={href} className="font-medium text-indigo-700 hover:underline">
        {name}
      </Link>
      {entry.summary.slice(at + name.length)}
    </>
  );
}

/** Audit entries in words, newest first: the sentence, when, and the recorded action for reference. */
export function ActivityList({ entries, empty = "Nothing recorded yet." }: { entries: Entry[]; empty?: string }) {
  if (!entries.length) return <p className="mt-2 text-sm text-slate-500">{empty}</p>;
  return (
    <ul className="mt-2 divide-y divide-slate-100 text-sm" aria-label="Activity">
      {entries.map((e) => (
        <li key={e.id} className="py-2">
          <p className="break-words text-slate-800">
            <Summary entry={e} />
          </p>
          <p className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-slate-500">
            <time dateTime={e.createdAt}>{fmtTime(e.createdAt)}</time>
            <code>{e.action}</code>
            <span>#{e.seq}</span>
          </p>
        </li>
      ))}
    </ul>
  );
}

/** A titled card of a detail page. */
export function Section({ title, children, actions }: { title: string; children: React.ReactNode; actions?: React.ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section className="card min-w-0" aria-labelledby={id}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={id} className="font-semibold">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** Label–value pairs of a detail page (`Fact`s), two columns from tablet width. */
export function Facts({ children }: { children: React.ReactNode }) {
  return <dl className="mt-3 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">{children}</dl>;
}

export function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-0.5 break-words text-slate-900">{children}</dd>
    </div>
  );
}

/** The way back to a list, above a detail page's title. */
export function BackLink({ href, label }: { href: string; label: string }) {
  return (
    <Link href={href} className="mb-2 inline-block text-sm text-indigo-600 hover:underline">
      ← {label}
    </Link>
  );
}
