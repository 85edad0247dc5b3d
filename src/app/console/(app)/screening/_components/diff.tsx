"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Section } from "@/components/ui/section";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useTRPC } from "@/trpc/react";
import type { Version } from "./versions";

/** A list is its name and its owner: your organization's list may share a name with another's, never with a global one. */
const listKey = (v: Pick<Version, "list" | "scope">) => `${v.scope}:${v.list}`;

/** To the second: two versions imported in the same minute must read apart. */
const fmtSeconds = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

function versionLabel(v: Version): string {
  return `${fmtSeconds(v.importedAt)} · ${v.entryCount.toLocaleString()} entries${v.active ? " · active" : ""}`;
}

/** What changed between two versions of one list: counts, then the entries added, removed and changed. */
export function Diff({ versions }: { versions: Version[] }) {
  const trpc = useTRPC();
  const lists = useMemo(() => {
    const byList = new Map<string, Version[]>();
    for (const v of versions) byList.set(listKey(v), [...(byList.get(listKey(v)) ?? []), v]);
    return [...byList.entries()].filter(([, vs]) => vs.length >= 2);
  }, [versions]);
  const [list, setList] = useState<string>("");
  const chosen = lists.find(([k]) => k === list) ?? lists[0];
  const options = chosen?.[1] ?? [];
  const [pick, setPick] = useState<{ list: string; from: string; to: string } | null>(null);
  // Newest first: by default the active (or newest) version against the one before it.
  const from = pick && pick.list === chosen?.[0] ? pick.from : (options[1]?.listVersionId ?? "");
  const to = pick && pick.list === chosen?.[0] ? pick.to : (options[0]?.listVersionId ?? "");
  const same = !!from && from === to;
  const diff = useQuery({ ...trpc.screening.listDiff.queryOptions({ from, to }), enabled: !!from && !!to && !same });
  if (!chosen) {
    return (
      <Section title="What changed" id="diff-h">
        <p className="text-sm text-slate-600">A list needs two versions before they can be compared.</p>
      </Section>
    );
  }
  const set = (next: { from?: string; to?: string }) => setPick({ list: chosen[0], from: next.from ?? from, to: next.to ?? to });
  return (
    <Section title="What changed" id="diff-h" description="Entries added, removed and changed between two versions of one list.">
      <div className="grid gap-3 sm:grid-cols-3">
        <div>
          <label htmlFor="diff-list" className="label">
            List
          </label>
          <select id="diff-list" className="field" value={chosen[0]} onChange={(e) => setList(e.target.value)}>
            {lists.map(([k, vs]) => (
              <option key={k} value={k}>
                {vs[0]!.list}
                {vs[0]!.scope === "organization" ? " (your organization)" : ""}
              </option>
            ))}
          </select>
        </div>
        <VersionSelect id="diff-from" label="From (older)" value={from} options={options} onChange={(v) => set({ from: v })} />
        <VersionSelect id="diff-to" label="To (newer)" value={to} options={options} onChange={(v) => set({ to: v })} />
      </div>
      <div className="mt-4" aria-live="polite">
        {same ? (
          <p className="text-sm text-slate-600">Choose two different versions.</p>
        ) : diff.error ? (
          <ErrorState error={diff.error} onRetry={() => void diff.refetch()} />
        ) : !diff.data ? (
          <LoadingRows rows={2} />
        ) : (
          <>
            <p className="text-sm" data-testid="diff-counts">
              <strong>{diff.data.counts.added.toLocaleString()}</strong> added, <strong>{diff.data.counts.removed.toLocaleString()}</strong>{" "}
              removed, <strong>{diff.data.counts.changed.toLocaleString()}</strong> changed.
              {diff.data.truncated && " Only the first 1,000 of each are listed."}
            </p>
            <div className="mt-3 grid gap-4 md:grid-cols-3">
              {(["added", "removed", "changed"] as const).map((kind) => (
                <DiffColumn key={kind} kind={kind} ids={diff.data[kind]} names={diff.data.names} />
              ))}
            </div>
          </>
        )}
      </div>
    </Section>
  );
}

const SHOWN = 50;

function DiffColumn({ kind, ids, names }: { kind: "added" | "removed" | "changed"; ids: string[]; names: Record<string, string> }) {
  const [all, setAll] = useState(false);
  const shown = all ? ids : ids.slice(0, SHOWN);
  const title = { added: "Added", removed: "Removed", changed: "Changed" }[kind];
  return (
    <div>
      <h3 className="text-sm font-medium" id={`diff-${kind}`}>
        {title} ({ids.length.toLocaleString()})
      </h3>
      {ids.length === 0 ? (
        <p className="mt-1 text-sm text-slate-500">None.</p>
      ) : (
        <ul aria-labelledby={`diff-${kind}`} className="mt-1 divide-y divide-slate-100 text-sm">
          {shown.map((id) => (
            <li key={id} className="flex flex-wrap justify-between gap-x-2 py-1">
              <span className="break-words">{names[id] ?? id}</span>
              <code className="break-all text-xs text-slate-500">{id}</code>
            </li>
          ))}
        </ul>
      )}
      {ids.length > SHOWN && (
        <button type="button" className="btn-secondary mt-2" onClick={() => setAll(!all)}>
          {all ? "Show fewer" : `Show all ${ids.length.toLocaleString()}`}
        </button>
      )}
    </div>
  );
}

/** One end of the comparison: a version of the chosen list. */
function VersionSelect(props: {
  id: string;
  label: string;
  value: string;
  options: Parameters<typeof versionLabel>[0][];
  onChange: (listVersionId: string) => void;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="label">
        {props.label}
      </label>
      <select id={props.id} className="field" value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.options.map((v) => (
          <option key={v.listVersionId} value={v.listVersionId}>
            {versionLabel(v)}
          </option>
        ))}
      </select>
    </div>
  );
}
