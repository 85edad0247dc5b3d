"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import { MethodBadge, ScopeBadge } from "./badges";
import { CodeBlock } from "./code-block";
import {
  curlLine,
  type Entry,
  errorRows,
  exampleOf,
  groupByTag,
  jsonMedia,
  matches,
  type OpenApiDoc,
  type Parameter,
  resolveRef,
  responsesOf,
  type Schema,
  successOf,
  type TagGroup,
} from "./openapi-model";
import { SchemaView } from "./schema-table";

type LoadState = { doc: OpenApiDoc } | { error: string } | null;

/** The fragment of the address bar, kept in step with navigation inside the page. */
function useHash(): string {
  const [hash, setHash] = useState("");
  useEffect(() => {
    const read = () => setHash(decodeURIComponent(window.location.hash.slice(1)));
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);
  return hash;
}

/**
 * The API reference, rendered in the browser from the served /v1/openapi.json (the document the
 * server generates from its route table and zod schemas), so it cannot drift from the API.
 */
export function ApiReference({ intro }: { intro?: React.ReactNode }) {
  const [state, setState] = useState<LoadState>(null);
  const [query, setQuery] = useState("");
  const hash = useHash();

  const load = useCallback(() => {
    setState(null);
    fetch("/v1/openapi.json")
      .then(async (r) => {
        if (r.ok) return (await r.json()) as OpenApiDoc;
        const body = await r.json().catch(() => null);
        throw new Error(body?.error?.message ?? `The server answered ${r.status}.`);
      })
      .then((doc) => setState({ doc }))
      .catch((e: Error) => setState({ error: e.message }));
  }, []);
  useEffect(load, [load]);

  const doc = state && "doc" in state ? state.doc : null;
  const groups = useMemo(() => (doc ? groupByTag(doc) : []), [doc]);
  const visible = useMemo(
    () => groups.map((g) => ({ ...g, entries: g.entries.filter((e) => matches(e, g, query)) })).filter((g) => g.entries.length > 0),
    [groups, query],
  );
  const total = groups.reduce((n, g) => n + g.entries.length, 0);
  const shown = visible.reduce((n, g) => n + g.entries.length, 0);

  const search = (id: string) => (
    <div>
      <label htmlFor={id} className="sr-only">
        Search operations
      </label>
      <input
        id={id}
        type="search"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        placeholder="Search operations, paths, scopes"
        className="field"
        autoComplete="off"
      />
      {query && (
        <p className="mt-1 text-xs text-slate-500" aria-live="polite">
          {shown} of {total} operations match
        </p>
      )}
    </div>
  );

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:flex lg:gap-10">
      <aside className="hidden w-72 shrink-0 lg:block">
        <div className="sticky top-20 max-h-[calc(100vh-6rem)] overflow-y-auto pr-2 pb-8">
          {search("search-side")}
          <TagNav groups={visible} className="mt-5" />
        </div>
      </aside>
      <main id="main" className="min-w-0 flex-1">
        {intro}
        <section aria-labelledby="reference-title" className="mt-10">
          <div className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-200 pb-4">
            <div>
              <h2 id="reference-title" className="text-2xl font-semibold tracking-tight">
                API reference
              </h2>
              <p className="mt-1 text-sm text-slate-600">
                {doc ? (
                  <>
                    {doc.info.title} {doc.info.version} · {total} operations ·{" "}
                  </>
                ) : null}
                <a className="font-medium text-indigo-700 underline underline-offset-2" href="/v1/openapi.json">
                  openapi.json
                </a>
              </p>
            </div>
          </div>
          {doc?.info.description && <p className="mt-4 max-w-3xl text-slate-700">{doc.info.description}</p>}
          <div className="mt-5 space-y-3 lg:hidden">
            {search("search-top")}
            <details className="rounded-lg border border-slate-200 bg-white">
              <summary className="cursor-pointer px-4 py-2.5 text-sm font-medium text-slate-700">Browse by topic</summary>
              <TagNav groups={visible} className="border-t border-slate-100 px-4 py-3" compact />
            </details>
          </div>

          {state === null && (
            <p role="status" className="mt-8 text-slate-500">
              Loading the API document…
            </p>
          )}
          {state && "error" in state && (
            <div role="alert" className="mt-8 rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-800">
              <p className="font-medium">The API document could not be loaded.</p>
              <p className="mt-1">{state.error}</p>
              <button type="button" className="btn-secondary mt-3" onClick={load}>
                Try again
              </button>
            </div>
          )}
          {doc && visible.length === 0 && (
            <p className="mt-8 rounded-md border border-slate-200 bg-white p-6 text-center text-sm text-slate-600">
              No operation matches “{query}”.
            </p>
          )}
          {doc &&
            visible.map((g) => (
              <section key={g.name} id={g.anchor} aria-labelledby={`${g.anchor}-title`} className="mt-10 scroll-mt-20">
                <h3 id={`${g.anchor}-title`} className="text-xl font-semibold tracking-tight">
                  {g.name}
                </h3>
                {g.description && <p className="mt-1 max-w-3xl text-slate-600">{g.description}</p>}
                <div className="mt-4 space-y-3">
                  {g.entries.map((e) => (
                    <OperationCard key={e.anchor} entry={e} doc={doc} targeted={hash === e.anchor} />
                  ))}
                </div>
              </section>
            ))}
        </section>
      </main>
    </div>
  );
}

