export type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  description?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

const resolve = (s: Schema, schemas: Record<string, Schema>): Schema => (s.$ref ? (schemas[s.$ref.split("/").pop()!] ?? s) : s);

function typeLabel(s: Schema, schemas: Record<string, Schema>): string {
  const r = resolve(s, schemas);
  if (r.enum) return r.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (r.const !== undefined) return JSON.stringify(r.const);
  if (r.anyOf || r.oneOf) return (r.anyOf ?? r.oneOf)!.map((x) => typeLabel(x, schemas)).join(" | ");
  if (r.type === "array" && r.items) return `${typeLabel(r.items, schemas)}[]`;
  const t = Array.isArray(r.type) ? r.type.join(" | ") : (r.type ?? "object");
  return r.format ? `${t} (${r.format})` : t;
}

function constraints(s: Schema): string {
  const parts: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`${s.minLength ?? 0}–${s.maxLength ?? "∞"} chars`);
  if (s.pattern) parts.push(`pattern ${s.pattern}`);
  return parts.join(", ");
}

/** A request body's fields: name, type, whether required, and the limits the server enforces. */
export function SchemaTable({ schema, schemas }: { schema: Schema; schemas: Record<string, Schema> }) {
  const s = resolve(schema, schemas);
  const props = Object.entries(s.properties ?? {});
  if (!props.length) return <p className="mt-1 text-sm text-slate-500">Empty JSON object.</p>;
  return (
    <table className="mt-1 w-full text-left text-sm">
      <thead className="text-xs text-slate-500">
        <tr>
          <th className="py-1 pr-4 font-medium">Field</th>
          <th className="py-1 pr-4 font-medium">Type</th>
          <th className="py-1 font-medium">Notes</th>
        </tr>
      </thead>
      <tbody>
        {props.map(([name, p]) => (
          <tr key={name} className="border-t border-slate-100 align-top">
            <td className="py-1 pr-4 font-mono">
              {name}
              {s.required?.includes(name) && <span className="ml-1 text-rose-600">*</span>}
            </td>
            <td className="py-1 pr-4 font-mono text-xs text-slate-700">{typeLabel(p, schemas)}</td>
            <td className="py-1 text-xs text-slate-500">
              {[resolve(p, schemas).description, constraints(resolve(p, schemas))].filter(Boolean).join(" · ")}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
