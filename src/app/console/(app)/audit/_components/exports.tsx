"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, fmtTime } from "@/components/ui/badge";
import { dateIssue, present } from "@/components/ui/error-text";
import { FormError, fieldProblem } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { downloadJson } from "@/lib/download-json";
import { useTRPC, useTRPCClient } from "@/trpc/react";

const EXPORT_FIELDS = {
  from: { label: "start" },
  to: {
    label: "end",
    words: (_: unknown, issue: { code: string; message?: string }) =>
      issue.code !== "custom"
        ? undefined
        : /later than/.test(issue.message ?? "")
          ? "The end must be after the start."
          : `The range is too long: ${issue.message?.replace(/^the range may span /, "an export may span ")}.`,
  },
};

/** Signed exports of a date range: request one, follow it, download it when it is ready. */
export function Exports() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const today = new Date();
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  const [from, setFrom] = useState(iso(new Date(today.getTime() - 30 * 86_400_000)));
  const [to, setTo] = useState(iso(new Date(today.getTime() + 86_400_000)));
  const list = useQuery({
    ...trpc.audit.exports.queryOptions({ limit: "20" }),
    refetchInterval: (q) => (q.state.data?.exports.some((e) => e.status === "queued" || e.status === "running") ? 1500 : false),
  });
  const request = useSubmission(client.audit.requestExport, {
    fields: EXPORT_FIELDS,
    validate: (input) => present([dateIssue(["from"], input.from), dateIssue(["to"], input.to)]),
    onSuccess: () => {
      toast({ tone: "ok", title: "Export queued", body: "It is signed and ready in a few seconds." });
      void qc.invalidateQueries({ queryKey: trpc.audit.exports.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "The export was not started", body: err.message }),
  });
  const fromField = fieldProblem("export-from", request.fieldError("from"));
  const toField = fieldProblem("export-to", request.fieldError("to"));
  async function download(jobId: string) {
    const job = await client.audit.getExport.query({ jobId });
    downloadJson(`audit-export-${jobId}.json`, job.artifact);
  }
  return (
    <section className="card mt-6" aria-labelledby="exports-h">
      <h2 id="exports-h" className="font-semibold">
        Signed exports
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        A JSON file of the entries in a range with a checkpoint signed by the issuer key, verifiable away from this service.
      </p>
      <form
        className="mt-3 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          request.submit({ from: from && `${from}T00:00:00Z`, to: to && `${to}T00:00:00Z` });
        }}
      >
        <div>
          <label htmlFor="export-from" className="label">
            From
          </label>
          <input
            id="export-from"
            type="date"
            className="field"
            {...fromField.attrs}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
          />
        </div>
        <div>
          <label htmlFor="export-to" className="label">
            To (exclusive)
          </label>
          <input id="export-to" type="date" className="field" {...toField.attrs} value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
        <button type="submit" className="btn-primary" disabled={request.isPending}>
          {request.isPending ? "Starting…" : "Start export"}
        </button>
      </form>
      <div className="mt-2 space-y-1">
        {fromField.line}
        {toField.line}
        <FormError text={request.formError} />
      </div>
      <ul className="mt-4 divide-y divide-slate-100 text-sm" aria-label="Export jobs">
        {list.data?.exports.length === 0 && <li className="py-3 text-slate-500">No exports yet.</li>}
        {list.data?.exports.map((j) => (
          <li key={j.jobId} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2">
            <Badge tone={j.status === "completed" ? "green" : j.status === "failed" ? "red" : "amber"}>{j.status}</Badge>
            <span className="text-slate-600">
              {fmtTime(j.from)} → {fmtTime(j.to)}
            </span>
            {j.error && <span className="text-red-700">{j.error}</span>}
            {j.status === "completed" && (
              <button type="button" className="btn-secondary ml-auto" onClick={() => void download(j.jobId)}>
                Download
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
