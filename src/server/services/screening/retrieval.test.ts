import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameMaker, rng } from "../../../../bench/lib/names";
import { getDb } from "../../db/client";
import { loadOfacSample, OFAC_SAMPLE_FILES, readStoredPairs } from "../../testing/ofac-quality";
import { plansOf } from "../../testing/query-plan";
import { testListName } from "../../testing/screening-lists";
import { entryRow, importList } from "./import";
import { importListFiles } from "./import-files";
import { createKeyIndexSql, keyIndexName } from "./key-index";
import { consonantShape, isVowelless, nameTokens, oneEditApart, retrievalKeys, skeleton, variantTokens } from "./normalize";
import { type CandidateRow, deletionsOf, everySharingAKey, reachTest, retrieveCandidates, sameShapeAs, shapeOf } from "./retrieval";
import { MATCH_THRESHOLD, scoreCandidate } from "./score";

// Retrieval reads the entries that could reach the threshold, rarest keys first; its answer must
// be that of scoring every entry sharing a key with the query (docs/screening.md § Retrieval).

type Query = { name: string; birthDate?: string | null; country?: string | null };

const matched = (q: Query, rows: CandidateRow[]) => {
  const tokens = nameTokens(q.name);
  return rows
    .filter((r) => scoreCandidate({ tokens, birthDate: q.birthDate, country: q.country }, r).total >= MATCH_THRESHOLD)
    .map((r) => r.id)
    .sort();
};

/**
 * Both retrievals of one query: every entry sharing a key (`all`), and retrieveCandidates with
 * readAllUpTo 0 (`read`, the narrow reading on every query, however few entries share its keys).
 * `reaching`: the entries of `all` that reachTest lets through, which `read` must be exactly.
 */
async function compare(versionIds: string[], q: Query) {
  const db = await getDb();
  const tokens = nameTokens(q.name);
  const all = await everySharingAKey(db, versionIds, retrievalKeys(tokens));
  const read = await retrieveCandidates(db, {
    versionIds,
    tokens,
    birthDate: q.birthDate,
    country: q.country,
    threshold: MATCH_THRESHOLD,
    readAllUpTo: 0,
  });
  return { all, read, reaching: await reachingIds(all, q), allMatches: matched(q, all), readMatches: matched(q, read) };
}

/** The ids of the entries of `all` that reachTest lets through for the query, sorted. */
async function reachingIds(all: CandidateRow[], q: Query) {
  const db = await getDb();
  const tokens = nameTokens(q.name);
  const keysOf = new Map(
    (await db.screeningEntry.findMany({ where: { id: { in: all.map((r) => r.id) } }, select: { id: true, nameKeys: true } })).map((e) => [
      e.id,
      new Set(e.nameKeys),
    ]),
  );
  const reach = reachTest({ tokens, birthDate: q.birthDate, country: q.country, threshold: MATCH_THRESHOLD });
  return all
    .filter((r) => reach([...new Set(r.normalizedNames.flatMap(variantTokens))], keysOf.get(r.id)!))
    .map((r) => r.id)
    .sort();
}

/** Every word one letter changed, added, dropped or two neighbours swapped away from `t` (letters and digits). */
function oneEditAway(t: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= t.length; i++) {
    for (const c of "abcdefghijklmnopqrstuvwxyz0123456789") {
      out.add(t.slice(0, i) + c + t.slice(i));
      if (i < t.length) out.add(t.slice(0, i) + c + t.slice(i + 1));
    }
    if (i === t.length) break;
    out.add(t.slice(0, i) + t.slice(i + 1));
    if (i + 1 < t.length) out.add(t.slice(0, i) + t[i + 1] + t[i] + t.slice(i + 2));
  }
  out.delete(t);
  return out;
}

/** A list of people sharing a few common first names, with rare surnames, initials and typos around. */
function commonFirstNames(): string {
  const first = ["Mohammed", "Ivan", "Maria", "Ahmad", "Olga"];
  const syllables = ["kar", "bel", "tos", "vin", "dra", "mul", "pe", "zor", "ni", "qua", "lof", "sem"];
  const lines: string[] = [];
  let n = 0;
  for (const f of first)
    for (const a of syllables)
      for (const b of syllables)
        for (const c of ["ev", "ani", "oz", "ski"]) {
          const surname = `${a}${b}${c}`;
          const name = n % 97 === 0 ? `${f[0]}. ${surname}` : `${f} ${surname}`;
          lines.push(
            JSON.stringify({
              id: `p-${n++}`,
              schema: "Person",
              properties: { name: [name], birthDate: ["1970-03-04"], topics: ["sanction"] },
            }),
          );
        }
  return lines.join("\n");
}

