import { env } from "@/env";
import type { KybStatus } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Tx } from "../../db/client";
import { conflict } from "../../errors";
import { orgChanged } from "../../platform/auth-cache";
import { withFailover } from "../../providers/kyc";
import type { KybReview } from "../../providers/kyc/types";
import { appendAudit } from "../audit";
import type { KybStartInput } from "./kyc.schema";

export const DEFAULT_KYB_LEVEL = "basic-kyb";

const orgDid = (orgId: string) => `${issuerDid()}:orgs:${orgId}`;

/** Our KYB status for a provider review ("retry" means the business must submit again: pending). */
const kybStatusOf = (status: KybReview["status"]): KybStatus => (status === "retry" ? "pending" : status);

/** Approved and rejected are final for an organization, as for a person. */
function nextKybStatus(current: KybStatus, next: KybStatus): KybStatus | null {
  if (current === "approved" || current === "rejected" || current === next) return null;
  if (next === "pending" && current === "in_review") return null;
  return next;
}

/**
 * POST /v1/kyb/start: the legal entity goes to the first provider that verifies businesses. The
 * provider is called before anything is written; then the session, the organization's status
 * (shown in its DID document) and the audit entry commit together.
 */
export async function startKyb(ctx: ServiceContext, input: KybStartInput) {
  if (ctx.org.kybStatus === "approved") throw conflict("already_approved", "This organization is already verified.");
  if (ctx.org.kybStatus === "rejected")
    throw conflict("kyb_rejected", "This organization's verification was rejected; the decision is final.");
  const level = input.levelName ?? DEFAULT_KYB_LEVEL;
  const { value: started, provider } = await withFailover("kyb.start", (p) =>
    p.startKyb({
      externalId: ctx.org.id,
      levelName: level,
      legalName: input.legalName,
      registrationNumber: input.registrationNumber,
      country: input.country,
      address: input.address,
      publicUrl: env().BI_PUBLIC_URL,
    }),
  );
  const immediate = started.review ? kybStatusOf(started.review.status) : null;
  const status: KybStatus = immediate && immediate !== "pending" ? immediate : "pending";
  const session = await ctx.db.$transaction(async (tx) => {
    const row = await tx.kybSession.create({
      data: {
        orgId: ctx.org.id,
        provider,
        legalName: input.legalName,
        registrationNumber: input.registrationNumber,
        country: input.country,
        address: input.address,
        level,
        verificationUrl: started.verificationUrl,
        providerSessionId: started.applicantId,
        status,
        review: started.review ? { status: started.review.status, labels: started.review.labels } : undefined,
      },
    });
    await tx.organization.update({ where: { id: ctx.org.id }, data: { kybStatus: status } });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "kyb.started",
        subjectType: "organization",
        subject: orgDid(ctx.org.id),
        data: { provider, level, sessionId: row.id, status, country: input.country, previousStatus: ctx.org.kybStatus },
      },
    );
    return row;
  });
  orgChanged(ctx.org.id);
  return {
    organizationDid: orgDid(ctx.org.id),
    kybStatus: status,
    sessionId: session.id,
    provider,
    verificationUrl: started.verificationUrl,
  };
}

/** A KYB review from a provider callback, inside the callback's transaction. */
export async function applyKybReview(tx: Tx, review: KybReview): Promise<void> {
  const session = await tx.kybSession.findFirst({
    where: { orgId: review.externalId, provider: review.provider, providerSessionId: review.applicantId },
    orderBy: { createdAt: "desc" },
  });
  if (!session) return;
  const [org] = await tx.$queryRaw<
    { kybStatus: KybStatus }[]
  >`SELECT "kybStatus" FROM organizations WHERE id = ${session.orgId}::uuid FOR NO KEY UPDATE`;
  const target = nextKybStatus(org!.kybStatus, kybStatusOf(review.status));
  await tx.kybSession.update({
    where: { id: session.id },
    data: { review: { status: review.status, labels: review.labels }, ...(target ? { status: target } : {}) },
  });
  if (!target) return;
  await tx.organization.update({ where: { id: session.orgId }, data: { kybStatus: target } });
  await appendAudit(
    tx,
    { orgId: session.orgId, actor: `system:kyc-provider:${review.provider}` },
    {
      action: `kyb.${target}`,
      subjectType: "organization",
      subject: orgDid(session.orgId),
      data: { provider: review.provider, sessionId: session.id, labels: review.labels, previousStatus: org!.kybStatus },
    },
  );
}

/** GET /v1/admin/organizations: the organization's KYB status and the businesses it submitted. */
export async function listOrganizations(ctx: ServiceContext) {
  const sessions = await ctx.db.kybSession.findMany({ where: { orgId: ctx.org.id }, orderBy: { createdAt: "desc" }, take: 100 });
  const org = (await ctx.db.organization.findUnique({ where: { id: ctx.org.id }, select: { id: true, name: true, kybStatus: true } }))!;
  return {
    organization: { organizationId: org.id, organizationDid: orgDid(org.id), name: org.name, kybStatus: org.kybStatus },
    businesses: sessions.map((s) => ({
      sessionId: s.id,
      legalName: s.legalName,
      registrationNumber: s.registrationNumber,
      country: s.country,
      provider: s.provider,
      status: s.status,
      labels: ((s.review as { labels?: string[] } | null)?.labels ?? []).map(String),
      createdAt: s.createdAt.toISOString(),
      updatedAt: s.updatedAt.toISOString(),
    })),
  };
}
