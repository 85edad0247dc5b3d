import { randomUUID } from "node:crypto";
import { sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";
import { openKey, sealWithKey } from "../../crypto/person-box";
import { type Db, Prisma } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { personDidOf } from "../../platform/account-ref";
import {
  composeEvidence,
  DEFAULT_SLA_HOURS,
  type EvidenceEntry,
  evidenceMatches,
  evidenceSubjectText,
  OPEN_STATUSES,
  type OpenCaseRead,
  type ScreeningResultDetail,
  screeningHitWrites,
} from "../aml";
import type { appendAudit, GroupedWrite } from "../audit";
import type { SubjectQuery } from "./monitoring-subjects";
import { MATCH_THRESHOLD, SCORING_VERSION } from "./score";
import { SCREENING_PROVIDER, type ScreenMatch, severityOf } from "./screen";

/** The actor of everything a re-screen writes (cases, results, audit entries). */
export const MONITOR_ACTOR = "system:screening-monitor";

type Version = { id: string; list: string; versionHash: string };

/** A person of a batch with new matches, as the re-screen found them. */
export type PersonFound = { personId: string; query: SubjectQuery; tokens: string[]; matches: ScreenMatch[]; versions: Version[] };

/** The stored detail of a re-screen's result (the same whether the batch is grouped or person by person). */
export function monitoringResultDetail(runId: string, f: PersonFound): ScreeningResultDetail {
  return {
    scoringVersion: SCORING_VERSION,
    threshold: MATCH_THRESHOLD,
    queryHash: sha256Hex(jcs({ name: f.tokens.join(" "), birthDate: f.query.birthDate, country: f.query.country })),
    listVersions: f.versions.map((v) => ({ id: v.id, list: v.list, versionHash: v.versionHash })),
    matches: f.matches.slice(0, 20),
    monitoringRunId: runId,
  };
}

/** An audit entry of the grouped statement, with its actor. */
type AuditAppend = { actor: string; input: Parameters<typeof appendAudit>[2] };

type PersonRead = {
  personId: string;
  country: string | null;
  personVersion: string;
  open: OpenCaseRead | null;
  bindings: number;
  hasKey: boolean;
  keySealed: string | null;
};

/**
 * A batch's new matches as the writes of ONE grouped statement (audit/group-commit.ts), read
 * first in one statement: for each person, the screening result (the same row and detail as
 * recordPersonMatch stores), the hit as recordScreeningHit records it (screeningHitWrites: flags
 * and risk score, the case opened or escalated, the hit with its evidence, the timeline,
 * `aml.sanctions_hit` and its entry), and the `aml.screened` entry, in the order the transaction
 * writes them. The people's rows and open cases are guarded by the row versions read (a hit or
 * case written meanwhile makes the statement fail), so the caller's statement writes all of it or
 * nothing. Null when a person needs the transaction (recordPersonMatch): a sanctions hit on a
 * person holding bindings (their suspension runs in one), or a person without a data key yet
 * (sealing their evidence makes it), or someone no longer there to write for.
 */
export async function groupedMatches(
  db: Db,
  run: { id: string; orgId: string },
  found: PersonFound[],
  now: Date,
): Promise<{ writes: GroupedWrite[]; entries: AuditAppend[]; casesOpened: number } | null> {
  const { orgId } = run;
  const entryIds = [...new Set(found.flatMap((f) => evidenceMatches({ matches: f.matches.slice(0, 20) }).entryIds))];
  const [read] = await db.$queryRaw<{ people: PersonRead[]; sla: typeof DEFAULT_SLA_HOURS | null; entries: EvidenceEntry[] }[]>`
    SELECT
      (SELECT coalesce(json_agg(json_build_object(
          'personId', p.id, 'country', p.country, 'personVersion', p.xmin::text,
          'open', (SELECT json_build_object('id', c.id, 'priority', c.priority, 'status', c.status,
                                            'createdAtMs', extract(epoch FROM c."createdAt") * 1000, 'dueAtMs', extract(epoch FROM c."dueAt") * 1000,
                                            'version', c.xmin::text)
                     FROM aml_cases c WHERE c."orgId" = ${orgId}::uuid AND c."personId" = p.id AND c.status::text = ANY(${[...OPEN_STATUSES]}::text[])
                    ORDER BY c."createdAt" LIMIT 1),
          'bindings', (SELECT count(*)::int FROM account_bindings b WHERE b."orgId" = ${orgId}::uuid AND b."personId" = p.id AND b.status <> 'revoked'),
          'hasKey', k."personId" IS NOT NULL, 'keySealed', k."keySealed")), '[]')
        FROM people p LEFT JOIN person_keys k ON k."personId" = p.id
        WHERE p.id = ANY(${found.map((f) => f.personId)}::uuid[]) AND p."orgId" = ${orgId}::uuid AND p."erasedAt" IS NULL) AS people,
      (SELECT json_build_object('critical', s."criticalHours", 'high', s."highHours", 'medium', s."mediumHours", 'low', s."lowHours")
         FROM aml_sla_settings s WHERE s."orgId" = ${orgId}::uuid) AS sla,
      (SELECT coalesce(json_agg(json_build_object('id', e.id, 'externalId', e."externalId", 'name', e.name, 'aliases', e.aliases,
                                                  'normalizedNames', e."normalizedNames", 'birthDates', e."birthDates", 'countries', e.countries,
                                                  'topics', e.topics, 'programme', e.programme)), '[]')
         FROM screening_entries e WHERE e.id = ANY(${entryIds}::uuid[])) AS entries`;
  const people = new Map(read!.people.map((p) => [p.personId, p]));
  const sla = read!.sla ?? DEFAULT_SLA_HOURS;
  const t = utcTimestamp(now);
  const results: Prisma.Sql[] = [];
  const personWrites: GroupedWrite[] = [];
  const hitWrites: GroupedWrite[] = [];
  const entries: AuditAppend[] = [];
  let casesOpened = 0;
  for (const f of found) {
    const p = people.get(f.personId);
    if (!p?.hasKey) return null;
    const subjectDid = personDidOf(issuerDid(), f.personId);
    const flags = severityOf(f.matches);
    const score = Math.round((f.matches[0]?.score ?? 0) * 100);
    if (flags.sanctions && p.bindings > 0) return null;
    const resultId = randomUUID();
    const detail = monitoringResultDetail(run.id, f);
    const labels = [...new Set(f.matches.flatMap((m) => m.topics))];
    results.push(
      Prisma.sql`(${resultId}::uuid, ${orgId}::uuid, 'person', ${subjectDid}, ${SCREENING_PROVIDER}, ${flags.severity}::"Severity", ${score},
                  ${labels}::text[], ${flags.sanctions}, ${flags.pep}, ${JSON.stringify(detail)}::jsonb, ${t})`,
    );
    if (flags.sanctions || flags.pep) {
      const open = p.open
        ? { ...p.open, createdAtMs: Number(p.open.createdAtMs), dueAtMs: p.open.dueAtMs === null ? null : Number(p.open.dueAtMs) }
        : null;
      const outcome = { sanctions: flags.sanctions, pep: flags.pep, severity: flags.severity, score, resultId };
      const subject = { name: f.query.name, birthDate: f.query.birthDate, country: f.query.country };
      const input = { orgId, personId: f.personId, personCountry: p.country, outcome, subject };
      const text = evidenceSubjectText(input);
      // buildEvidence seals the subject under the person's key (none once destroyed by erasure).
      const sealed = text && p.keySealed ? sealWithKey(openKey(p.keySealed), f.personId, text) : null;
      const hit = screeningHitWrites({
        orgId,
        personId: f.personId,
        subjectDid,
        outcome,
        actor: MONITOR_ACTOR,
        open,
        sla,
        evidence: composeEvidence(input, detail, read!.entries, sealed),
        now,
      });
      // The person's flags, guarded by the row version read with their open case.
      personWrites.push({
        sql: Prisma.sql`UPDATE people SET ${Prisma.join([...hit.personSets, Prisma.sql`"updatedAt" = ${t}`], ", ")}
                        WHERE id = ${f.personId}::uuid AND "orgId" = ${orgId}::uuid AND xmin = ${p.personVersion}::xid`,
        rows: 1,
        beforeHead: true,
      });
      hitWrites.push(...hit.writes);
      entries.push(hit.entry);
      if (!open) casesOpened++;
    }
    entries.push({
      actor: MONITOR_ACTOR,
      input: {
        action: "aml.screened",
        subjectType: "person",
        subject: subjectDid,
        data: { resultId, severity: flags.severity, score, sanctions: flags.sanctions, pep: flags.pep, runId: run.id },
      },
    });
  }
  const writes: GroupedWrite[] = [
    {
      sql: Prisma.sql`INSERT INTO screening_results (id, "orgId", "subjectType", "subjectRef", provider, severity, score, labels, "sanctionsHit", "pepHit", detail, "createdAt")
                      VALUES ${Prisma.join(results, ", ")}`,
      rows: results.length,
    },
    // People, then their cases, before the chain head: the lock order of the writes that run in a transaction.
    ...personWrites,
    ...hitWrites,
  ];
  return { writes, entries, casesOpened };
}
