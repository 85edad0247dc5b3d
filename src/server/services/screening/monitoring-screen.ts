import type { ChangedEntryIndex } from "./monitoring-changes";
import type { SubjectQuery } from "./monitoring-subjects";
import { retrievalKeys } from "./normalize";
import { reachMasks } from "./retrieval";
import {
  birthDateAdjustment,
  countryAdjustment,
  MATCH_THRESHOLD,
  maxAdjustment,
  nearBirthYears,
  scoreCandidate,
  TokenComparer,
} from "./score";
import type { ScreenMatch } from "./screen";

/**
 * A person's matches among a list change's entries (the change held in memory), best first: the
 * entries sharing a retrieval key with the name (docs/screening.md § Retrieval) that score at or
 * above the threshold. `tokens` are nameTokens of the query's name.
 *
 * Entries are ruled out before scoring only where they cannot reach the threshold, so the answer
 * is that of scoring every entry sharing a key: born two years or more apart (read from the
 * index's birth years, then checked on the entry's dates and countries), or not covering enough
 * of the person's words (reachTest's bound, retrieval.ts, answered by the index from the change's
 * words that cover each of the person's: ChangedEntryIndex.mark). The person's word comparisons are
 * shared by their candidates (TokenComparer). None of this changes a score.
 */
export function matchChange(index: ChangedEntryIndex, list: string, query: SubjectQuery, tokens: string[]): ScreenMatch[] {
  const keys = retrievalKeys(tokens);
  if (keys.length === 0) return [];
  // A name scores at most 1: an entry born years apart (nearBirthYears) loses more than the
  // country can add back, so only the entries born near the person, or of no known date, are read.
  const near = nearBirthYears(query.birthDate);
  const years = near && 1 + near.apart + maxAdjustment({ country: query.country }) < MATCH_THRESHOLD ? near.years : undefined;
  const reach = reachMasks({ tokens, birthDate: query.birthDate, country: query.country, threshold: MATCH_THRESHOLD });
  const candidates = index.candidates(keys, years, reach ?? undefined);
  if (candidates.length === 0) return [];
  if (reach) index.mark(reach);
  const comparer = new TokenComparer(tokens);
  const q = { tokens, birthDate: query.birthDate, country: query.country };
  const matches: ScreenMatch[] = [];
  for (const i of candidates) {
    if (reach && !index.reaches(reach, i)) continue;
    const e = index.entries[i]!;
    // Birth date and country alone can rule an entry out: the same adjustments scoreCandidate
    // adds, without its name comparison.
    if (1 + birthDateAdjustment(query.birthDate, e.birthDates) + countryAdjustment(query.country, e.countries) < MATCH_THRESHOLD) continue;
    const breakdown = scoreCandidate(q, e, comparer);
    if (breakdown.total < MATCH_THRESHOLD) continue;
    matches.push({
      entryId: e.id,
      listVersionId: e.listVersionId,
      list,
      externalId: e.externalId,
      name: e.name,
      topics: e.topics,
      programme: e.programme,
      score: breakdown.total,
      breakdown,
    });
  }
  return matches.sort((a, b) => b.score - a.score || a.entryId.localeCompare(b.entryId));
}
