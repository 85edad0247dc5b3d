import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sealWithKey } from "../../crypto/person-box";
import { seal } from "../../crypto/secret-box";
import { entryRow } from "./import";
import type { ParsedEntry } from "./list-types";
import { type ChangedEntry, ChangedEntryIndex } from "./monitoring-changes";
import { type PersonRow, ScoringThreads, scoreAgainstChange } from "./monitoring-scoring";
import { matchChange } from "./monitoring-screen";
import type { SubjectQuery } from "./monitoring-subjects";
import { nameTokens, retrievalKeys, variantTokens } from "./normalize";
import { reachMasks, reachTest } from "./retrieval";
import { birthDateAdjustment, countryAdjustment, MATCH_THRESHOLD, scoreCandidate } from "./score";

// A re-screen's matches among a list change held in memory (matchChange) must be exactly those of
// scoring every changed entry that shares a retrieval key with the person: the birth-year index
// and the reach test only leave out entries that could not reach the threshold.

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(11);
const any = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
// Common given names, so that a key is shared by hundreds of entries as in the monitoring bench.
const GIVEN = [
  "Mohammed",
  "Muhammad",
  "Ivan",
  "Maria",
  "Ahmad",
  "Olga",
  "Ali",
  "Hassan",
  "Jose",
  "Wei",
  "Anna",
  "Sergei",
  "Fatima",
  "Kwame",
];
const PARTS = ["ab", "bel", "kar", "mon", "dra", "vik", "tor", "shan", "ul", "er", "ov", "ez", "ani", "ello", "berg", "ski"];
const surname = () => {
  const w = any(PARTS) + any(PARTS) + (rand() < 0.5 ? any(PARTS) : "");
  return w[0]!.toUpperCase() + w.slice(1);
};
const name = () =>
  [
    any(GIVEN),
    ...(rand() < 0.3 ? [any(GIVEN)] : []),
    ...(rand() < 0.2 ? ["al"] : []),
    surname(),
    ...(rand() < 0.2 ? [surname()] : []),
  ].join(" ");
const year = () => 1940 + Math.floor(rand() * 60);
const date = (y: number) =>
  rand() < 0.5
    ? String(y)
    : `${y}-${String(1 + Math.floor(rand() * 12)).padStart(2, "0")}-${String(1 + Math.floor(rand() * 28)).padStart(2, "0")}`;
const COUNTRIES = ["GB", "RU", "SY", "IR", "ES", "CN", "GH"];

/** A typing error, a dropped word, an initial or another order: the ways a listed name and a customer's differ. */
function vary(n: string): string {
  const words = n.split(" ");
  const r = rand();
  if (r < 0.2) return n;
  if (r < 0.4) {
    const i = Math.floor(rand() * words.length);
    const w = words[i]!;
    const at = 1 + Math.floor(rand() * (w.length - 1));
    words[i] = w.slice(0, at) + any(["a", "e", "o", "k", "s"]) + w.slice(at + 1);
    return words.join(" ");
  }
  if (r < 0.55) return [...words].reverse().join(" ");
  if (r < 0.7) return [`${words[0]![0]}.`, ...words.slice(1)].join(" ");
  if (r < 0.85 && words.length > 2) return words.filter((_, i) => i !== 1).join(" ");
  return `${any(GIVEN)} ${words[words.length - 1]}`;
}

