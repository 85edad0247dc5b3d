/**
 * Text PostgreSQL refuses: NUL (U+0000) in any text column, and unpaired UTF-16 surrogates, which
 * jsonb rejects. Both doors refuse such input up front as a 400, so it never reaches a query and
 * turns into a 500.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const refusedString = (s: string) => s.includes("\u0000") || LONE_SURROGATE.test(s);

/**
 * The first place in `value` (strings, array items, object keys and values, at any depth) that
 * holds refused text, as a dotted path from `root`; null when everything is acceptable.
 */
export function refusedTextAt(value: unknown, root: string): string | null {
  if (typeof value === "string") return refusedString(value) ? root : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const at = refusedTextAt(v, `${root}.${i}`);
      if (at) return at;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (refusedString(k)) return `${root}.(key)`;
      const at = refusedTextAt(v, `${root}.${k}`);
      if (at) return at;
    }
  }
  return null;
}

export const REFUSED_TEXT_MESSAGE = "contains a character the service does not accept (NUL or an unpaired surrogate)";

/** Strict UTF-8 decoding: a body that is not UTF-8 is refused rather than silently repaired. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
