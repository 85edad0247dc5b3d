import { AccountLifecycle, KycStatus } from "@/generated/prisma/enums.ts";
import type { ServiceContext } from "../../context";
import { countOverdue, OPEN_STATUSES, SEVERITIES, type Severity } from "../aml";
import { describeAudit, readableBy } from "../audit";

// The console's landing aggregates across domains (accounts, people, cases, risk, audit): reads only.

const DAY = 24 * 60 * 60_000;

const zeroes = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** GET /v1/admin/dashboard: account lifecycle counts, people by KYC status, open cases by priority, risk decisions, recent audit in words. */
export async function dashboard(ctx: ServiceContext) {
  const orgId = ctx.org.id;
  const [accounts, people, flagged, cases, risk, audit, overdue] = await Promise.all([
    ctx.db.account.groupBy({ by: ["lifecycle"], where: { orgId, lifecycle: { not: "pending" } }, _count: { _all: true } }),
    ctx.db.person.groupBy({ by: ["kycStatus"], where: { orgId }, _count: { _all: true } }),
    ctx.db.person.count({ where: { orgId, OR: [{ pepFlag: true }, { sanctionsFlag: true }] } }),
    ctx.db.amlCase.groupBy({ by: ["status", "priority"], where: { orgId, status: { in: [...OPEN_STATUSES] } }, _count: { _all: true } }),
    ctx.db.riskEvent.groupBy({
      by: ["decision"],
      where: { orgId, createdAt: { gte: new Date(ctx.now().getTime() - DAY) } },
      _count: { _all: true },
    }),
    ctx.db.auditEntry.findMany({ where: { orgId }, orderBy: { seq: "desc" }, take: 20 }),
    countOverdue(ctx.db, orgId, ctx.now()),
  ]);
  // A pending account is a create still waiting for the chain: not an account yet.
  const byLifecycle = zeroes(Object.values(AccountLifecycle).filter((l) => l !== "pending"));
  for (const a of accounts) if (a.lifecycle !== "pending") byLifecycle[a.lifecycle] = a._count._all;
  const byKycStatus = zeroes(Object.values(KycStatus));
  for (const p of people) byKycStatus[p.kycStatus] = p._count._all;
  const open = zeroes<Severity>(SEVERITIES);
  const pendingApproval = zeroes<Severity>(SEVERITIES);
  for (const c of cases) (c.status === "open" ? open : pendingApproval)[c.priority] = c._count._all;
  const risk24h = { allow: 0, review: 0, deny: 0 };
  for (const r of risk) if (r.decision in risk24h) risk24h[r.decision as keyof typeof risk24h] = r._count._all;
  const sum = (r: Record<string, number>) => Object.values(r).reduce((s, n) => s + n, 0);
  return {
    accounts: { total: sum(byLifecycle), byLifecycle },
    people: { total: sum(byKycStatus), byKycStatus, flagged },
    amlCases: { open, pendingApproval, overdue },
    risk24h,
    // Below compliance officer, AML work is left out (docs/security.md, tipping-off).
    recentAudit: await describeAudit(ctx.db, orgId, readableBy(ctx.actor, audit)),
  };
}