describe("symmetric deletion", () => {
  it("files every word one typing error away (score.ts's rule) under a form of the word's own, on OFAC's words", () => {
    const words = [...new Set(loadOfacSample().flatMap((e) => [e.name, ...e.aliases].flatMap(nameTokens)))].filter((w) => w.length >= 3);
    let pairs = 0;
    let twoApart = 0;
    // Every 30th word of the sample: tens of thousands of one-edit pairs.
    for (const w of words.filter((_, i) => i % 30 === 0)) {
      const forms = new Set(deletionsOf(w));
      for (const v of oneEditAway(w)) {
        if (Math.min(v.length, w.length) < 3 || Math.max(v.length, w.length) < 4) continue;
        expect(oneEditApart(v, w), `${w} / ${v}`).toBe(true);
        expect(
          deletionsOf(v).some((d) => forms.has(d)),
          `${w} / ${v}`,
        ).toBe(true);
        pairs++;
      }
      // Forms in common without a typing error between (a letter dropped at the start, one added at the end): retrieval checks the words it finds.
      if (w.length >= 4) twoApart += deletionsOf(`${w.slice(1)}q`).some((d) => forms.has(d)) && !oneEditApart(w, `${w.slice(1)}q`) ? 1 : 0;
    }
    expect(pairs).toBeGreaterThan(30_000);
    expect(twoApart).toBeGreaterThan(0);
  });
});