function TagNav({ groups, className = "", compact }: { groups: TagGroup[]; className?: string; compact?: boolean }) {
  return (
    <nav aria-label="Operations by topic" className={className}>
      <ul className={compact ? "grid grid-cols-2 gap-x-4 gap-y-1" : "space-y-4"}>
        {groups.map((g) => (
          <li key={g.name}>
            <a
              href={`#${g.anchor}`}
              className="flex items-baseline justify-between gap-2 text-sm font-semibold text-slate-800 hover:text-indigo-700"
            >
              <span>{g.name}</span>
              <span className="text-xs font-normal text-slate-500">{g.entries.length}</span>
            </a>
            {!compact && (
              <ul className="mt-1 space-y-0.5">
                {g.entries.map((e) => (
                  <li key={e.anchor}>
                    <a
                      href={`#${e.anchor}`}
                      className="flex items-center gap-2 rounded px-1 py-0.5 hover:bg-slate-200/60"
                      title={e.op.summary}
                    >
                      <MethodBadge method={e.method} small />
                      <span className="truncate font-mono text-xs text-slate-700">{e.path}</span>
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Heading({ children }: { children: React.ReactNode }) {
  return <h4 className="mb-1.5 text-xs font-semibold uppercase tracking-wide text-slate-500">{children}</h4>;
}

function Example({ label, media }: { label: string; media: ReturnType<typeof exampleOf> }) {
  return (
    <div>
      <Heading>{label}</Heading>
      {media.found ? (
        <CodeBlock code={JSON.stringify(media.value, null, 2)} caption="application/json" />
      ) : (
        <p className="rounded-md border border-dashed border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-500">
          No example in the API document for this body.
        </p>
      )}
    </div>
  );
}

function ParameterList({ params, doc }: { params: Parameter[]; doc: OpenApiDoc }) {
  return (
    <ul className="divide-y divide-slate-100">
      {params.map((p) => {
        const schema = p.schema ? resolveRef<Schema>(p.schema, doc.components?.schemas) : undefined;
        const type = schema?.enum ? schema.enum.map((v) => JSON.stringify(v)).join(" | ") : [schema?.type].flat().join(" | ");
        return (
          <li key={`${p.in}-${p.name}`} className="py-2">
            <div className="flex flex-wrap items-baseline gap-x-2">
              <code className="break-all font-mono text-sm font-semibold">{p.name}</code>
              <span className="font-mono text-xs text-slate-600">{type}</span>
              <span className="text-xs text-slate-500">in {p.in}</span>
              {p.required ? (
                <span className="text-xs font-medium text-rose-700">required</span>
              ) : (
                <span className="text-xs text-slate-500">optional</span>
              )}
            </div>
            {(p.description ?? schema?.description) && (
              <p className="mt-0.5 text-sm text-slate-600">{p.description ?? schema?.description}</p>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function OperationCard({ entry, doc, targeted }: { entry: Entry; doc: OpenApiDoc; targeted: boolean }) {
  const [open, setOpen] = useState(targeted);
  useEffect(() => {
    if (!targeted) return;
    setOpen(true);
    // The page is drawn after the document loads, so the browser could not scroll to the fragment itself.
    requestAnimationFrame(() => document.getElementById(entry.anchor)?.scrollIntoView());
  }, [targeted, entry.anchor]);
  const { method, path, op } = entry;
  return (
    <article
      id={entry.anchor}
      data-path={path}
      data-method={method}
      aria-label={`${method.toUpperCase()} ${path}`}
      className="scroll-mt-20"
    >
      <details
        open={open}
        onToggle={(e) => setOpen(e.currentTarget.open)}
        className="group rounded-lg border border-slate-200 bg-white shadow-sm open:ring-1 open:ring-indigo-100"
      >
        <summary className="flex cursor-pointer list-none flex-col gap-1 px-4 py-3 sm:px-5 [&::-webkit-details-marker]:hidden">
          <span className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
            <MethodBadge method={method} />
            <code className="min-w-0 break-all font-mono text-sm font-semibold text-slate-900">{path}</code>
            <ScopeBadge scope={op["x-scope"] ?? "public"} />
            {op["x-idempotent"] && (
              <span className="rounded bg-amber-50 px-2 py-0.5 text-xs text-amber-800 ring-1 ring-amber-200">Idempotency-Key</span>
            )}
            {op["x-sandbox-only"] && <span className="rounded bg-slate-100 px-2 py-0.5 text-xs text-slate-700">sandbox only</span>}
            <span aria-hidden="true" className="ml-auto text-slate-400 transition-transform group-open:rotate-90">
              ›
            </span>
          </span>
          {op.summary && <span className="text-sm text-slate-600">{op.summary}</span>}
        </summary>
        {open && <OperationBody entry={entry} doc={doc} />}
      </details>
    </article>
  );
}

function OperationBody({ entry, doc }: { entry: Entry; doc: OpenApiDoc }) {
  const { op } = entry;
  const schemas = doc.components?.schemas ?? {};
  const params = (op.parameters ?? [])
    .map((p) => resolveRef<Parameter>(p, doc.components?.parameters as Record<string, unknown> | undefined))
    .filter((p) => p.name && (p.in === "path" || p.in === "query"));
  const headerParams = (op.parameters ?? [])
    .map((p) => resolveRef<Parameter>(p, doc.components?.parameters as Record<string, unknown> | undefined))
    .filter((p) => p.in === "header" && p.name);
  const requestMedia = jsonMedia(op.requestBody?.content);
  const responses = responsesOf(op, doc);
  const success = successOf(responses);
  const successMedia = success ? jsonMedia(success[1].content) : undefined;
  const successOther = success && !successMedia ? Object.keys(success[1].content ?? {})[0] : undefined;
  const requestExample = requestMedia ? exampleOf(requestMedia) : null;
  const errors = errorRows(responses);
  return (
    <div className="border-t border-slate-100 px-4 pt-4 pb-5 sm:px-5">
      <div className="flex flex-wrap items-center gap-3 text-xs text-slate-500">
        <a href={`#${entry.anchor}`} className="font-mono text-indigo-700 underline underline-offset-2">
          #{entry.anchor}
        </a>
        {op["x-scope"] && op["x-scope"] !== "public" ? (
          <span>
            Needs an API key with the <code className="font-mono text-slate-700">{op["x-scope"]}</code> scope.
          </span>
        ) : (
          <span>Public: no API key.</span>
        )}
      </div>
      <div className="mt-4 grid min-w-0 gap-6 xl:grid-cols-2">
        <div className="min-w-0 space-y-5">
          {params.length > 0 && (
            <div>
              <Heading>Parameters</Heading>
              <ParameterList params={params} doc={doc} />
            </div>
          )}
          {requestMedia?.schema && (
            <div>
              <Heading>Request body{op.requestBody?.required ? "" : " (optional)"}</Heading>
              <SchemaView schema={requestMedia.schema} schemas={schemas} />
            </div>
          )}
          {success && (
            <div>
              <Heading>Response {success[0]}</Heading>
              {successMedia?.schema ? (
                <SchemaView schema={successMedia.schema} schemas={schemas} />
              ) : (
                <p className="text-sm text-slate-600">{successOther ? `A ${successOther} body.` : "No body."}</p>
              )}
            </div>
          )}
          {errors.length > 0 && (
            <div>
              <Heading>Errors</Heading>
              <div className="overflow-x-auto">
                <table className="w-full text-left text-sm">
                  <thead className="text-xs text-slate-500">
                    <tr>
                      <th className="py-1 pr-3 font-medium">Status</th>
                      <th className="py-1 pr-3 font-medium">Code</th>
                      <th className="py-1 font-medium">Meaning</th>
                    </tr>
                  </thead>
                  <tbody>
                    {errors.map((r) => (
                      <tr key={`${r.status}-${r.code}`} className="border-t border-slate-100 align-top">
                        <td className="py-1 pr-3 font-mono text-xs">{r.status}</td>
                        <td className="whitespace-nowrap py-1 pr-3 font-mono text-xs">{r.code}</td>
                        <td className="py-1 text-slate-600">{r.meaning}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p className="mt-1 text-xs text-slate-500">
                Every error answer is an ErrorEnvelope: {"{ error: { code, message, details?, correlationId } }"}.
              </p>
            </div>
          )}
          {headerParams.length > 0 && (
            <p className="text-xs text-slate-500">Request headers: {headerParams.map((p) => p.name).join(", ")}.</p>
          )}
        </div>
        <div className="min-w-0 space-y-5">
          <div>
            <Heading>Try it with curl</Heading>
            <CodeBlock code={curlLine(entry, params, requestExample)} caption="shell" />
          </div>
          {requestMedia && <Example label="Request example" media={requestExample!} />}
          {successMedia && <Example label={`Response example (${success![0]})`} media={exampleOf(successMedia)} />}
        </div>
      </div>
    </div>
  );
}
