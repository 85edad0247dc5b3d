"use client";

import { useEffect, useMemo, useState } from "react";
import { MethodBadge, ScopeBadge } from "./badges";
import { type Schema, SchemaTable } from "./schema-table";

type Operation = {
  summary: string;
  tags: string[];
  "x-scope": string;
  "x-idempotent"?: boolean;
  parameters?: Array<{ name?: string; in?: string; required?: boolean; description?: string; $ref?: string; schema?: Schema }>;
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }>; "x-error-codes"?: string[] }>;
};
type Doc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
type Entry = { method: string; path: string; op: Operation };

const slug = (e: Entry) => `${e.method}-${e.path}`.replace(/[^a-zA-Z0-9]+/g, "-");

/** The API reference, rendered from the served /v1/openapi.json so it can never drift from the contract. */
export function ApiReference() {
  const [doc, setDoc] = useState<Doc | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState("");

  useEffect(() => {
    fetch("/v1/openapi.json")
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then(setDoc)
      .catch((e: Error) => setError(e.message));
  }, []);

  const groups = useMemo(() => {
    const byTag = new Map<string, Entry[]>();
    if (!doc) return byTag;
    const q = filter.trim().toLowerCase();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (q && !`${method} ${path} ${op.summary} ${op["x-scope"]}`.toLowerCase().includes(q)) continue;
        const tag = op.tags[0] ?? "Other";
        byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
      }
    }
    return byTag;
  }, [doc, filter]);

  if (error) return <p className="p-8 text-red-700">Could not load the API document ({error}).</p>;
  if (!doc) return <p className="p-8 text-slate-500">Loading the API reference…</p>;

  return (
    <div className="mx-auto flex max-w-7xl gap-8 px-6 py-10">
      <nav className="sticky top-6 hidden h-[calc(100vh-3rem)] w-72 shrink-0 overflow-y-auto lg:block" aria-label="Endpoints">
        <input
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder="Filter endpoints"
          className="mb-4 w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
        />
        {[...groups].map(([tag, entries]) => (
          <div key={tag} className="mb-4">
            <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">{tag}</p>
            {entries.map((e) => (
              <a key={slug(e)} href={`#${slug(e)}`} className="flex items-center gap-2 rounded px-1 py-0.5 text-sm hover:bg-slate-200">
                <MethodBadge method={e.method} small />
                <span className="truncate font-mono text-xs">{e.path}</span>
              </a>
            ))}
          </div>
        ))}
      </nav>
      <main className="min-w-0 flex-1">
        <header className="mb-8 border-b border-slate-200 pb-6">
          <h1 className="text-3xl font-bold tracking-tight">{doc.info.title}</h1>
          <p className="mt-1 text-sm text-slate-500">
            Version {doc.info.version} ·{" "}
            <a className="text-indigo-600 underline" href="/v1/openapi.json">
              openapi.json
            </a>
          </p>
          {doc.info.description && <p className="mt-3 max-w-3xl text-slate-700">{doc.info.description}</p>}
        </header>
        {[...groups].map(([tag, entries]) => (
          <section key={tag} className="mb-10">
            <h2 className="mb-4 text-xl font-semibold">{tag}</h2>
            <div className="space-y-4">
              {entries.map((e) => (
                <OperationCard key={slug(e)} entry={e} schemas={doc.components.schemas} />
              ))}
            </div>
          </section>
        ))}
      </main>
    </div>
  );
}

function OperationCard({ entry, schemas }: { entry: Entry; schemas: Record<string, Schema> }) {
  const { method, path, op } = entry;
  const body = op.requestBody?.content["application/json"]?.schema;
  const params = (op.parameters ?? []).filter((p) => p.name && (p.in === "path" || p.in === "query"));
  const statuses = Object.entries(op.responses);
  return (
    <article id={slug(entry)} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <div className="flex flex-wrap items-center gap-3">
        <MethodBadge method={method} />
        <code className="font-mono text-sm font-semibold">{path}</code>
        <ScopeBadge scope={op["x-scope"]} />
        {op["x-idempotent"] && <span className="rounded bg-amber-100 px-2 py-0.5 text-xs text-amber-800">Idempotency-Key</span>}
      </div>
      <p className="mt-2 text-slate-700">{op.summary}</p>
      {params.length > 0 && (
        <div className="mt-4">
          <h4 className="text-sm font-semibold text-slate-600">Parameters</h4>
          <ul className="mt-1 text-sm">
            {params.map((p) => (
              <li key={`${p.in}-${p.name}`}>
                <code className="font-mono">{p.name}</code>{" "}
                <span className="text-slate-500">
                  ({p.in}
                  {p.required ? ", required" : ""})
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {body && (
        <div className="mt-4">
          <h4 className="text-sm font-semibold text-slate-600">Request body</h4>
          <SchemaTable schema={body} schemas={schemas} />
        </div>
      )}
      <div className="mt-4 flex flex-wrap gap-2 text-xs">
        {statuses.map(([status, r]) => (
          <span
            key={status}
            title={(r["x-error-codes"] ?? []).join(", ") || r.description}
            className={`rounded px-2 py-0.5 font-mono ${status.startsWith("2") ? "bg-emerald-100 text-emerald-800" : "bg-slate-100 text-slate-700"}`}
          >
            {status}
            {r["x-error-codes"]?.length ? ` ${r["x-error-codes"].join(" · ")}` : ""}
          </span>
        ))}
      </div>
    </article>
  );
}
