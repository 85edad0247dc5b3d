/**
 * Example values for the OpenAPI document, derived from a JSON Schema when a route gives none of
 * its own. Deterministic (the document is compared byte for byte) and plausible rather than
 * random: tests/openapi.test.ts parses every example with the route's zod schema, so a derived
 * example that the schema refuses fails there and gets a hand-written one on the route.
 */

type Json = Record<string, unknown>;

const AT = "2025-03-14T09:26:53.000Z";
const UUID = "0195a7c2-41f6-7a3e-9c1d-5b2e8f4a6d10";
const HEX64 = "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f";
/** A real K1 public key (it parses), so examples that need one validate. */
export const EXAMPLE_PUBLIC_KEY = "PUB_K1_6MRyAjQq8ud7hVNYcfnVPJqcVpscN5So8BhtHuGYqET5BoDq63";
export const EXAMPLE_ACCOUNT_DID = "did:antelope:eos:coralreef124";
export const EXAMPLE_PERSON_DID = `did:web:id.example.com:people:${UUID}`;

/** By property name, for strings without a format or enum that says more. */
const BY_NAME: [RegExp, string][] = [
  [/^accountDid$|^subject$/, EXAMPLE_ACCOUNT_DID],
  [/^personDid$/, EXAMPLE_PERSON_DID],
  [/^@context$/, "https://www.w3.org/ns/did/v1"],
  [/did$|^controller$|^issuer$/i, "did:web:id.example.com"],
  [/publicKey$/i, EXAMPLE_PUBLIC_KEY],
  [/publicKeyMultibase$/, "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"],
  [/^signature$/, "SIG_K1_Jzz5CyQVX9LW6drhFqMD5TXurNJ49JiXpCiGzQySUo2vnjVrpCisHUpuGY1UBiiQWaTGNBeeVEr8KsFBnVTxRUqWBjfWuw"],
  [/^(chainAccount|from|payer\w*)$/, "coralreef124"],
  [/^(treasury|to)$/, "treasury.bi"],
  [/^(amount|quantity|price\w*)$/, "499.0000 EOS"],
  [/^memo$/, "bi-7c2e91"],
  [/^chain$/, "eos"],
  [/countr/i, "GH"],
  [/cidr/i, "203.0.113.0/24"],
  [/ip$/i, "203.0.113.7"],
  [/masked$/i, "o***@acme.example"],
  [/email$/i, "ops@acme.example"],
  [/phone$/i, "+233201234567"],
  [/hash$/i, HEX64],
  [/^(transactionId|txId)$/, HEX64],
  [/(^id|Id)$/, UUID],
  [/^(devCode|code)$/, "428613"],
  [/^nonce$/, "n_5Yt2kQ8vRz"],
  [/^prefix$/, "bi_test_7Hq2"],
  [/^provider$|Provider$/, "sandbox"],
  [/^level$|Level$/, "basic"],
  [/^(organizationName|legalName)$/, "Acme Wallet Ltd"],
  [/^name$|accountName$|preferredName$/, "coralreef124"],
  [/^event$/, "account.created"],
  [/By$/, "api_key:Backend"],
  [/url$/i, "https://hooks.acme.example/bind-identity"],
  [/currency$/i, "USD"],
  [/^warning$/, "Store it now: it is not shown again."],
  [/^reason$|Reason$/, "Reviewed: the list entry has another date of birth."],
  [/message|note|summary|description|notice|answer|question/i, "See the documentation for details."],
  [/token$/i, "tok_3q2-7Jb0sXn1cYkVfWm9Pq"],
  [/secret$/i, "whsec_9sV1nq0Xo2bKp7c4Lm8Rz3"],
  [/^apiKey$/, "bi_test_7Hq2Lw9xN4vB0sKe3YtC6uRz8PmD"],
  [/password$/i, "pw_Ts8v-2Qx9-Lm4k"],
];

function deref(schema: Json, components: Record<string, Json>): Json {
  let s = schema;
  for (let i = 0; typeof s.$ref === "string" && i < 20; i++) s = components[s.$ref.replace("#/components/schemas/", "")] ?? {};
  return s;
}

function stringFor(schema: Json, key: string): string {
  const format = schema.format as string | undefined;
  let value: string | undefined;
  if (format === "date-time") value = AT;
  else if (format === "date") value = AT.slice(0, 10);
  else if (format === "uuid") value = UUID;
  else if (format === "email") value = "ops@acme.example";
  else if (format === "uri" || format === "url") value = "https://acme.example/return";
  else if (format === "ipv4") value = "203.0.113.7";
  value ??= BY_NAME.find(([re]) => re.test(key))?.[1] ?? key.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = schema.maxLength as number | undefined;
  if (value.length < min) value = value.padEnd(min, "x");
  if (max !== undefined && value.length > max) value = value.slice(0, max);
  return value;
}

function numberFor(schema: Json, key: string): number {
  const hint = /Sec$/.test(key)
    ? 900
    : /perMinute$/i.test(key)
      ? 600
      : /Monthly$|perMonth$/i.test(key)
        ? 1000
        : /score$/i.test(key)
          ? 12
          : 3;
  const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined);
  const max = schema.maximum as number | undefined;
  let n = Math.max(min ?? 0, Math.min(hint, max ?? hint));
  if (schema.exclusiveMinimum !== undefined && n <= (schema.exclusiveMinimum as number)) n = (schema.exclusiveMinimum as number) + 1;
  return n;
}

/**
 * An example for `schema`. `withOptional` fills optional properties too (answers show their whole
 * shape); requests show only what is required, which is what a first call sends.
 */
export function exampleFor(schema: Json, components: Record<string, Json>, withOptional: boolean, key = "", depth = 0): unknown {
  const s = deref(schema, components);
  if (depth > 8) return undefined;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ("const" in s) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const union = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (union) {
    const option = union.find((o) => deref(o, components).type !== "null") ?? union[0]!;
    return exampleFor(option, components, withOptional, key, depth + 1);
  }
  if (Array.isArray(s.allOf) && s.allOf.length === 1) return exampleFor(s.allOf[0] as Json, components, withOptional, key, depth + 1);
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== "null") as string | undefined) : (s.type as string | undefined);
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set((s.required as string[] | undefined) ?? []);
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
        if (!required.has(k) && !withOptional) continue;
        const value = exampleFor(v, components, withOptional, k, depth + 1);
        if (value !== undefined) out[k] = value;
      }
      // A schema asking for at least n properties (a patch) gets its first optional ones.
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
        if (Object.keys(out).length >= ((s.minProperties as number | undefined) ?? 0)) break;
        if (!(k in out)) out[k] = exampleFor(v, components, withOptional, k, depth + 1);
      }
      const extra = s.additionalProperties;
      if (!s.properties && extra && typeof extra === "object") {
        out[key === "" ? "key" : "example"] = exampleFor(extra as Json, components, withOptional, "", depth + 1);
      }
      return out;
    }
    case "array": {
      const item = exampleFor((s.items ?? {}) as Json, components, withOptional, key.replace(/s$/, ""), depth + 1);
      const n = Math.max((s.minItems as number | undefined) ?? 1, 1);
      return item === undefined ? [] : Array.from({ length: n }, () => item);
    }
    case "string":
      return stringFor(s, key);
    case "integer":
    case "number":
      return numberFor(s, key);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return undefined;
  }
}