describe("same consonant shape", () => {
  // score.ts's rule, compared whole on both words each time.
  const rule = (a: string, b: string) =>
    consonantShape(a) === consonantShape(b) || ((isVowelless(a) || isVowelless(b)) && skeleton(a) === skeleton(b));

  it("answers as comparing both words' shapes and skeletons, on generated words and on names", () => {
    const word = fc.string({ unit: fc.constantFrom(..."abdhilmuy"), minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(word, word, (a, b) => sameShapeAs(a, shapeOf(b)) === rule(a, b)),
      { numRuns: 20_000 },
    );
    const pairs: [string, string, boolean][] = [
      ["ali", "eli", true],
      ["ali", "aly", true],
      ["mhmd", "muhammad", true],
      ["ali", "al", false],
      ["xu", "xiu", true],
      ["li", "lee", true],
      ["ila", "ali", true],
      ["ali", "alim", false],
    ];
    for (const [a, b, same] of pairs) expect([a, b, sameShapeAs(a, shapeOf(b))]).toEqual([a, b, same]);
    for (const [a, b, same] of pairs) expect([a, b, rule(a, b)]).toEqual([a, b, same]);
  });
});

describe("screening retrieval", () => {
  it("answers as scoring every entry sharing a key, on OFAC's sample and its labelled queries", async () => {
    const db = await getDb();
    const res = await importListFiles(db, {
      format: "ofac",
      list: testListName("retrieval-ofac"),
      paths: OFAC_SAMPLE_FILES,
      importedBy: "test",
    });
    const versionIds = [res.listVersionId];
    let found = 0;
    let readCount = 0;
    let allCount = 0;
    // Every sixteenth labelled query (two database reads each; `npm run bench:screening` compares
    // the two retrievals on every screen of its lists).
    for (const p of readStoredPairs().filter((_, i) => i % 16 === 0)) {
      const { all, read, reaching, allMatches, readMatches } = await compare(versionIds, p.query);
      expect(readMatches, `${p.kind} #${p.id}`).toEqual(allMatches);
      // Exactly the entries sharing a key that could reach the threshold: none left out, none added.
      expect(read.map((r) => r.id).sort(), `${p.kind} #${p.id}`).toEqual(reaching);
      found += readMatches.length;
      readCount += read.length;
      allCount += all.length;
    }
    expect(found).toBeGreaterThan(60);
    expect(readCount).toBeLessThan(allCount / 2);
  }, 300_000);

  it("reads few candidates for a common first name beside a rare surname, and still finds a typo, an initial and a word order", async () => {
    const db = await getDb();
    const res = await importList(db, {
      format: "ftm",
      list: testListName("retrieval-common"),
      files: [{ name: "common.json", text: commonFirstNames() }],
      importedBy: "test",
    });
    const versionIds = [res.listVersionId];
    const queries: Query[] = [
      { name: "Mohammed Karbelev" },
      // A typing error that changes every key of the surname: only the first name shares a key.
      { name: "Mohammed Jarbelev" },
      { name: "Karbelev Mohammed" },
      { name: "Ivan Tosvinski", birthDate: "1970-03-04" },
      // An entry written "M. karkarev" (an initial): found through the surname and its initial.
      { name: "Mohammed Karkarev", birthDate: "1970-03-04" },
      { name: "Mohammed" },
      { name: "Olga Maria Semloazi" },
    ];
    const sizes: [number, number][] = [];
    for (const q of queries) {
      const { all, read, reaching, allMatches, readMatches } = await compare(versionIds, q);
      expect(readMatches, q.name).toEqual(allMatches);
      expect(read.map((r) => r.id).sort(), q.name).toEqual(reaching);
      sizes.push([all.length, read.length]);
    }
    // Each of the five first names is shared by 576 entries; the surnames are rare.
    expect(sizes[0]![0]).toBeGreaterThan(500);
    expect(sizes[0]![1]).toBeLessThan(50);
    expect((await compare(versionIds, queries[1]!)).readMatches.length).toBe(1);
    const initial = await compare(versionIds, queries[4]!);
    const entry = initial.read.find((r) => r.name === "M. karkarev");
    expect(entry && initial.readMatches).toContain(entry?.id);
    // A single word can require nothing else: every entry sharing its keys is read.
    expect(sizes[5]![1]).toBe(sizes[5]![0]);
  });
});

describe("screening retrieval through the key arrays' index", () => {
  it("answers as scoring every entry sharing a key, one version through its index and one through the key table", async () => {
    const db = await getDb();
    const ofac = await importListFiles(db, {
      format: "ofac",
      list: testListName("retrieval-gin"),
      paths: OFAC_SAMPLE_FILES,
      importedBy: "test",
    });
    const common = await importList(db, {
      format: "ftm",
      list: testListName("retrieval-gin-common"),
      files: [{ name: "common.json", text: commonFirstNames() }],
      importedBy: "test",
    });
    // Too small for an index of their own at import (key-index.ts); the OFAC sample is given one here.
    await db.$executeRawUnsafe(createKeyIndexSql(ofac.listVersionId));
    const versionIds = [ofac.listVersionId, common.listVersionId];
    const queries: Query[] = [
      ...readStoredPairs()
        .filter((_, i) => i % 16 === 3)
        .map((p) => p.query),
      { name: "Mohammed Karbelev" },
      { name: "Mohammed Karkarev", birthDate: "1970-03-04" },
      { name: "Olga Maria Semloazi" },
    ];
    let found = 0;
    let fromIndex = 0;
    for (const q of queries) {
      let got: Awaited<ReturnType<typeof compare>> | undefined;
      const plans = await plansOf(async () => {
        got = await compare(versionIds, q);
      });
      const { read, reaching, allMatches, readMatches } = got!;
      expect(readMatches, q.name).toEqual(allMatches);
      expect(read.map((r) => r.id).sort(), q.name).toEqual(reaching);
      found += readMatches.length;
      if (plans.some((p) => p.nodes.some((n) => n["Index Name"] === keyIndexName(ofac.listVersionId)))) fromIndex++;
    }
    expect(found).toBeGreaterThan(60);
    // The narrow reads of the OFAC version went through its index (a query few entries share a key with reads them all).
    expect(fromIndex).toBeGreaterThan(queries.length / 2);
  }, 300_000);
});

describe("the in-memory reach test of re-screens", () => {
  it("never rules out an entry that scores at the threshold, on OFAC's sample and its labelled queries, and rules most out", () => {
    const entries = loadOfacSample().map((e, i) => ({ ...entryRow("v", e), id: String(i) }));
    const byKey = new Map<string, number[]>();
    entries.forEach((e, i) => {
      for (const k of e.nameKeys) byKey.set(k, [...(byKey.get(k) ?? []), i]);
    });
    const shapes = entries.map((e) => ({ words: [...new Set(e.normalizedNames.flatMap(variantTokens))], keys: new Set(e.nameKeys) }));
    let scored = 0;
    let skipped = 0;
    let matches = 0;
    // Every third labelled query: each is scored against every entry sharing a key, in this process.
    for (const p of readStoredPairs().filter((_, i) => i % 3 === 0)) {
      const tokens = nameTokens(p.query.name);
      const reach = reachTest({ tokens, birthDate: p.query.birthDate, threshold: MATCH_THRESHOLD });
      const candidates = new Set(retrievalKeys(tokens).flatMap((k) => byKey.get(k) ?? []));
      for (const i of candidates) {
        const total = scoreCandidate({ tokens, birthDate: p.query.birthDate }, entries[i]!).total;
        const kept = reach(shapes[i]!.words, shapes[i]!.keys);
        if (total >= MATCH_THRESHOLD) {
          matches++;
          expect(kept, `${p.kind} #${p.id} against ${entries[i]!.name}`).toBe(true);
        }
        if (kept) scored++;
        else skipped++;
      }
    }
    expect(matches).toBeGreaterThan(330);
    expect(skipped).toBeGreaterThan(scored);
  });
});

describe("the reach test's bound", () => {
  // The bound (score.ts nameScoreCeiling) sets uncovered words against different words of the
  // entry, which cost CONTRADICTION each: the names most exposed are those where all but one or
  // two words are covered, at any threshold and with a birth date or a country taking the bar down.
  it("never rules out an entry reaching the threshold, on generated names, their slips and their mixtures", () => {
    const slip = (w: string, at: number) =>
      w.length > 3
        ? w.slice(0, at % (w.length - 1)) + w[(at % (w.length - 1)) + 1] + w[at % (w.length - 1)] + w.slice((at % (w.length - 1)) + 2)
        : w;
    let reached = 0;
    let ruledOut = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 6, maxLength: 6 }),
        fc.double({ min: 0.62, max: 0.97, noNaN: true }),
        fc.constantFrom(null, "1970", "1970-03-04"),
        fc.constantFrom(null, "RU"),
        (seed, [take, swap, drop, initial, reorder, at], threshold, birthDate, country) => {
          const make = nameMaker(rng(seed));
          const entryName = make();
          const other = make().split(" ");
          // The query: the entry's words, some taken from another name, one slipped, one dropped or made an initial, reordered.
          let words = entryName.split(" ").map((w, i) => ((take! + 37 * i) % 100 < 30 ? (other[i % other.length] ?? w) : w));
          if (swap! % 2 === 0) words = words.map((w, i) => (i === at! % words.length ? slip(w, swap!) : w));
          if (drop! % 4 === 0 && words.length > 2) words.splice(drop! % words.length, 1);
          if (initial! % 5 === 0) words = words.map((w, i) => (i === initial! % words.length ? w[0]! : w));
          if (reorder! % 3 === 0) words.reverse();
          const tokens = nameTokens(words.join(" "));
          const entry = entryRow("v", {
            externalId: "e",
            schema: "Person",
            name: entryName,
            aliases: [],
            birthDates: ["1970-03-04"],
            countries: ["RU"],
            topics: [],
            programme: null,
          });
          const total = scoreCandidate({ tokens, birthDate, country }, entry).total;
          const kept = reachTest({ tokens, birthDate, country, threshold })(
            [...new Set(entry.normalizedNames.flatMap(variantTokens))],
            new Set(entry.nameKeys),
          );
          if (total >= threshold) {
            reached++;
            expect(kept, `${words.join(" ")} against ${entryName} at ${threshold}: ${total}`).toBe(true);
          } else if (!kept) ruledOut++;
        },
      ),
      { numRuns: 20_000, seed: 20261129 },
    );
    // Both sides are exercised: many reach the threshold, many that do not are ruled out.
    expect(reached).toBeGreaterThan(2_000);
    expect(ruledOut).toBeGreaterThan(2_000);
  });
});

describe("screening retrieval on few holdings", () => {
  it("reads every entry sharing a key when few entries hold the query's keys", async () => {
    const db = await getDb();
    const res = await importList(db, {
      format: "ftm",
      list: testListName("retrieval-few"),
      files: [{ name: "few.json", text: commonFirstNames() }],
      importedBy: "test",
    });
    const tokens = nameTokens("Zorni Qualofski");
    const all = await everySharingAKey(db, [res.listVersionId], retrievalKeys(tokens));
    const read = await retrieveCandidates(db, { versionIds: [res.listVersionId], tokens, threshold: MATCH_THRESHOLD });
    expect(all.length).toBeGreaterThan(0);
    expect(read.map((r) => r.id).sort()).toEqual(await reachingIds(all, { name: "Zorni Qualofski" }));
  });
});
