import { refName, resolveRef, type Schema } from "./openapi-model";

type Schemas = Record<string, Schema>;

const MAX_DEPTH = 4;

const resolve = (s: Schema, schemas: Schemas): Schema => resolveRef(s, schemas);

/** Nullable `["string","null"]` and `anyOf [X, {type:"null"}]` show as `X | null`. */
function variantsOf(s: Schema): Schema[] | undefined {
  return s.anyOf ?? s.oneOf;
}

function typeLabel(s: Schema, schemas: Schemas, seen = new Set<string>()): string {
  const name = refName(s);
  if (name && seen.has(name)) return name;
  const r = resolve(s, schemas);
  const next = name ? new Set([...seen, name]) : seen;
  if (r.enum) return r.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (r.const !== undefined) return JSON.stringify(r.const);
  const variants = variantsOf(r);
  if (variants) return variants.map((x) => typeLabel(x, schemas, next)).join(" | ");
  if (r.type === "array" && r.items) return `${typeLabel(r.items, schemas, next)}[]`;
  if (name && (r.type === "object" || r.properties)) return name;
  if ((r.type === "object" || !r.type) && r.additionalProperties && typeof r.additionalProperties === "object") {
    return `map of string → ${typeLabel(r.additionalProperties, schemas, next)}`;
  }
  const t = Array.isArray(r.type) ? r.type.join(" | ") : (r.type ?? "any");
  return r.format ? `${t} (${r.format})` : t;
}

function constraints(s: Schema): string[] {
  const parts: string[] = [];
  if (s.minLength !== undefined && s.maxLength !== undefined) parts.push(`${s.minLength}–${s.maxLength} characters`);
  else if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  else if (s.minLength !== undefined && s.minLength > 0) parts.push(`at least ${s.minLength} characters`);
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`${s.minimum ?? "−∞"} to ${s.maximum ?? "∞"}`);
  if (s.minItems !== undefined && s.minItems > 0) parts.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} items`);
  // Date-time patterns repeat the format and are unreadable; show patterns that say something.
  if (s.pattern && !s.format && s.pattern.length <= 60) parts.push(`pattern ${s.pattern}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts;
}

/** The object whose fields a schema shows: itself, its array items, or the non-null side of a nullable. */
function fieldsHolder(s: Schema, schemas: Schemas): Schema | null {
  const r = resolve(s, schemas);
  if (r.properties) return r;
  if (r.type === "array" && r.items) return fieldsHolder(r.items, schemas);
  const variants = variantsOf(r)?.filter((v) => resolve(v, schemas).type !== "null");
  if (variants?.length === 1) return fieldsHolder(variants[0]!, schemas);
  return null;
}

/** A short label for one variant of a union: its constant fields, e.g. `status = "provisioned"`. */
function variantLabel(v: Schema, schemas: Schemas, i: number): string {
  const r = resolve(v, schemas);
  const consts = Object.entries(r.properties ?? {})
    .map(([k, p]) => [k, resolve(p, schemas)] as const)
    .filter(([, p]) => p.const !== undefined)
    .map(([k, p]) => `${k} = ${JSON.stringify(p.const)}`);
  return consts.length ? consts.join(", ") : (refName(v) ?? `Variant ${i + 1}`);
}

function Fields({ schema, schemas, depth, seen }: { schema: Schema; schemas: Schemas; depth: number; seen: Set<string> }) {
  const props = Object.entries(schema.properties ?? {});
  if (!props.length) return <p className="py-1 text-sm text-slate-500">An empty JSON object.</p>;
  return (
    <ul className={depth > 0 ? "ml-2 border-l border-slate-200 pl-3 sm:ml-3" : ""}>
      {props.map(([name, p]) => {
        const r = resolve(p, schemas);
        const ref = refName(p);
        const holder = depth < MAX_DEPTH && !(ref && seen.has(ref)) ? fieldsHolder(p, schemas) : null;
        const notes = [r.description, ...constraints(r)].filter(Boolean);
        return (
          <li key={name} className="border-t border-slate-100 py-2 first:border-t-0">
            <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
              <code className="break-all font-mono text-sm font-semibold text-slate-900">{name}</code>
              <span className="break-all font-mono text-xs text-slate-600">{typeLabel(p, schemas)}</span>
              {schema.required?.includes(name) ? (
                <span className="text-xs font-medium text-rose-700">required</span>
              ) : (
                <span className="text-xs text-slate-500">optional</span>
              )}
            </div>
            {notes.length > 0 && <p className="mt-0.5 text-sm text-slate-600">{notes.join(" · ")}</p>}
            {holder && (
              <div className="mt-1">
                <Fields schema={holder} schemas={schemas} depth={depth + 1} seen={ref ? new Set([...seen, ref]) : seen} />
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** A body's fields, nested objects indented under their parent; a union shows each of its shapes. */
export function SchemaView({ schema, schemas }: { schema: Schema; schemas: Schemas }) {
  const r = resolve(schema, schemas);
  const name = refName(schema);
  const variants = variantsOf(r)?.filter((v) => resolve(v, schemas).type !== "null");
  if (variants && variants.length > 1) {
    return (
      <div className="space-y-3">
        <p className="text-sm text-slate-600">
          {name ? (
            <>
              <code className="font-mono text-xs">{name}</code>:{" "}
            </>
          ) : null}
          one of {variants.length} shapes.
        </p>
        {variants.map((v, i) => (
          <div key={variantLabel(v, schemas, i)} className="rounded-md border border-slate-200 p-3">
            <p className="mb-1 font-mono text-xs font-semibold text-slate-700">{variantLabel(v, schemas, i)}</p>
            <SchemaView schema={v} schemas={schemas} />
          </div>
        ))}
      </div>
    );
  }
  const holder = fieldsHolder(schema, schemas);
  return (
    <div>
      {(name || r.type === "array") && (
        <p className="mb-1 text-xs text-slate-500">
          Type <code className="font-mono text-slate-700">{typeLabel(schema, schemas)}</code>
          {r.description ? ` · ${r.description}` : ""}
        </p>
      )}
      {holder ? (
        <Fields schema={holder} schemas={schemas} depth={0} seen={new Set(name ? [name] : [])} />
      ) : (
        <p className="text-sm text-slate-600">
          <code className="font-mono text-xs">{typeLabel(schema, schemas)}</code>
          {r.description ? ` · ${r.description}` : ""}
        </p>
      )}
    </div>
  );
}
