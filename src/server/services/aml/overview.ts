import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { DEVICE_HASH_PREFIX, maskedClientIp } from "../../crypto/risk-hash";
import { describeAudit } from "../audit";
import { personSummary } from "../people";
import { OPEN_STATUSES, withHits } from "./case-records";
import { countOverdue } from "./sla";

// The admin overviews of AML alerts and anti-abuse risk (scope `admin`): reads only, scoped to the
// caller's organization.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Device hashes are shown shortened: enough to tell devices apart and search, not the whole hash (nor its "k1:"). */
const shortHash = (h: string) => (h.startsWith(DEVICE_HASH_PREFIX) ? h.slice(DEVICE_HASH_PREFIX.length) : h).slice(0, 16);
/**
 * A client address is shown as its network (what risk events keep in clear, crypto/risk-hash.ts);
 * an event written before keeps the address itself until the person data migration, masked here.
 */
const shownIp = (ip: string | null) => (ip === null || ip.includes("/") ? ip : maskedClientIp(ip));

/** GET /v1/admin/aml: flagged people (sanctions first, then PEP, then risk), the open case queue, recent AML audit entries. */
export async function amlOverview(ctx: ServiceContext) {
  const orgId = ctx.org.id;
  const flaggedWhere = { orgId, OR: [{ pepFlag: true }, { sanctionsFlag: true }] };
  const [flagged, sanctionsFlagged, pepFlagged, people, cases, events, overdue] = await Promise.all([
    ctx.db.person.count({ where: flaggedWhere }),
    ctx.db.person.count({ where: { orgId, sanctionsFlag: true } }),
    ctx.db.person.count({ where: { orgId, pepFlag: true } }),
    ctx.db.person.findMany({
      where: flaggedWhere,
      orderBy: [{ sanctionsFlag: "desc" }, { pepFlag: "desc" }, { riskScore: "desc" }, { updatedAt: "desc" }],
      take: 100,
    }),
    ctx.db.amlCase.findMany({
      where: { orgId, status: { in: [...OPEN_STATUSES] } },
      orderBy: [{ priority: "desc" }, { createdAt: "asc" }],
      take: 100,
    }),
    ctx.db.auditEntry.findMany({ where: { orgId, action: { startsWith: "aml." } }, orderBy: { seq: "desc" }, take: 50 }),
    countOverdue(ctx.db, orgId, ctx.now()),
  ]);
  const issuer = issuerDid();
  const caseOf = new Map(cases.filter((c) => c.personId).map((c) => [c.personId!, c]));
  return {
    counts: {
      flaggedPeople: flagged,
      sanctionsFlagged,
      pepFlagged,
      openCases: cases.filter((c) => c.status === "open").length,
      pendingApproval: cases.filter((c) => c.status === "pending_approval").length,
      overdue,
    },
    alerts: people.map((p) => {
      const c = caseOf.get(p.id);
      return {
        ...personSummary(p, issuer),
        openCase: c ? { caseId: c.id, status: c.status as "open" | "pending_approval", priority: c.priority } : null,
      };
    }),
    openCases: await withHits(ctx.db, orgId, cases, ctx.now()),
    recentEvents: await describeAudit(ctx.db, orgId, events),
  };
}

/** GET /v1/admin/risk: velocity over recent windows, devices shared between subjects, recent risk events. */
export async function riskOverview(ctx: ServiceContext) {
  const orgId = ctx.org.id;
  const now = ctx.now().getTime();
  const since = (ms: number) => new Date(now - ms);
  const [events1m, events1h, events24h, decisions, devices, ips, shared, recent] = await Promise.all([
    ctx.db.riskEvent.count({ where: { orgId, createdAt: { gte: since(MINUTE) } } }),
    ctx.db.riskEvent.count({ where: { orgId, createdAt: { gte: since(HOUR) } } }),
    ctx.db.riskEvent.count({ where: { orgId, createdAt: { gte: since(DAY) } } }),
    ctx.db.riskEvent.groupBy({ by: ["decision"], where: { orgId, createdAt: { gte: since(DAY) } }, _count: { _all: true } }),
    ctx.db.$queryRaw<{ d: string; n: number }[]>`
      SELECT "deviceFingerprintHash" AS d, count(*)::int AS n FROM risk_events
      WHERE "orgId" = ${orgId}::uuid AND "deviceFingerprintHash" IS NOT NULL AND "createdAt" >= ${since(HOUR)}
      GROUP BY 1 ORDER BY n DESC, d LIMIT 10`,
    // By address (its keyed hash, or the address of an event written before), shown as its network.
    ctx.db.$queryRaw<{ k: string; ip: string | null; n: number }[]>`
      SELECT coalesce("clientIpHash", "clientIp") AS k, min("clientIp") AS ip, count(*)::int AS n FROM risk_events
      WHERE "orgId" = ${orgId}::uuid AND coalesce("clientIpHash", "clientIp") IS NOT NULL AND "createdAt" >= ${since(HOUR)}
      GROUP BY 1 ORDER BY n DESC, k LIMIT 10`,
    ctx.db.$queryRaw<{ d: string; subjects: number; last: Date }[]>`
      SELECT d, count(DISTINCT s)::int AS subjects, max(t) AS last FROM (
        SELECT "deviceFingerprintHash" AS d, did AS s, "createdAt" AS t FROM accounts
        WHERE "orgId" = ${orgId}::uuid AND "deviceFingerprintHash" IS NOT NULL
        UNION ALL
        SELECT "deviceFingerprintHash", "subjectRef", "createdAt" FROM risk_events
        WHERE "orgId" = ${orgId}::uuid AND "deviceFingerprintHash" IS NOT NULL AND "subjectRef" IS NOT NULL AND "createdAt" >= ${since(30 * DAY)}
      ) x GROUP BY d HAVING count(DISTINCT s) >= 2 ORDER BY subjects DESC, last DESC LIMIT 20`,
    ctx.db.riskEvent.findMany({ where: { orgId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 50 }),
  ]);
  const decisions24h = { allow: 0, review: 0, deny: 0 };
  for (const d of decisions) if (d.decision in decisions24h) decisions24h[d.decision as keyof typeof decisions24h] = d._count._all;
  return {
    velocity: {
      events1m,
      events1h,
      events24h,
      decisions24h,
      topDevices1h: devices.map((r) => ({ deviceHash: shortHash(r.d), events: r.n })),
      topIps1h: ips.map((r) => ({ clientIp: shownIp(r.ip) ?? "", events: r.n })),
    },
    sharedDevices: shared.map((r) => ({ deviceHash: shortHash(r.d), subjects: r.subjects, lastSeenAt: new Date(r.last).toISOString() })),
    recentEvents: recent.map((e) => ({
      id: e.id,
      kind: e.kind,
      subjectRef: e.subjectRef,
      deviceHash: e.deviceFingerprintHash ? shortHash(e.deviceFingerprintHash) : null,
      clientIp: shownIp(e.clientIp),
      score: e.score,
      decision: e.decision,
      reasons: ((e.detail as { reasons?: { code: string }[] } | null)?.reasons ?? []).map((r) => r.code),
      createdAt: e.createdAt.toISOString(),
    })),
  };
}
