/**
 * Free text in an audit entry's data: the keys personal-text.ts seals when the entry is about a
 * person. A reason code (a lower-case identifier such as `sanctions_flag`) is not free text and
 * stays readable. Pure, so chain.ts (which the offline verifier imports) can use it.
 */
export const FREE_TEXT_KEYS = ["reason", "notes"] as const;
export const isFreeText = (v: unknown): v is string => typeof v === "string" && !/^[a-z][a-z0-9_]*$/.test(v);
export const hasFreeText = (data: Record<string, unknown>) => FREE_TEXT_KEYS.some((k) => isFreeText(data[k]));
