import { randomUUID } from "node:crypto";
import { type ZodType, z } from "zod";

type Json = Record<string, unknown>;
type Mode = "required" | "all";

const FORMATS: Record<string, () => string> = {
  email: () => "someone@example.com",
  uuid: () => randomUUID(),
  "date-time": () => new Date().toISOString(),
  date: () => new Date().toISOString().slice(0, 10),
  uri: () => "https://example.com/hook",
  url: () => "https://example.com/hook",
  ipv4: () => "203.0.113.7",
  ipv6: () => "2001:db8::7",
  cidrv4: () => "203.0.113.0/24",
};

const STRING_GUESSES = ["abc", "a", "test", "alice", "US", "did:antelope:test:alice", "203.0.113.0/24", "12345"];

function sampleString(s: Json): string {
  const format = s.format as string | undefined;
  if (format && FORMATS[format]) return FORMATS[format]();
  const min = (s.minLength as number | undefined) ?? 1;
  const max = (s.maxLength as number | undefined) ?? Math.max(min, 16);
  const fits = (v: string) => v.length >= min && v.length <= max && (!s.pattern || new RegExp(s.pattern as string).test(v));
  const guess = STRING_GUESSES.flatMap((g) => [g, g.padEnd(min, g[0]!)]).find(fits);
  return guess ?? "a".repeat(min);
}

/** A value of the JSON Schema: the smallest plausible one ("required") or one with every property ("all"). */
function sample(s: Json, defs: Record<string, Json>, mode: Mode, depth = 0): unknown {
  if (depth > 8) return undefined;
  if (typeof s.$ref === "string") return sample(defs[s.$ref.split("/").pop()!] ?? {}, defs, mode, depth + 1);
  if ("const" in s) return s.const;
  if ("default" in s && mode === "required") return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const alt = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alt?.length) return sample(alt.find((a) => a.type !== "null") ?? alt[0]!, defs, mode, depth + 1);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((a) => sample(a as Json, defs, mode, depth + 1)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "string":
      return sampleString(s);
    case "integer":
    case "number":
      return Math.max((s.minimum as number | undefined) ?? 1, Math.min(1, (s.maximum as number | undefined) ?? 1));
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const n = (s.minItems as number | undefined) ?? (mode === "all" ? 1 : 0);
      return Array.from({ length: n }, () => sample((s.items ?? {}) as Json, defs, mode, depth + 1));
    }
    default: {
      const props = (s.properties ?? {}) as Record<string, Json>;
      const required = new Set((s.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(props)) {
        if (mode === "all" || required.has(k)) out[k] = sample(v, defs, mode, depth + 1);
      }
      return out;
    }
  }
}

/**
 * Candidate inputs derived from a route's zod schema, the smallest first. Callers keep the first
 * one the schema accepts, so a sample is only used when it would pass validation.
 */
export function sampleCandidates(schema: ZodType): unknown[] {
  const js = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Json;
  const defs = (js.$defs ?? {}) as Record<string, Json>;
  return [sample(js, defs, "required"), sample(js, defs, "all")];
}

/** The first candidate the schema accepts, or undefined. */
export function validSample(schema: ZodType, overrides: unknown[] = []): { value: unknown } | undefined {
  for (const c of [...overrides, ...sampleCandidates(schema)]) {
    if (c !== undefined && schema.safeParse(c).success) return { value: c };
  }
  return undefined;
}

/** Query strings carry strings only; a query sample is kept only when its string form parses. */
export function validQuerySample(schema: ZodType, overrides: Record<string, string>[] = []): Record<string, string> | undefined {
  const asStrings = (v: unknown) =>
    Object.fromEntries(
      Object.entries((v ?? {}) as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, String(x)]),
    );
  for (const c of [...overrides, ...sampleCandidates(schema).map(asStrings)]) {
    if (schema.safeParse(c).success) return c;
  }
  return undefined;
}
