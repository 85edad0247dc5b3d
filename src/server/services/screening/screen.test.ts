import { describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { createTestOrg } from "../../testing/harness";
import { countRoundTrips } from "../../testing/round-trips";
import { testListName } from "../../testing/screening-lists";
import { importList } from "./import";
import { nameTokens, normalizeName, retrievalKeys } from "./normalize";
import { everySharingAKey } from "./retrieval";
import { MATCH_THRESHOLD, scoreCandidate } from "./score";
import { findMatches, screenAccount, screenPerson } from "./screen";

describe("name normalisation", () => {
  it("transliterates Cyrillic, Greek and Arabic, drops accents, punctuation and honorifics, keeps initials", () => {
    expect(normalizeName("Иван Тестович Петренко")).toBe("ivan testovich petrenko");
    expect(normalizeName("Μαρία Σανδοβάλ")).toBe("maria sandoval");
    expect(normalizeName("Dr. María-José  O'Sándoval")).toBe("maria jose osandoval");
    expect(normalizeName("Sheikh Hajji Omar al-Fixture")).toBe("omar al fixture");
    expect(nameTokens("PETRENKO, I. T.")).toEqual(["petrenko", "i", "t"]);
    expect(nameTokens("عمر")).toEqual(["mr"]);
  });

  it("gives the same retrieval keys to a name in any order and to its Cyrillic spelling", () => {
    const latin = retrievalKeys(nameTokens("Ivan Petrenko")).sort();
    expect(retrievalKeys(nameTokens("Petrenko Ivan")).sort()).toEqual(latin);
    expect(retrievalKeys(nameTokens("Иван Петренко")).sort()).toEqual(latin);
    expect(retrievalKeys(nameTokens("I. Petrenko"))).toEqual(expect.arrayContaining(["m:PTRN", "s:ptrnk"]));
  });
});

describe("scoring", () => {
  const entry = { normalizedNames: ["ivan testovich petrenko", "ivan petrenko"], birthDates: ["1961-04-12"], countries: ["UA"] };
  const score = (name: string, birthDate?: string, country?: string) =>
    scoreCandidate({ tokens: nameTokens(name), birthDate, country }, entry);

  it("scores the same name in any order, with a typo, or as initials above the threshold", () => {
    for (const n of ["Ivan Testovich Petrenko", "PETRENKO, Ivan", "Ivan Petrneko", "I. T. Petrenko", "Mr Ivan Petrenko", "Іван Петренко"]) {
      expect(score(n).total, n).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
    }
  });

  it("keeps different people below it, and lets birth date and country move the score", () => {
    expect(score("Oleg Petrenko").total).toBeLessThan(MATCH_THRESHOLD);
    expect(score("Ivan Petrovsky").total).toBeLessThan(MATCH_THRESHOLD);
    const plain = score("Ivan Petrneko");
    const confirmed = score("Ivan Petrneko", "1961-04-12", "UA");
    const contradicted = score("Ivan Petrneko", "1984-01-02", "FR");
    expect(confirmed).toMatchObject({ birthDate: 0.06, country: 0.03 });
    expect(confirmed.total).toBeGreaterThan(plain.total);
    expect(contradicted).toMatchObject({ birthDate: -0.2, country: -0.06 });
    expect(contradicted.total).toBeLessThan(MATCH_THRESHOLD);
    expect(plain.total).toBeCloseTo(plain.name + plain.birthDate + plain.country, 3);
  });
});

const person = (id: string, name: string, topics: string[], extra: Record<string, string[]> = {}) =>
  JSON.stringify({ id, schema: "Person", properties: { name: [name], topics, ...extra } });

async function testList(lines: string[]) {
  const db = await getDb();
  const res = await importList(db, {
    format: "ftm",
    list: testListName(),
    files: [{ name: "t.json", text: lines.join("\n") }],
    importedBy: "system:test",
  });
  return { db, version: { id: res.listVersionId, list: res.list, versionHash: res.versionHash } };
}

/**
 * 400 people, 40 of them sharing the first name Quentin and nothing else with the query "Quentin
 * Grushevich Zablocki", and its target "Quentin Zablocki Grushevitz" (externalId `target`).
 */
const quentinAmongNamesakes = () => [
  ...Array.from({ length: 400 }, (_, i) => person(`n-${i}`, `${i % 10 === 0 ? "Quentin" : `Filler${i}`} Nobody${i}`, ["sanction"])),
  person("target", "Quentin Zablocki Grushevitz", ["sanction"], { birthDate: ["1950"] }),
];

describe("screenPerson", () => {
  it("flags the sandbox provider's sanctioned person as critical and stores a replayable result", async () => {
    const org = await createTestOrg();
    const out = await screenPerson(org.db, {
      orgId: org.orgId,
      subjectRef: "did:test:ivan",
      name: "Ivan Testovich Petrenko",
      birthDate: "1961-04-12",
      country: "UA",
    });
    expect(out).toMatchObject({ sanctions: true, pep: false, severity: "critical", score: 100 });
    const fromFtm = out.matches.find((m) => m.list === "opensanctions")!;
    expect(fromFtm).toMatchObject({ externalId: "fx-ivan-petrenko", topics: ["sanction"], score: 1 });
    expect(fromFtm.breakdown).toMatchObject({
      matchedName: "ivan testovich petrenko",
      jaroWinkler: 1,
      phonetic: 1,
      birthDate: 0.06,
      country: 0.03,
      total: 1,
    });
    expect(out.matches.some((m) => m.list === "ofac-sdn")).toBe(true);
    const row = await org.db.screeningResult.findUniqueOrThrow({ where: { id: out.resultId } });
    expect(row).toMatchObject({
      orgId: org.orgId,
      subjectType: "person",
      subjectRef: "did:test:ivan",
      severity: "critical",
      sanctionsHit: true,
      pepHit: false,
      score: 100,
    });
    const detail = row.detail as any;
    expect(detail.listVersions.map((v: { id: string }) => v.id)).toEqual(out.listVersions);
    expect(detail.matches[0]).toMatchObject({ entryId: out.matches[0]!.entryId, breakdown: out.matches[0]!.breakdown });
    expect(detail.queryHash).toMatch(/^[0-9a-f]{64}$/);
    // Replay: the stored entry and breakdown recompute to the same score.
    const entry = await org.db.screeningEntry.findUniqueOrThrow({ where: { id: fromFtm.entryId } });
    expect(scoreCandidate({ tokens: nameTokens("Ivan Testovich Petrenko"), birthDate: "1961-04-12", country: "UA" }, entry)).toEqual(
      fromFtm.breakdown,
    );
    expect(JSON.stringify(detail)).not.toContain('Testovich Petrenko"}'); // the query name itself is not stored
  });

  it("flags the PEP as high, not sanctioned", async () => {
    const org = await createTestOrg();
    const out = await screenPerson(org.db, {
      orgId: org.orgId,
      subjectRef: "did:test:maria",
      name: "Maria Fictitia Sandoval",
      birthDate: "1970-09-03",
      country: "ES",
    });
    expect(out).toMatchObject({ sanctions: false, pep: true, severity: "high" });
    expect(out.matches[0]).toMatchObject({ externalId: "fx-maria-sandoval", topics: ["role.pep"] });
  });

  it("stores a clean result with no severity for nobody on the lists", async () => {
    const org = await createTestOrg();
    const out = await screenPerson(org.db, { orgId: org.orgId, subjectRef: "did:test:nobody", name: "Wilhelmina Qxyzzyplatt" });
    expect(out).toMatchObject({ sanctions: false, pep: false, severity: null, score: 0, matches: [] });
    expect(await org.db.screeningResult.findUniqueOrThrow({ where: { id: out.resultId } })).toMatchObject({ severity: null, labels: [] });
  });

  it("runs inside the caller's transaction: a rollback leaves no result", async () => {
    const org = await createTestOrg();
    let resultId = "";
    await org.db
      .$transaction(async (tx) => {
        resultId = (await screenPerson(tx, { orgId: org.orgId, subjectRef: "did:test:rollback", name: "Ivan Petrenko" })).resultId;
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(resultId).not.toBe("");
    expect(await org.db.screeningResult.findUnique({ where: { id: resultId } })).toBeNull();
  });

  it("fetches candidates by key from the index, not by scanning the list, and scores only those that could match", async () => {
    // 400 people; 40 of them share the first name with the query, none anything else: sharing a
    // key, but unable to reach the threshold on the first name alone (retrieval.ts), so not scored.
    const { db, version } = await testList(quentinAmongNamesakes());
    const res = await findMatches(db, { name: "Quentin Grushevich Zablocki" }, { versions: [version] });
    expect(res.candidates).toBe(1);
    expect(res.matches.map((m) => m.externalId)).toEqual(["target"]);
    const sharing = await everySharingAKey(db, [version.id], retrievalKeys(nameTokens("Quentin Grushevich Zablocki")));
    expect(sharing).toHaveLength(41);
  });

  it("reads the lists and candidates in two statements and stores the result in a third", async () => {
    const { db, version } = await testList(quentinAmongNamesakes());
    const org = await createTestOrg();
    const input = { orgId: org.orgId, subjectRef: "did:test:quentin", name: "Quentin Grushevich Zablocki" };
    await screenPerson(db, input); // the sandbox lists load at the first screen
    const { value: out, count, statements } = await countRoundTrips(() => screenPerson(db, input));
    expect(count, statements.join("\n")).toBe(3);
    // This file's lists are all active: the one made here matches once, with its target.
    const here = out.matches.filter((m) => m.listVersionId === version.id);
    expect(here.map((m) => m.externalId)).toEqual(["target"]);
    const row = await db.screeningResult.findUniqueOrThrow({ where: { id: out.resultId } });
    expect(row).toMatchObject({ orgId: org.orgId, subjectRef: "did:test:quentin", severity: "critical", sanctionsHit: true });
    expect((row.detail as { matches: { entryId: string }[] }).matches.map((m) => m.entryId)).toEqual(out.matches.map((m) => m.entryId));
  });
});

describe("screenAccount", () => {
  it("answers labels, score and severity medium for a labelled account, and nothing for others; both stored", async () => {
    const org = await createTestOrg();
    const hit = await screenAccount(org.db, { orgId: org.orgId, chainAccount: "scamdrain.x" });
    expect(hit).toMatchObject({ labels: ["phishing", "scam"], score: 90, severity: "medium" });
    const clean = await screenAccount(org.db, { orgId: org.orgId, chainAccount: "plainuser123" });
    expect(clean).toMatchObject({ labels: [], score: 0, severity: null });
    const rows = await org.db.screeningResult.findMany({
      where: { orgId: org.orgId, subjectType: "account" },
      orderBy: { createdAt: "asc" },
    });
    expect(rows.map((r) => [r.subjectRef, r.score, r.severity])).toEqual([
      ["scamdrain.x", 90, "medium"],
      ["plainuser123", 0, null],
    ]);
  });
});
