import { isCountryCode } from "../countries";
import { DATE_PATTERN, ListFormatError, type ParsedEntry } from "./list-types";

type FtmEntity = { id?: unknown; schema?: unknown; properties?: Record<string, unknown> };

const strings = (v: unknown): string[] | null =>
  v === undefined ? [] : Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null;

/**
 * OpenSanctions FollowTheMoney JSON lines (`entities.ftm.json`): one entity per line. Only
 * `Person` entities are kept (companies, vessels and the relation entities are skipped); a line
 * that is not JSON, or a Person without an id or a name, refuses the whole file.
 */
export function parseFtm(text: string, file: string): { entries: ParsedEntry[]; skipped: number } {
  const entries: ParsedEntry[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, idx) => {
    const lineNo = idx + 1;
    const line = raw.trim();
    if (!line) return;
    let entity: FtmEntity;
    try {
      entity = JSON.parse(line) as FtmEntity;
    } catch {
      throw new ListFormatError(file, lineNo, "not a JSON object");
    }
    if (typeof entity !== "object" || entity === null || Array.isArray(entity)) throw new ListFormatError(file, lineNo, "not a JSON object");
    if (typeof entity.schema !== "string") throw new ListFormatError(file, lineNo, "entity without a schema");
    if (entity.schema !== "Person") {
      skipped++;
      return;
    }
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
    if (birthDates.some((d) => !DATE_PATTERN.test(d))) throw new ListFormatError(file, lineNo, "birthDate is not YYYY, YYYY-MM or YYYY-MM-DD");
    const countries = [...field("country"), ...field("nationality"), ...field("citizenship")]
      .map((c) => c.toUpperCase())
      .filter(isCountryCode);
    const programme = [...field("programId"), ...field("program")][0] ?? null;
    entries.push({
      externalId: entity.id,
      schema: "Person",
      name: names[0]!,
      aliases: [...new Set([...names.slice(1), ...field("alias"), ...field("weakAlias")])],
      birthDates: [...new Set(birthDates)],
      countries: [...new Set(countries)],
      topics: [...new Set(field("topics"))],
      programme,
    });
  });
  return { entries, skipped };
}
