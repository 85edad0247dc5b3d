import type { ServiceContext } from "../../context";
import { notFound } from "../../errors";
import { isUuid } from "../../platform/ids";
import { withHits } from "./case-records";
import { readScreeningDetail } from "./screening-detail";
import { CLEARING_EFFECT } from "./timeline";

/**
 * One AML case as the console's review dialog shows it: the case (the AML service's view) plus,
 * for each hit that came from list screening, what the stored screening result recorded: scoring
 * version and threshold, the list versions screened, and each matched entry's score breakdown.
 * A read only; hits reported by a KYC provider have no stored result and show none (their
 * evidence, on the case's hits, holds the provider's finding).
 */
export async function getCaseDetail(ctx: ServiceContext, caseId: string) {
  const row = isUuid(caseId) ? await ctx.db.amlCase.findFirst({ where: { id: caseId, orgId: ctx.org.id } }) : null;
  if (!row) throw notFound("AML case");
  const [view] = await withHits(ctx.db, ctx.org.id, [row]);
  const resultIds = view!.hits.map((h) => h.resultId).filter((id): id is string => !!id && isUuid(id));
  const results = resultIds.length
    ? await ctx.db.screeningResult.findMany({ where: { orgId: ctx.org.id, id: { in: resultIds } }, orderBy: { createdAt: "asc" } })
    : [];
  return {
    case: view!,
    /** What a clear changes and what it leaves as it is (a rejected KYC stays rejected). */
    clearing: CLEARING_EFFECT,
    screenings: results.map((r) => {
      const d = readScreeningDetail(r.detail);
      return {
        resultId: r.id,
        screenedAt: r.createdAt.toISOString(),
        provider: r.provider,
        score: r.score,
        severity: r.severity,
        scoringVersion: d.scoringVersion == null ? null : String(d.scoringVersion),
        threshold: d.threshold ?? null,
        listVersions: (d.listVersions ?? []).map((v) => ({ id: v.id, list: v.list ?? null, versionHash: v.versionHash ?? null })),
        matches: (d.matches ?? []).slice(0, 10).map((m) => ({
          list: m.list ?? null,
          listVersionId: m.listVersionId ?? null,
          name: m.name ?? null,
          topics: m.topics ?? [],
          score: m.score ?? null,
          breakdown: (m.breakdown ?? null) as Record<string, number | string> | null,
        })),
      };
    }),
  };
}
