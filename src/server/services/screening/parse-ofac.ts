import { parse } from "csv-parse/sync";
import { COUNTRY_CODES } from "../../platform/countries";
import { ListFormatError, type ParsedEntry, refuseUnstorableText } from "./list-types";

// OFAC's SDN list in its legacy CSV files: no header rows, "-0-" for an empty field, a lone
// Ctrl-Z (0x1A) as the last line. SDN.CSV has 12 columns, ALT.CSV 5; the files are told apart by
// their column count, so the order on the command line does not matter.
const SDN_COLUMNS = 12; // ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks
const ALT_COLUMNS = 5; // ent_num, alt_num, alt_type, alt_name, alt_remarks

type Row = { line: number; cells: string[] };
export type OfacFile = { name: string; text: string };

const MONTHS: Record<string, string> = {
  jan: "01",
  feb: "02",
  mar: "03",
  apr: "04",
  may: "05",
  jun: "06",
  jul: "07",
  aug: "08",
  sep: "09",
  oct: "10",
  nov: "11",
  dec: "12",
};

const empty = (v: string | undefined) => (v === undefined || v.trim() === "-0-" ? "" : v.trim());

function rows(file: OfacFile): Row[] {
  try {
    const records = parse(file.text, { info: true, relax_column_count: true, skip_empty_lines: true, trim: false }) as unknown as {
      info: { lines: number };
      record: string[];
    }[];
    return (
      records
        // biome-ignore lint/suspicious/noControlCharactersInRegex: OFAC's legacy files end with a DOS end-of-file byte (0x1A)
        .filter((r) => !(r.record.length === 1 && r.record[0]!.trim().replace(/\x1a/g, "") === ""))
        .map((r) => {
          refuseUnstorableText(r.record, file.name, r.info.lines);
          return { line: r.info.lines, cells: r.record };
        })
    );
  } catch (e) {
    if (e instanceof ListFormatError) throw e;
    const line = typeof (e as { lines?: unknown }).lines === "number" ? (e as { lines: number }).lines : 0;
    throw new ListFormatError(file.name, line, "not valid CSV (quotes or delimiters)");
  }
}

/** English country names (and the forms OFAC writes) to alpha-2 codes. */
const COUNTRY_BY_NAME: Map<string, string> = (() => {
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  const map = new Map<string, string>();
  for (const code of COUNTRY_CODES) map.set(names.of(code)!.toLowerCase(), code);
  const extra: Record<string, string> = {
    russia: "RU",
    "korea, north": "KP",
    "korea, south": "KR",
    iran: "IR",
    syria: "SY",
    burma: "MM",
    "united states": "US",
    "united kingdom": "GB",
    "czech republic": "CZ",
    "congo, democratic republic of the": "CD",
  };
  for (const [k, v] of Object.entries(extra)) map.set(k, v);
  return map;
})();

/** "12 Apr 1961" → 1961-04-12, "Apr 1961" → 1961-04, "circa 1961" → 1961, "1960 to 1962" → each year. */
export function ofacDates(value: string): string[] {
  const v = value.replace(/^circa\s+/i, "").trim();
  const range = /^(\d{4})\s+to\s+(\d{4})$/.exec(v);
  if (range) {
    const [a, b] = [Number(range[1]), Number(range[2])];
    return b >= a && b - a <= 10 ? Array.from({ length: b - a + 1 }, (_, i) => String(a + i)) : [];
  }
  const full = /^(\d{1,2})\s+([A-Za-z]{3})[a-z]*\s+(\d{4})/.exec(v);
  if (full && MONTHS[full[2]!.toLowerCase()]) return [`${full[3]}-${MONTHS[full[2]!.toLowerCase()]}-${full[1]!.padStart(2, "0")}`];
  const month = /^([A-Za-z]{3})[a-z]*\s+(\d{4})/.exec(v);
  if (month && MONTHS[month[1]!.toLowerCase()]) return [`${month[2]}-${MONTHS[month[1]!.toLowerCase()]}`];
  const year = /^(\d{4})\b/.exec(v);
  return year ? [year[1]!] : [];
}

/**
 * A weak alias in Remarks: `a.k.a. 'ABU-'UMAR'` (also f.k.a., n.k.a.), the name between the first
 * and the last quote (it may hold quotes itself), `LAST, First` turned round like SDN_Name.
 */
function weakAlias(part: string): string | null {
  const m = /^[afn]\.k\.a\.\s+'(.*?)'?\.?$/i.exec(part);
  const name = m?.[1]?.trim();
  return name ? ofacName(name) : null;
}

