"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { RoleGate, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { FieldError, FormError } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Version = RouterOutputs["screening"]["listVersions"]["versions"][number];
type Run = RouterOutputs["screening"]["runs"]["runs"][number];
type Format = Version["format"];
type Frequency = RouterOutputs["screening"]["monitoring"]["frequency"];

const FORMAT_LABEL: Record<Format, string> = { ftm: "FtM JSON lines", ofac: "OFAC SDN CSV", labels: "Account labels" };
const STATUS_TONE: Record<Run["status"], "slate" | "indigo" | "green" | "red"> = {
  queued: "slate",
  running: "indigo",
  completed: "green",
  failed: "red",
};
/** Bytes of an upload at most (the service refuses more). */
const MAX_BYTES = 10 * 1024 * 1024;
const REFRESH_MS = 3_000;

/** A list is its name and its owner: your organization's list may share a name with another's, never with a global one. */
const listKey = (v: Pick<Version, "list" | "scope">) => `${v.scope}:${v.list}`;

export default function ScreeningPage() {
  return (
    <RoleGate min="compliance_officer">
      <Screening />
    </RoleGate>
  );
}

function Screening() {
  const trpc = useTRPC();
  const versions = useQuery(trpc.screening.listVersions.queryOptions({ limit: "200" }));
  if (versions.error) return <ErrorState error={versions.error} onRetry={() => void versions.refetch()} />;
  return (
    <>
      <PageHeader
        title="Screening"
        description="The sanctions and PEP lists your people are screened against, what changed between their versions, and the re-screens that follow."
      />
      <div className="space-y-6">
        <Versions versions={versions.data?.versions} isLoading={versions.isLoading} />
        {versions.data && <Diff versions={versions.data.versions} />}
        <Monitoring />
        <Upload />
      </div>
    </>
  );
}

