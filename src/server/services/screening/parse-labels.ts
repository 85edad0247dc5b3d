import { parse } from "csv-parse/sync";
import { ListFormatError, type ParsedLabel, refuseUnstorableText } from "./list-types";

const HEADER = ["chain_account", "labels", "score"];
const ACCOUNT = /^[a-z1-5.]{1,12}$/;

/**
 * Account-labels CSV: a header `chain_account,labels,score`, then one account per line with its
 * labels separated by `;` (e.g. `mixer;scam`) and a risk score 0–100.
 */
export function parseLabels(text: string, file: string): { labels: ParsedLabel[] } {
  let records: { info: { lines: number }; record: string[] }[];
  try {
    records = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as unknown as typeof records;
  } catch (e) {
    const line = typeof (e as { lines?: unknown }).lines === "number" ? (e as { lines: number }).lines : 0;
    throw new ListFormatError(file, line, "not valid CSV (quotes or delimiters)");
  }
  for (const { info, record } of records) refuseUnstorableText(record, file, info.lines);
  const [head, ...body] = records;
  if (!head || head.record.join(",").toLowerCase() !== HEADER.join(","))
    throw new ListFormatError(file, head?.info.lines ?? 1, `the header must be ${HEADER.join(",")}`);
  const seen = new Set<string>();
  const labels = body.map(({ info, record }) => {
    if (record.length !== 3) throw new ListFormatError(file, info.lines, `expected 3 columns, found ${record.length}`);
    const [account, list, scoreText] = record as [string, string, string];
    if (!ACCOUNT.test(account)) throw new ListFormatError(file, info.lines, "chain_account is not an Antelope account name");
    if (seen.has(account)) throw new ListFormatError(file, info.lines, "duplicate chain_account");
    seen.add(account);
    if (!/^\d{1,3}$/.test(scoreText) || Number(scoreText) > 100)
      throw new ListFormatError(file, info.lines, "score is not an integer 0–100");
    const names = list
      .split(";")
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean);
    if (names.length === 0) throw new ListFormatError(file, info.lines, "no labels");
    return { chainAccount: account, labels: [...new Set(names)], score: Number(scoreText) };
  });
  return { labels };
}