/**
 * Birth dates, nationalities and weak aliases written in the Remarks column
 * ("DOB 12 Apr 1961; nationality Ukraine; a.k.a. 'PACHO'.").
 */
export function parseRemarks(remarks: string): { birthDates: string[]; countries: string[]; weakAliases: string[] } {
  const birthDates: string[] = [];
  const countries: string[] = [];
  const weakAliases: string[] = [];
  for (const part of remarks.split(";")) {
    const alias = weakAlias(part.trim());
    if (alias) weakAliases.push(alias);
    const p = part.trim().replace(/^alt\.\s+/i, "");
    const dob = /^DOB\s+(.+)$/i.exec(p);
    if (dob) birthDates.push(...ofacDates(dob[1]!));
    const nat = /^(?:nationality|citizen)\s+(.+?)\.?$/i.exec(p);
    const code = nat && COUNTRY_BY_NAME.get(nat[1]!.trim().toLowerCase());
    if (code) countries.push(code);
  }
  return { birthDates: [...new Set(birthDates)], countries: [...new Set(countries)], weakAliases: [...new Set(weakAliases)] };
}

/** "PETRENKO, Ivan Testovich" → "Ivan Testovich PETRENKO" (SDN names are last name first). */
export const ofacName = (name: string) => {
  const i = name.indexOf(",");
  return i < 0 ? name.trim() : `${name.slice(i + 1).trim()} ${name.slice(0, i).trim()}`.trim();
};

/** SDN.CSV (+ ALT.CSV): individuals only, each with the topic `sanction`; weak aliases from Remarks. */
export function parseOfac(files: OfacFile[]): { entries: ParsedEntry[]; skipped: number } {
  const sdn: { file: OfacFile; rows: Row[] }[] = [];
  const alt: { file: OfacFile; rows: Row[] }[] = [];
  for (const file of files) {
    const r = rows(file);
    const width = r[0]?.cells.length;
    if (width === SDN_COLUMNS) sdn.push({ file, rows: r });
    else if (width === ALT_COLUMNS) alt.push({ file, rows: r });
    else throw new ListFormatError(file.name, r[0]?.line ?? 1, `expected ${SDN_COLUMNS} columns (SDN.CSV) or ${ALT_COLUMNS} (ALT.CSV)`);
  }
  if (sdn.length !== 1) throw new ListFormatError(files[0]?.name ?? "(none)", 1, "exactly one SDN.CSV file is required");
  const byId = new Map<string, ParsedEntry>();
  const known = new Set<string>();
  let skipped = 0;
  for (const { line, cells } of sdn[0]!.rows) {
    const name = sdn[0]!.file.name;
    if (cells.length !== SDN_COLUMNS) throw new ListFormatError(name, line, `expected ${SDN_COLUMNS} columns, found ${cells.length}`);
    const id = empty(cells[0]);
    if (!/^\d+$/.test(id)) throw new ListFormatError(name, line, "ent_num is not a number");
    if (known.has(id)) throw new ListFormatError(name, line, "duplicate ent_num");
    known.add(id);
    if (!empty(cells[1])) throw new ListFormatError(name, line, "SDN_Name is empty");
    if (empty(cells[2]).toLowerCase() !== "individual") {
      skipped++;
      continue;
    }
    const { birthDates, countries, weakAliases } = parseRemarks(empty(cells[11]));
    byId.set(id, {
      externalId: id,
      schema: "Person",
      name: ofacName(empty(cells[1])),
      aliases: [],
      weakAliases,
      birthDates,
      countries,
      topics: ["sanction"],
      programme: empty(cells[3]) || null,
    });
  }
  for (const { file, rows: altRows } of alt) {
    for (const { line, cells } of altRows) {
      if (cells.length !== ALT_COLUMNS)
        throw new ListFormatError(file.name, line, `expected ${ALT_COLUMNS} columns, found ${cells.length}`);
      const id = empty(cells[0]);
      if (!known.has(id)) throw new ListFormatError(file.name, line, "ent_num is not in SDN.CSV");
      const altName = empty(cells[3]);
      if (!altName) throw new ListFormatError(file.name, line, "alt_name is empty");
      const entry = byId.get(id);
      if (entry && !entry.aliases.includes(ofacName(altName))) entry.aliases.push(ofacName(altName));
    }
  }
  return { entries: [...byId.values()], skipped };
}
