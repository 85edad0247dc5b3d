import canonicalize from "canonicalize";

/** RFC 8785 JSON Canonicalization Scheme: the one serialisation we hash and sign. */
export function jcs(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error("value cannot be canonicalised");
  return out;
}
