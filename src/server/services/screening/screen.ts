import { randomUUID } from "node:crypto";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { type DbOrTx, Prisma, rawQuery } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import type { ScreeningResultDetail } from "../aml";
import { nameTokens } from "./normalize";
import { type CandidateRow, retrieveCandidates, retrieveCandidatesWith } from "./retrieval";
import { ensureSandboxLists } from "./sandbox-lists";
import { type Breakdown, MATCH_THRESHOLD, SCORING_VERSION, scoreCandidate, TokenComparer } from "./score";

export type Severity = "low" | "medium" | "high" | "critical";

export type ScreenMatch = {
  entryId: string;
  listVersionId: string;
  list: string;
  externalId: string;
  name: string;
  topics: string[];
  programme: string | null;
  /** 0–1, the breakdown's total. */
  score: number;
  breakdown: Breakdown;
};

export type ScreenOutcome = {
  sanctions: boolean;
  pep: boolean;
  severity: Severity | null;
  /** Best match score, 0–100 (0 without a match). */
  score: number;
  matches: ScreenMatch[];
  listVersions: string[];
  resultId: string;
};

export type PersonQuery = { name: string; birthDate?: string | null; country?: string | null };
type ActiveVersion = { id: string; list: string; versionHash: string };

export const SCREENING_PROVIDER = "screening-lists";

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The lists an organization is screened against: every global list and its own uploads, never
 * another organization's (docs/screening.md § Lists). Without an organization, global lists only.
 */
export function visibleLists(orgId: string | null | undefined) {
  return orgId ? { OR: [{ orgId: null }, { orgId }] } : { orgId: null };
}

export async function activePersonLists(db: DbOrTx, orgId?: string | null): Promise<ActiveVersion[]> {
  return db.screeningListVersion.findMany({
    where: { active: true, format: { in: ["ftm", "ofac"] }, ...visibleLists(orgId) },
    select: { id: true, list: true, versionHash: true },
    orderBy: { list: "asc" },
  });
}

type EntryRow = CandidateRow;

/**
 * Matches at or above the threshold, best first, without storing anything. Candidates come from
 * the inverted index of phonetic and skeleton keys (screening_entry_keys): of the entries sharing
 * a key with the query, those that could reach the threshold (retrieval.ts), so a screen reads a
 * few of the list's entries rather than the whole list, or every entry sharing a common first
 * name. No entry that could match is left out before scoring, and the answer is ordered by score,
 * then list and external id, so the same query on the same list versions always answers the same
 * (docs/screening.md § Retrieval, "At a million entries"). `candidates`: the entries scored.
 */
export async function findMatches(
  db: DbOrTx,
  query: PersonQuery,
  opts: { versions?: ActiveVersion[]; threshold?: number; orgId?: string | null } = {},
) {
  const versions = opts.versions ?? (await activePersonLists(db, opts.orgId));
  const tokens = nameTokens(query.name);
  const threshold = opts.threshold ?? MATCH_THRESHOLD;
  const rows = await retrieveCandidates(db, {
    versionIds: versions.map((v) => v.id),
    tokens,
    birthDate: query.birthDate,
    country: query.country,
    threshold,
  });
  const matches = scoreRows(query, tokens, rows, versions, threshold);
  return { matches, versions, candidates: rows.length };
}

/** The rows at or above the threshold as matches, best first (the order findMatches documents). */
function scoreRows(query: PersonQuery, tokens: string[], rows: EntryRow[], versions: ActiveVersion[], threshold: number): ScreenMatch[] {
  const listOf = new Map(versions.map((v) => [v.id, v.list]));
  const matches: ScreenMatch[] = [];
  const comparer = new TokenComparer(tokens);
  for (const r of rows) {
    const breakdown = scoreCandidate({ tokens, birthDate: query.birthDate, country: query.country }, r, comparer);
    if (breakdown.total < threshold) continue;
    matches.push({
      entryId: r.id,
      listVersionId: r.listVersionId,
      list: listOf.get(r.listVersionId) ?? "",
      externalId: r.externalId,
      name: r.name,
      topics: r.topics,
      programme: r.programme,
      score: breakdown.total,
      breakdown,
    });
  }
  // Ids are random per import; list name and external id are what the list itself says.
  matches.sort((a, b) => b.score - a.score || cmp(a.list, b.list) || cmp(a.externalId, b.externalId) || cmp(a.entryId, b.entryId));
  return matches;
}

/** Contract docs/api/contract-decisions.md §3: a sanctions hit is critical, a PEP high; any other listed topic medium. */
export function severityOf(matches: readonly ScreenMatch[]): { sanctions: boolean; pep: boolean; severity: Severity | null } {
  const sanctions = matches.some((m) => m.topics.some((t) => t === "sanction" || t.startsWith("sanction.")));
  const pep = matches.some((m) => m.topics.includes("role.pep"));
  const severity = sanctions ? "critical" : pep ? "high" : matches.length > 0 ? "medium" : null;
  return { sanctions, pep, severity };
}

/**
 * Screens a person against every active sanctions/PEP list visible to the organization (global
 * lists and its own) and stores a ScreeningResult of the
 * organization. Pass a transaction client to run inside the caller's transaction (KYC approval);
 * the caller records the audit entry and raises flags. The stored detail holds what a replay
 * needs: scoring version, threshold, list versions, matched entries with their score breakdown,
 * and a hash of the normalised query (never the name itself: the identity stays at the provider).
 * At most three statements once the sandbox lists are loaded: screenPersonForWrite's reads (one
 * when no entry holds a key of the query), then its INSERT of the result.
 */
