import type { ServiceContext } from "../../context";
import { notFound, validationError } from "../../errors";
import { isUuid } from "../../platform/ids";
import type { ListDiffQuery, ListVersionsQuery } from "./list-versions.schema";
import { visibleLists } from "./screen";

// Read-only views of the lists an organization is screened against (global reference lists and
// its own uploads, never another organization's): their versions and what changed between two.

/** Ids listed per category of a diff at most; the counts are always complete. */
const DIFF_IDS = 1_000;

/** Versions of every list (or one), newest import first, with entry counts and who imported them. */
export async function listListVersions(ctx: ServiceContext, query: ListVersionsQuery) {
  const versions = await ctx.db.screeningListVersion.findMany({
    where: { ...visibleLists(ctx.org.id), ...(query.list ? { list: query.list } : {}) },
    orderBy: [{ importedAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  return {
    versions: versions.map((v) => ({
      listVersionId: v.id,
      list: v.list,
      format: v.format,
      entryCount: v.entryCount,
      versionHash: v.versionHash,
      active: v.active,
      importedBy: v.importedBy,
      importedAt: v.importedAt.toISOString(),
      activatedAt: v.activatedAt?.toISOString() ?? null,
      scope: v.orgId ? ("organization" as const) : ("global" as const),
    })),
  };
}

type DiffRow = { kind: "added" | "removed" | "changed"; id: string; name: string; n: number };

/**
 * Entries added, removed and changed (same external id, other names, birth dates, countries or
 * topics; for account labels: other labels or score) from one version to another of the same list.
 */
export async function diffListVersions(ctx: ServiceContext, query: ListDiffQuery) {
  const [from, to] = await Promise.all(
    [query.from, query.to].map((id) =>
      isUuid(id)
        ? ctx.db.screeningListVersion.findFirst({
            where: { id, ...visibleLists(ctx.org.id) },
            select: { id: true, list: true, format: true, orgId: true },
          })
        : null,
    ),
  );
  if (!from) throw notFound("The list version `from`");
  if (!to) throw notFound("The list version `to`");
  if (from.list !== to.list || from.orgId !== to.orgId)
    throw validationError([{ path: ["to"], message: "must be a version of the same list as `from`" }], "query");
  const rows =
    to.format === "labels"
      ? await ctx.db.$queryRaw<DiffRow[]>`
          WITH d AS (
            SELECT CASE WHEN a.id IS NULL THEN 'added' WHEN b.id IS NULL THEN 'removed' ELSE 'changed' END AS kind,
                   coalesce(b."chainAccount", a."chainAccount") AS id, coalesce(b."chainAccount", a."chainAccount") AS name
            FROM (SELECT * FROM screening_account_labels WHERE "listVersionId" = ${from.id}::uuid) a
            FULL JOIN (SELECT * FROM screening_account_labels WHERE "listVersionId" = ${to.id}::uuid) b ON a."chainAccount" = b."chainAccount"
            WHERE a.id IS NULL OR b.id IS NULL OR a.labels IS DISTINCT FROM b.labels OR a.score IS DISTINCT FROM b.score)
          SELECT kind, id, name, n FROM (
            SELECT kind, id, name, (count(*) OVER (PARTITION BY kind))::int AS n, row_number() OVER (PARTITION BY kind ORDER BY id) AS rn FROM d) x
          WHERE rn <= ${DIFF_IDS} ORDER BY kind, id`
      : await ctx.db.$queryRaw<DiffRow[]>`
          WITH d AS (
            SELECT CASE WHEN a.id IS NULL THEN 'added' WHEN b.id IS NULL THEN 'removed' ELSE 'changed' END AS kind,
                   coalesce(b."externalId", a."externalId") AS id, coalesce(b.name, a.name) AS name
            FROM (SELECT * FROM screening_entries WHERE "listVersionId" = ${from.id}::uuid) a
            FULL JOIN (SELECT * FROM screening_entries WHERE "listVersionId" = ${to.id}::uuid) b ON a."externalId" = b."externalId"
            WHERE a.id IS NULL OR b.id IS NULL OR a."normalizedNames" IS DISTINCT FROM b."normalizedNames"
               OR a."birthDates" IS DISTINCT FROM b."birthDates" OR a.countries IS DISTINCT FROM b.countries OR a.topics IS DISTINCT FROM b.topics)
          SELECT kind, id, name, n FROM (
            SELECT kind, id, name, (count(*) OVER (PARTITION BY kind))::int AS n, row_number() OVER (PARTITION BY kind ORDER BY id) AS rn FROM d) x
          WHERE rn <= ${DIFF_IDS} ORDER BY kind, id`;
  const of = (kind: DiffRow["kind"]) => rows.filter((r) => r.kind === kind);
  const count = (kind: DiffRow["kind"]) => of(kind)[0]?.n ?? 0;
  const counts = { added: count("added"), removed: count("removed"), changed: count("changed") };
  return {
    list: to.list,
    from: from.id,
    to: to.id,
    counts,
    added: of("added").map((r) => r.id),
    removed: of("removed").map((r) => r.id),
    changed: of("changed").map((r) => r.id),
    truncated: Object.values(counts).some((n) => n > DIFF_IDS),
    names: Object.fromEntries(rows.map((r) => [r.id, r.name])),
  };
}
