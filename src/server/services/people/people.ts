import type { Person } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { personDidOf } from "../../platform/account-ref";
import type { ListPeopleQuery } from "./people.schema";

// People (KYC subjects) as the admin reads show them; every query filters on the caller's organization.

export function personSummary(p: Person, issuer = issuerDid()) {
  return {
    personDid: personDidOf(issuer, p.id),
    kycStatus: p.kycStatus,
    kycLevel: p.kycLevel,
    kycProvider: p.kycProvider,
    country: p.country,
    pepFlag: p.pepFlag,
    sanctionsFlag: p.sanctionsFlag,
    riskScore: p.riskScore,
    erasedAt: p.erasedAt?.toISOString() ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** GET /v1/admin/people: newest first, filtered by KYC status or flags, paged by creation time. */
export async function listPeople(ctx: ServiceContext, q: ListPeopleQuery) {
  const rows = await ctx.db.person.findMany({
    where: {
      orgId: ctx.org.id,
      ...(q.kycStatus ? { kycStatus: q.kycStatus } : {}),
      ...(q.flagged === true ? { OR: [{ pepFlag: true }, { sanctionsFlag: true }] } : {}),
      ...(q.flagged === false ? { pepFlag: false, sanctionsFlag: false } : {}),
      ...(q.before ? { createdAt: { lt: new Date(q.before) } } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit,
  });
  const issuer = issuerDid();
  return {
    people: rows.map((p) => personSummary(p, issuer)),
    nextBefore: rows.length === q.limit ? rows[rows.length - 1]!.createdAt.toISOString() : null,
  };
}