export async function screenPerson(
  db: DbOrTx,
  input: { orgId: string; subjectRef: string; subjectType?: string } & PersonQuery,
): Promise<ScreenOutcome> {
  await ensureSandboxLists(db);
  const { outcome, insert } = await screenPersonForWrite(db, input);
  await rawQuery(db, insert);
  return outcome;
}

type ScreenInput = { orgId: string; subjectRef: string; subjectType?: string } & PersonQuery;

const personQuery = (input: PersonQuery) => ({
  name: input.name,
  birthDate: input.birthDate ?? null,
  country: input.country?.toUpperCase() ?? null,
});

/** The outcome of a screen and the screening result row that records it (the detail: what a replay needs). */
function resultOf(input: ScreenInput, query: ReturnType<typeof personQuery>, matches: ScreenMatch[], versions: ActiveVersion[]) {
  const flags = severityOf(matches);
  const score = Math.round((matches[0]?.score ?? 0) * 100);
  const detail: ScreeningResultDetail = {
    scoringVersion: SCORING_VERSION,
    threshold: MATCH_THRESHOLD,
    queryHash: sha256Hex(jcs({ name: nameTokens(query.name).join(" "), birthDate: query.birthDate, country: query.country })),
    listVersions: versions.map((v) => ({ id: v.id, list: v.list, versionHash: v.versionHash })),
    matches: matches.slice(0, 20),
  };
  const data = {
    orgId: input.orgId,
    subjectType: input.subjectType ?? "person",
    subjectRef: input.subjectRef,
    provider: SCREENING_PROVIDER,
    severity: flags.severity,
    score,
    labels: [...new Set(matches.flatMap((m) => m.topics))],
    sanctionsHit: flags.sanctions,
    pepHit: flags.pep,
    detail,
  };
  return { outcome: { ...flags, score, matches, listVersions: versions.map((v) => v.id) }, data };
}

/**
 * screenPerson in two halves, for a caller that writes everything in one statement (a KYC review
 * arriving, docs/performance.md "Product paths"): the lists are read here in two statements (the
 * active versions visible to the organization with the counts of the query's keys, then the
 * candidates, retrieval.ts; one when no entry holds a key of the query),
 * and the screening result is returned as an INSERT the caller runs with its own writes, under
 * an id chosen here (screenPerson runs that INSERT itself).
 */
export async function screenPersonForWrite(db: DbOrTx, input: ScreenInput): Promise<{ outcome: ScreenOutcome; insert: Prisma.Sql }> {
  const query = personQuery(input);
  const tokens = nameTokens(query.name);
  const { rows, first } = await retrieveCandidatesWith<{ versions: ActiveVersion[] }>(
    db,
    { tokens, birthDate: query.birthDate, country: query.country, threshold: MATCH_THRESHOLD },
    {
      ctes: Prisma.sql`v AS (
        SELECT id, list, "versionHash" FROM screening_list_versions
        WHERE active AND format IN ('ftm', 'ofac') AND ("orgId" IS NULL OR "orgId" = ${input.orgId}::uuid))`,
      ids: Prisma.sql`ARRAY(SELECT id FROM v ORDER BY list, id)`,
      columns: Prisma.sql`, (SELECT coalesce(json_agg(json_build_object('id', v.id, 'list', v.list, 'versionHash', v."versionHash") ORDER BY v.list, v.id), '[]') FROM v) AS versions`,
    },
  );
  const versions = first.versions;
  const matches = versions.length > 0 ? scoreRows(query, tokens, rows, versions, MATCH_THRESHOLD) : [];
  const { outcome, data } = resultOf(input, query, matches, versions);
  const id = randomUUID();
  const insert = Prisma.sql`INSERT INTO screening_results (id, "orgId", "subjectType", "subjectRef", provider, severity, score, labels, "sanctionsHit", "pepHit", detail, "createdAt")
    VALUES (${id}::uuid, ${data.orgId}::uuid, ${data.subjectType}, ${data.subjectRef}, ${data.provider}, ${data.severity}::"Severity", ${data.score},
      ${data.labels}::text[], ${data.sanctionsHit}, ${data.pepHit}, ${JSON.stringify(data.detail)}::jsonb, ${utcTimestamp(new Date())})`;
  return { outcome: { ...outcome, resultId: id }, insert };
}

export type AccountOutcome = { score: number; labels: string[]; severity: Severity | null; resultId: string; listVersions: string[] };

/**
 * Looks a chain account up in every active account-labels list and stores the result. Any label
 * is adverse (the lists hold only risky accounts), hence severity medium (docs/api/contract-decisions.md §3).
 */
export async function screenAccount(db: DbOrTx, input: { orgId: string; chainAccount: string }): Promise<AccountOutcome> {
  await ensureSandboxLists(db);
  const versions = await db.screeningListVersion.findMany({
    where: { active: true, format: "labels", ...visibleLists(input.orgId) },
    select: { id: true, list: true, versionHash: true },
  });
  const hits = await db.screeningAccountLabel.findMany({
    where: { chainAccount: input.chainAccount, listVersionId: { in: versions.map((v) => v.id) } },
    select: { listVersionId: true, labels: true, score: true },
  });
  const labels = [...new Set(hits.flatMap((h) => h.labels))].sort();
  const score = hits.reduce((max, h) => Math.max(max, h.score), 0);
  const severity: Severity | null = labels.length > 0 ? "medium" : null;
  const result = await db.screeningResult.create({
    data: {
      orgId: input.orgId,
      subjectType: "account",
      subjectRef: input.chainAccount,
      provider: "account-labels",
      severity,
      score,
      labels,
      detail: { listVersions: versions.map((v) => ({ id: v.id, list: v.list, versionHash: v.versionHash })), hits },
    },
  });
  return { score, labels, severity, resultId: result.id, listVersions: versions.map((v) => v.id) };
}