function entries(n: number): ChangedEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const dates = rand() < 0.15 ? [] : rand() < 0.1 ? [date(year()), date(year())] : [date(year())];
    const parsed: ParsedEntry = {
      externalId: `e-${i}`,
      schema: "Person",
      name: name(),
      aliases: rand() < 0.2 ? [vary(name())] : [],
      weakAliases: rand() < 0.05 ? [any(GIVEN)] : [],
      birthDates: rand() < 0.02 ? ["unknown"] : dates,
      countries: rand() < 0.5 ? [any(COUNTRIES)] : [],
      topics: [rand() < 0.8 ? "sanction" : "role.pep"],
      programme: null,
    };
    return { ...entryRow("v", parsed), id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` };
  });
}

/** The re-screen before the birth-year index: every changed entry sharing a key, then the same checks and the score. */
function everyEntrySharingAKey(list: readonly ChangedEntry[], query: SubjectQuery, tokens: string[]) {
  const keys = new Set(retrievalKeys(tokens));
  const reach = reachTest({ tokens, birthDate: query.birthDate, country: query.country, threshold: MATCH_THRESHOLD });
  return list
    .filter((e) => e.nameKeys.some((k) => keys.has(k)))
    .filter(
      (e) => 1 + birthDateAdjustment(query.birthDate, e.birthDates) + countryAdjustment(query.country, e.countries) >= MATCH_THRESHOLD,
    )
    .filter((e) => reach([...new Set(e.normalizedNames.flatMap(variantTokens))], new Set(e.nameKeys)))
    .map((e) => ({ e, breakdown: scoreCandidate({ tokens, birthDate: query.birthDate, country: query.country }, e) }))
    .filter((x) => x.breakdown.total >= MATCH_THRESHOLD)
    .map((x) => ({ entryId: x.e.id, score: x.breakdown.total, breakdown: x.breakdown }))
    .sort((a, b) => b.score - a.score || a.entryId.localeCompare(b.entryId));
}

describe("a re-screen's matches among a list change", () => {
  it("are those of scoring every changed entry sharing a key, for people near, far and without birth dates", () => {
    const change = entries(3_000);
    const index = new ChangedEntryIndex(change);
    const people: SubjectQuery[] = [];
    for (let i = 0; i < 1_000; i++) {
      // Half the people are listed people as a customer's file would hold them, half anyone.
      const listed = rand() < 0.5 ? any(change) : null;
      const listedYear = listed?.birthDates[0] ? Number(listed.birthDates[0].slice(0, 4)) : null;
      const y = listedYear && Number.isInteger(listedYear) && rand() < 0.8 ? listedYear + any([-2, -1, 0, 0, 0, 1, 2]) : year();
      const birthDate =
        rand() < 0.1 ? null : rand() < 0.05 ? "19xx" : rand() < 0.3 && listed?.birthDates[0] ? listed.birthDates[0] : date(y);
      people.push({ name: listed ? vary(listed.name) : name(), birthDate, country: rand() < 0.3 ? any(COUNTRIES) : null });
    }
    const shapes = change.map((e) => ({ words: [...new Set(e.normalizedNames.flatMap(variantTokens))], keys: new Set(e.nameKeys) }));
    let matched = 0;
    let withDate = 0;
    let ruledOut = 0;
    const differing: string[] = [];
    for (const query of people) {
      const tokens = nameTokens(query.name);
      // The index's marks answer as reachTest does, entry by entry, for every entry sharing a key.
      const input = { tokens, birthDate: query.birthDate, country: query.country, threshold: MATCH_THRESHOLD };
      const reach = reachTest(input);
      const masks = reachMasks(input);
      if (masks) index.mark(masks);
      for (const i of index.candidates(retrievalKeys(tokens), undefined, masks ?? undefined)) {
        const expected = reach(shapes[i]!.words, shapes[i]!.keys);
        if ((masks ? index.reaches(masks, i) : true) !== expected) differing.push(`${query.name} against ${change[i]!.name}: ${expected}`);
        if (!expected) ruledOut++;
      }
      const expected = everyEntrySharingAKey(change, query, tokens);
      const actual = matchChange(index, "test-list", query, tokens).map((m) => ({
        entryId: m.entryId,
        score: m.score,
        breakdown: m.breakdown,
      }));
      expect(actual, query.name).toEqual(expected);
      matched += actual.length;
      if (query.birthDate && actual.length > 0) withDate++;
    }
    // Enough matches for the comparison to mean something, people with a birth date among them.
    expect(matched).toBeGreaterThan(200);
    expect(withDate).toBeGreaterThan(100);
    expect(differing).toEqual([]);
    expect(ruledOut).toBeGreaterThan(10_000);
  });

  it("reads only the entries born near the person, or of no known birth date, under a common name's keys", () => {
    const change = entries(3_000);
    const index = new ChangedEntryIndex(change);
    const tokens = nameTokens("Mohammed Karabel");
    const keys = retrievalKeys(tokens);
    const all = index.candidates(keys);
    const near = index.candidates(keys, [1969, 1970, 1971]);
    expect(all.length).toBeGreaterThan(300);
    expect(near.length).toBeLessThan(all.length / 4);
    for (const i of all) {
      const e = change[i]!;
      const years = e.birthDates.map((d) => Number(d.slice(0, 4)));
      expect(near.includes(i), e.birthDates.join(",")).toBe(e.birthDates.length === 0 || years.some((y) => y >= 1969 && y <= 1971));
    }
  });
});

describe("a re-screen's pages scored in parts on threads", () => {
  it("find what this thread finds, in page order, also sent ahead, and this thread scores a part a thread that stopped leaves", async () => {
    const change = entries(2_000);
    const index = new ChangedEntryIndex(change);
    // People as KYC approval keeps them: the identity sealed under a data key of their own; some
    // named as listed (matches), one whose key is gone (skipped), the rest ordinary.
    const rows: PersonRow[] = Array.from({ length: 600 }, (_, i) => {
      const personId = `10000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      const key = randomBytes(32);
      const listed = i % 7 === 0 ? change[i % change.length]! : null;
      const query: SubjectQuery = {
        name: listed ? listed.name : name(),
        birthDate: listed ? (listed.birthDates[0] ?? null) : date(year()),
        country: listed ? (listed.countries[0] ?? null) : any(COUNTRIES),
      };
      return {
        personId,
        querySealed: sealWithKey(key, personId, JSON.stringify(query)),
        keySealed: i === 5 ? null : seal(key.toString("base64")),
      };
    });
    const here = scoreAgainstChange(index, "monitoring-test", rows);
    expect(here.length).toBeGreaterThan(80);
    expect(here.map((f) => f.personId)).toEqual([...here.map((f) => f.personId)].sort());

    const threads = ScoringThreads.start(index, "monitoring-test", 2);
    try {
      expect(await threads.score(rows)).toEqual(here);
      expect(await threads.score(rows.slice(100, 400))).toEqual(
        here.filter((f) => rows.slice(100, 400).some((r) => r.personId === f.personId)),
      );
      expect(threads.answeredByThreads).toBe(4);
      // Sent ahead, as the run does when the page it reads ahead arrives: the same answer.
      threads.ahead(rows);
      expect(await threads.score(rows)).toEqual(here);
      expect(threads.answeredByThreads).toBe(6);
      // A thread gone: its parts are scored here, with the same answer.
      await threads.stopOne();
      expect(await threads.score(rows)).toEqual(here);
      expect(threads.answeredByThreads).toBe(7);
    } finally {
      await threads.close();
    }
  }, 60_000);
});
