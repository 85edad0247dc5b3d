import { refusedTextAt } from "../../platform/input-text";

/** One person of a list, as parsed from a file, before normalisation. */
export type ParsedEntry = {
  externalId: string;
  schema: "Person";
  name: string;
  aliases: string[];
  /** Low-quality aliases (OFAC's quoted a.k.a. in Remarks): matched only exactly, never fuzzily. */
  weakAliases?: string[];
  /** YYYY, YYYY-MM or YYYY-MM-DD. */
  birthDates: string[];
  /** ISO 3166-1 alpha-2, upper case. */
  countries: string[];
  topics: string[];
  programme: string | null;
};

export type ParsedLabel = { chainAccount: string; labels: string[]; score: number };

export type ListFormat = "ftm" | "ofac" | "labels";

/**
 * A file that cannot be imported. Names the file and the 1-based line, never the line's content
 * (it can hold personal data), so the operator can open the file at that line.
 */
export class ListFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = "ListFormatError";
  }
}

export const DATE_PATTERN = /^\d{4}(-\d{2}(-\d{2})?)?$/;

/**
 * Refuses a line holding text PostgreSQL cannot store (NUL, unpaired UTF-16 surrogates; see
 * platform/input-text.ts) in what it would import: a format error naming the file and line, like
 * any other, never the value, rather than a failed insert.
 */
export function refuseUnstorableText(value: unknown, file: string, line: number): void {
  if (refusedTextAt(value, "line"))
    throw new ListFormatError(file, line, "contains a character that cannot be stored (NUL or an unpaired surrogate)");
}
