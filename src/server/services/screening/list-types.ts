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
