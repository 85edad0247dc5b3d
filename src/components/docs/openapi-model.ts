// The parts of our OpenAPI 3.1 document (/v1/openapi.json) the reference renders, and the pure
// helpers it needs: anchors, examples, the curl line and the error codes of an operation.

export type Schema = {
  $ref?: string;
  type?: string | string[];
  title?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  description?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

export type Parameter = {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
};

export type MediaType = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };

export type Response = {
  $ref?: string;
  description?: string;
  content?: Record<string, MediaType>;
  "x-error-codes"?: string[];
};

export type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  "x-scope"?: string;
  "x-idempotent"?: boolean;
  "x-sandbox-only"?: boolean;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, Response>;
};

export type OpenApiDoc = {
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter>; responses?: Record<string, Response> };
};

export type Entry = { method: string; path: string; op: Operation; anchor: string };
export type TagGroup = { name: string; description?: string; anchor: string; entries: Entry[] };

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

/** A stable fragment for an operation: its operationId, else method and path. */
export const operationAnchor = (method: string, path: string, op: Operation) =>
  op.operationId ?? `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "");

export const tagAnchor = (name: string) => `tag-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/** Operations grouped by their first tag, in the order of the document's tag list. */
export function groupByTag(doc: OpenApiDoc): TagGroup[] {
  const groups = new Map<string, TagGroup>();
  for (const t of doc.tags ?? []) groups.set(t.name, { name: t.name, description: t.description, anchor: tagAnchor(t.name), entries: [] });
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!METHODS.has(method)) continue;
      const tag = op.tags?.[0] ?? "Other";
      if (!groups.has(tag)) groups.set(tag, { name: tag, anchor: tagAnchor(tag), entries: [] });
      groups.get(tag)!.entries.push({ method, path, op, anchor: operationAnchor(method, path, op) });
    }
  }
  return [...groups.values()].filter((g) => g.entries.length > 0);
}

/** True when the operation matches every word of the search. */
export function matches(entry: Entry, group: TagGroup, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const hay = [entry.method, entry.path, entry.op.summary, entry.op["x-scope"], entry.op.operationId, group.name]
    .filter(Boolean)
    .join(" ")
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function resolveRef<T>(value: T & { $ref?: string }, components: Record<string, unknown> | undefined): T {
  if (!value.$ref || !components) return value;
  const name = value.$ref.split("/").pop()!;
  return (components[name] as T | undefined) ?? value;
}

export const refName = (s: Schema | undefined) => s?.$ref?.split("/").pop();

/** The media type's example: `example`, else the first of `examples`. */
export function exampleOf(media: MediaType | undefined): { found: boolean; value?: unknown } {
  if (!media) return { found: false };
  if (media.example !== undefined) return { found: true, value: media.example };
  const first = Object.values(media.examples ?? {})[0];
  return first?.value !== undefined ? { found: true, value: first.value } : { found: false };
}

export const jsonMedia = (content: Record<string, MediaType> | undefined) => content?.["application/json"];

/** The operation's responses by status, shared ones (`#/components/responses/…`) resolved. */
export function responsesOf(op: Operation, doc: OpenApiDoc): [string, Response][] {
  return Object.entries(op.responses).map(([status, r]) => [status, resolveRef<Response>(r, doc.components?.responses)]);
}

/** The success response: the first 2xx. */
export function successOf(responses: [string, Response][]): [string, Response] | undefined {
  return responses.find(([status]) => status.startsWith("2"));
}

/** Error responses as rows: status, code and what it means (from the document's description). */
export function errorRows(responses: [string, Response][]): { status: string; code: string; meaning: string }[] {
  const rows: { status: string; code: string; meaning: string }[] = [];
  for (const [status, r] of responses) {
    if (status.startsWith("2")) continue;
    const codes = r["x-error-codes"] ?? [];
    if (!codes.length) {
      rows.push({ status, code: "", meaning: r.description ?? "" });
      continue;
    }
    const text = r.description ?? "";
    for (const [i, code] of codes.entries()) {
      const start = text.indexOf(`${code}: `);
      const next = codes[i + 1] ? text.indexOf(`${codes[i + 1]}: `, start + 1) : -1;
      const meaning = start < 0 ? "" : text.slice(start + code.length + 2, next < 0 ? undefined : next).trim();
      rows.push({ status, code, meaning });
    }
  }
  return rows;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A curl line for the operation against $BI_URL: the bearer key when it needs one, the required
 * query parameters as placeholders, and the request example (or `{}`) as the body.
 */
export function curlLine(entry: Entry, params: Parameter[], requestExample: { found: boolean; value?: unknown } | null): string {
  const query = params
    .filter((p) => p.in === "query" && p.required && p.name)
    .map((p) => `${p.name}=<${p.name}>`)
    .join("&");
  const url = `$BI_URL${entry.path}${query ? `?${query}` : ""}`;
  const lines = [`curl -sS ${entry.method === "get" ? "" : `-X ${entry.method.toUpperCase()} `}"${url}"`];
  if (entry.op["x-scope"] && entry.op["x-scope"] !== "public") lines.push(`-H "Authorization: Bearer $BI_API_KEY"`);
  if (requestExample) {
    lines.push(`-H 'content-type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(requestExample.found ? requestExample.value : {}))}`);
  }
  return lines.join(" \\\n  ");
}
