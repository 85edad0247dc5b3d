import { isCountryCode } from "../../platform/countries";
import { DATE_PATTERN, ListFormatError, type ParsedEntry, refuseUnstorableText } from "./list-types";

type FtmEntity = { id?: unknown; schema?: unknown; properties?: Record<string, unknown> };

const strings = (v: unknown): string[] | null =>
  v === undefined ? [] : Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null;

/**
 * One line of OpenSanctions FollowTheMoney JSON lines (`entities.ftm.json`). Returns the Person,
 * "skip" for another schema (companies, vessels, relation entities), null for a blank line; a
 * line that is not JSON, or a Person without an id or a name, throws naming the line. `seen`
 * carries the ids of earlier lines, so a duplicate is refused too.
 */
export function parseFtmLine(raw: string, lineNo: number, file: string, seen: Set<string>): ParsedEntry | "skip" | null {
  const line = raw.trim();
  if (!line) return null;
  // A raw NUL is not JSON either; say what is wrong with the line rather than "not a JSON object".
  refuseUnstorableText(line, file, lineNo);
  let entity: FtmEntity;
  try {
    entity = JSON.parse(line) as FtmEntity;
  } catch {
    throw new ListFormatError(file, lineNo, "not a JSON object");
  }
  if (typeof entity !== "object" || entity === null || Array.isArray(entity)) throw new ListFormatError(file, lineNo, "not a JSON object");
  if (typeof entity.schema !== "string") throw new ListFormatError(file, lineNo, "entity without a schema");
  if (entity.schema !== "Person") return "skip";
  if (typeof entity.id !== "string" || !entity.id) throw new ListFormatError(file, lineNo, "Person without an id");
  if (seen.has(entity.id)) throw new ListFormatError(file, lineNo, "duplicate entity id");
  seen.add(entity.id);
  const p = entity.properties;
  if (typeof p !== "object" || p === null) throw new ListFormatError(file, lineNo, "Person without properties");
  const field = (name: string) => {
    const v = strings(p[name]);
    if (v === null) throw new ListFormatError(file, lineNo, `properties.${name} is not an array of strings`);
    return v.map((s) => s.trim()).filter(Boolean);
  };
  const names = field("name");
  if (names.length === 0) throw new ListFormatError(file, lineNo, "Person without a name");
  const birthDates = field("birthDate");
  if (birthDates.some((d) => !DATE_PATTERN.test(d)))
    throw new ListFormatError(file, lineNo, "birthDate is not YYYY, YYYY-MM or YYYY-MM-DD");
  const countries = [...field("country"), ...field("nationality"), ...field("citizenship")]
    .map((c) => c.toUpperCase())
    .filter(isCountryCode);
  const entry: ParsedEntry = {
    externalId: entity.id,
    schema: "Person",
    name: names[0]!,
    aliases: [...new Set([...names.slice(1), ...field("alias"), ...field("weakAlias")])],
    birthDates: [...new Set(birthDates)],
    countries: [...new Set(countries)],
    topics: [...new Set(field("topics"))],
    programme: [...field("programId"), ...field("program")][0] ?? null,
  };
  // JSON escapes (\u0000, half a surrogate pair) decode to text PostgreSQL cannot store.
  refuseUnstorableText(entry, file, lineNo);
  return entry;
}

/** A whole FtM file held in memory (tests, small lists); large files stream through import-ftm.ts. */
export function parseFtm(text: string, file: string): { entries: ParsedEntry[]; skipped: number } {
  const entries: ParsedEntry[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  text.split(/\r?\n/).forEach((raw, idx) => {
    const e = parseFtmLine(raw, idx + 1, file, seen);
    if (e === "skip") skipped++;
    else if (e) entries.push(e);
  });
  return { entries, skipped };
}