function Versions({ versions, isLoading }: { versions: Version[] | undefined; isLoading: boolean }) {
  const columns = useMemo(() => {
    const c = columnsFor<Version>();
    return [
      c.accessor("list", {
        header: "List",
        cell: (i) => (
          <span className="flex flex-wrap items-center gap-1.5">
            <code className="text-xs">{i.getValue()}</code>
            {i.row.original.scope === "organization" && <Badge tone="indigo">your organization</Badge>}
          </span>
        ),
      }),
      c.accessor((v) => FORMAT_LABEL[v.format], { id: "format", header: "Format" }),
      c.accessor("entryCount", { header: "Entries", cell: (i) => <span className="tabular-nums">{i.getValue().toLocaleString()}</span> }),
      c.accessor("importedAt", {
        header: "Imported",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor("importedBy", { header: "By", cell: (i) => <span className="break-all text-xs">{i.getValue()}</span> }),
      c.accessor((v) => (v.active ? "active" : "past"), {
        id: "active",
        header: "State",
        cell: (i) => (i.getValue() === "active" ? <Badge tone="green">active</Badge> : <Badge>past</Badge>),
      }),
    ];
  }, []);
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h" className="mb-2 font-semibold">
        List versions
      </h2>
      <DataTable
        label="List versions"
        columns={columns}
        data={versions}
        isLoading={isLoading}
        empty="No list has been imported yet."
        filterPlaceholder="Filter by list, format or who imported"
      />
    </section>
  );
}

/** To the second: two versions imported in the same minute must read apart. */
const fmtSeconds = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

function versionLabel(v: Version): string {
  return `${fmtSeconds(v.importedAt)} · ${v.entryCount.toLocaleString()} entries${v.active ? " · active" : ""}`;
}

function Diff({ versions }: { versions: Version[] }) {
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

function Progress({ run }: { run: Run }) {
  const { personsScreened, personsTotal } = run.counts;
  const pct = personsTotal > 0 ? Math.min(100, Math.round((personsScreened / personsTotal) * 100)) : run.status === "completed" ? 100 : 0;
  return (
    <div className="min-w-36">
      <div className="text-xs tabular-nums">
        {personsScreened.toLocaleString()} of {personsTotal.toLocaleString()} people
        {run.counts.accountsScreened > 0 && ` · ${run.counts.accountsScreened.toLocaleString()} accounts`}
      </div>
      <div
        className="mt-1 h-1.5 w-full rounded-full bg-slate-200"
        role="progressbar"
        aria-label="People screened"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div className={`h-1.5 rounded-full ${run.status === "failed" ? "bg-red-500" : "bg-indigo-600"}`} style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

function Monitoring() {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.screening.runs.queryOptions({ limit: "50" }),
    // While a run is queued or running its progress is read again every few seconds.
    refetchInterval: (q) => (q.state.data?.runs.some((r) => r.status === "queued" || r.status === "running") ? REFRESH_MS : false),
  });
  const columns = useMemo(() => {
    const c = columnsFor<Run>();
    return [
      c.accessor("createdAt", {
        header: "Queued",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor((r) => (r.kind === "periodic" ? "periodic" : `list change: ${r.list ?? ""}`), {
        id: "trigger",
        header: "Trigger",
        cell: (i) =>
          i.row.original.kind === "periodic" ? (
            "Periodic re-screen"
          ) : (
            <span>
              List change <code className="text-xs">{i.row.original.list}</code>
              {i.row.original.counts.changedEntries > 0 && (
                <span className="text-slate-500"> ({i.row.original.counts.changedEntries.toLocaleString()} changed entries)</span>
              )}
            </span>
          ),
      }),
      c.accessor("status", {
        header: "Status",
        cell: (i) => (
          <span>
            <Badge tone={STATUS_TONE[i.getValue()]}>{i.getValue()}</Badge>
            {i.row.original.error && <span className="mt-1 block text-xs text-red-700">{i.row.original.error}</span>}
          </span>
        ),
      }),
      c.accessor((r) => r.counts.personsScreened, { id: "progress", header: "Progress", cell: (i) => <Progress run={i.row.original} /> }),
      c.accessor((r) => r.counts.hits, {
        id: "hits",
        header: "Hits",
        cell: (i) => (
          <span className="tabular-nums">
            {i.getValue()}
            {i.row.original.counts.casesOpened > 0 && (
              <span className="text-slate-500"> · {i.row.original.counts.casesOpened} cases opened</span>
            )}
          </span>
        ),
      }),
      c.accessor("startedAt", {
        header: "Started",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor("completedAt", {
        header: "Finished",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
    ];
  }, []);
  return (
    <section aria-labelledby="runs-h" className="space-y-3">
      <h2 id="runs-h" className="font-semibold">
        Ongoing screening
      </h2>
      <p className="text-sm text-slate-600">
        When a list changes, your approved people are re-screened against its new and changed entries; a new match opens or escalates an AML
        case.
      </p>
      <PeriodicSetting />
      <DataTable
        label="Re-screen runs"
        columns={columns}
        data={runs.data?.runs}
        isLoading={runs.isLoading}
        error={runs.error}
        onRetry={() => void runs.refetch()}
        empty="No re-screen has run yet."
        filterPlaceholder="Filter by trigger or status"
      />
    </section>
  );
}

const FREQUENCY_LABEL: Record<Frequency, string> = {
  off: "Off: only when a list changes",
  daily: "Daily: everyone against every list, once a UTC day",
  weekly: "Weekly: everyone against every list, once an ISO week",
};

function PeriodicSetting() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const setting = useQuery(trpc.screening.monitoring.queryOptions());
  const [choice, setChoice] = useState<Frequency | null>(null);
  const save = useSubmission(client.screening.setMonitoring, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Periodic re-screen saved" });
      setChoice(null);
      void qc.invalidateQueries({ queryKey: trpc.screening.monitoring.queryKey() });
    },
  });
  if (setting.error) return <ErrorState error={setting.error} onRetry={() => void setting.refetch()} />;
  if (!setting.data) return <LoadingRows rows={1} />;
  const current = setting.data.frequency;
  const admin = atLeast(me.role, "admin");
  const value = choice ?? current;
  return (
    <div className="card">
      <h3 className="text-sm font-medium" id="periodic-h">
        Periodic re-screen
      </h3>
      {admin ? (
        <form
          className="mt-2 flex flex-col gap-2 sm:flex-row sm:items-end"
          aria-labelledby="periodic-h"
          onSubmit={(e) => {
            e.preventDefault();
            save.submit({ frequency: value });
          }}
        >
          <div className="grow">
            <label htmlFor="frequency" className="label">
              Frequency
            </label>
            <select id="frequency" className="field" value={value} onChange={(e) => setChoice(e.target.value as Frequency)}>
              {(["off", "daily", "weekly"] as const).map((f) => (
                <option key={f} value={f}>
                  {FREQUENCY_LABEL[f]}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn-primary" disabled={save.isPending || value === current}>
            Save
          </button>
        </form>
      ) : (
        <p className="mt-1 text-sm" data-testid="periodic-readonly">
          {FREQUENCY_LABEL[current]}. Only an admin can change it.
        </p>
      )}
      <FormError text={save.formError} />
      {setting.data.updatedBy && (
        <p className="mt-1 text-xs text-slate-500">
          Last changed by {setting.data.updatedBy}, {fmtTime(setting.data.updatedAt)}.
        </p>
      )}
    </div>
  );
}

/** The file's bytes in base64, so the service decodes and hashes them exactly as `screening:import` does. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

const UPLOAD_FIELDS = {
  list: { label: "list name" },
  files: { label: "file" },
};

function Upload() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const [format, setFormat] = useState<Format>("ofac");
  const [list, setList] = useState("");
  const [main, setMain] = useState<File | null>(null);
  const [alt, setAlt] = useState<File | null>(null);
  const [reading, setReading] = useState(false);
  const [localError, setLocalError] = useState<string | null>(null);
  const upload = useSubmission(client.screening.uploadList, {
    fields: UPLOAD_FIELDS,
    onSuccess: (res) => {
      toast({
        tone: "ok",
        title: res.unchanged ? "Nothing changed" : "List imported",
        body: res.unchanged
          ? `These files are already the active version of ${res.list}.`
          : `${res.entryCount.toLocaleString()} entries are now the active version of ${res.list}; your people are re-screened against them.`,
      });
      void qc.invalidateQueries({ queryKey: trpc.screening.listVersions.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.screening.runs.queryKey() });
    },
  });
  const busy = reading || upload.isPending;
  return (
    <Section
      title="Your organization's own list"
      id="upload-h"
      description="Upload your own watchlist. It is screened for your organization only, checked line by line like the global lists; the same files again change nothing. Up to 10 MB."
    >
      <form
        className="space-y-3"
        onSubmit={async (e) => {
          e.preventDefault();
          setLocalError(null);
          const files = [main, format === "ofac" ? alt : null].filter((f): f is File => !!f);
          if (files.length === 0) return setLocalError("Choose a file to upload.");
          if (files.reduce((n, f) => n + f.size, 0) > MAX_BYTES) return setLocalError("The files are larger than 10 MB together.");
          setReading(true);
          try {
            const payload = await Promise.all(files.map(async (f) => ({ name: f.name, contentBase64: await base64Of(f) })));
            upload.submit({ format, list: list.trim(), files: payload });
          } catch {
            setLocalError("The file could not be read. Choose it again.");
          } finally {
            setReading(false);
          }
        }}
      >
        <div className="grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor="upload-format" className="label">
              Format
            </label>
            <select id="upload-format" className="field" value={format} onChange={(e) => setFormat(e.target.value as Format)}>
              <option value="ofac">OFAC SDN CSV (SDN.CSV, optional ALT.CSV)</option>
              <option value="ftm">FtM JSON lines</option>
              <option value="labels">Account labels CSV</option>
            </select>
          </div>
          <div>
            <label htmlFor="upload-list" className="label">
              List name
            </label>
            <input
              id="upload-list"
              className="field font-mono"
              value={list}
              onChange={(e) => setList(e.target.value)}
              placeholder="our-watchlist"
              aria-describedby="upload-list-error"
              aria-invalid={!!upload.fieldError("list")}
            />
            <FieldError id="upload-list-error" text={upload.fieldError("list")} />
          </div>
          <div>
            <label htmlFor="upload-file" className="label">
              {format === "ofac" ? "SDN.CSV" : format === "ftm" ? "FtM file (.json)" : "Labels file (.csv)"}
            </label>
            <input
              id="upload-file"
              type="file"
              className="field"
              accept={format === "ftm" ? ".json,.jsonl,.ftm" : ".csv,.CSV"}
              aria-describedby="upload-file-error"
              aria-invalid={!!upload.fieldError("files")}
              onChange={(e) => setMain(e.target.files?.[0] ?? null)}
            />
          </div>
          {format === "ofac" && (
            <div>
              <label htmlFor="upload-alt" className="label">
                ALT.CSV (optional)
              </label>
              <input
                id="upload-alt"
                type="file"
                className="field"
                accept=".csv,.CSV"
                onChange={(e) => setAlt(e.target.files?.[0] ?? null)}
              />
            </div>
          )}
        </div>
        <FieldError id="upload-file-error" text={upload.fieldError("files")} />
        <FormError text={localError ?? upload.formError} testId="upload-error" />
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? "Uploading…" : "Upload list"}
        </button>
      </form>
    </Section>
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
