import type { ScreeningResult } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { conflict, notFound } from "../../errors";
import { personDidOf } from "../../platform/account-ref";
import { readScreeningDetail, recordScreeningHit } from "../aml";
import { appendAudit, uniqueKeyTaken } from "../audit";
import { ensureSandboxLists } from "./sandbox-lists";
import { type Severity, screenAccount, screenPerson } from "./screen";
import type { DenylistAddInput, ScreenApplicantInput } from "./screening.schema";

const RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 };
const worst = (a: Severity | null, b: Severity | null) => (!a ? b : !b ? a : RANK[a] >= RANK[b] ? a : b);

function screeningView(r: ScreeningResult, source: "fresh" | "stored") {
  const d = readScreeningDetail(r.detail);
  return {
    source,
    resultId: r.id,
    screenedAt: r.createdAt.toISOString(),
    sanctions: r.sanctionsHit,
    pep: r.pepHit,
    severity: r.severity,
    score: r.score,
    listVersions: (d.listVersions ?? []).map((v) => v.id),
    matches: (d.matches ?? []).map((m) => ({
      entryId: m.entryId,
      list: m.list,
      listVersionId: m.listVersionId,
      externalId: m.externalId,
      name: m.name,
      topics: m.topics,
      score: m.score,
    })),
  };
}

/**
 * POST /v1/aml/screen-applicant. Looks the applicant id hash up in the organization's people and
 * its denylist. With `fullName` the lists are screened now (stored and audited; a hit on a known
 * person raises its flags and opens or escalates its AML case); without it the
 * person's latest stored screening is answered. An unknown hash with no name and no denylist
 * entry is 404, like any record of another organization.
 */
export async function screenApplicant(ctx: ServiceContext, input: ScreenApplicantInput) {
  const orgId = ctx.org.id;
  const [person, denied] = await Promise.all([
    ctx.db.person.findFirst({ where: { orgId, applicantIdHash: input.applicantIdHash }, orderBy: { createdAt: "desc" } }),
    ctx.db.applicantDenylistEntry.findUnique({ where: { orgId_applicantIdHash: { orgId, applicantIdHash: input.applicantIdHash } } }),
  ]);
  const personDid = person ? personDidOf(issuerDid(), person.id) : null;
  let screening: ReturnType<typeof screeningView> | null = null;
  let flags = person ? { pepFlag: person.pepFlag, sanctionsFlag: person.sanctionsFlag } : null;
  if (input.fullName) {
    await ensureSandboxLists(ctx.db);
    screening = await ctx.db.$transaction(async (tx) => {
      const out = await screenPerson(tx, {
        orgId,
        subjectType: person ? "person" : "applicant",
        subjectRef: personDid ?? input.applicantIdHash,
        name: input.fullName!,
        birthDate: input.birthDate,
        country: input.country,
      });
      // A hit on a known person raises flags and opens or escalates a case, as at KYC approval.
      // recordScreeningHit locks the person before our audit append locks the chain head (lock order).
      const hit = person
        ? await recordScreeningHit(tx, {
            orgId,
            personId: person.id,
            subjectDid: personDid!,
            outcome: { sanctions: out.sanctions, pep: out.pep, severity: out.severity, score: out.score, resultId: out.resultId },
            actor: ctx.actor,
          })
        : null;
      if (hit) flags = { pepFlag: person!.pepFlag || out.pep, sanctionsFlag: person!.sanctionsFlag || out.sanctions };
      await appendAudit(
        tx,
        { orgId, actor: ctx.actor },
        {
          action: "aml.screened",
          subjectType: person ? "person" : "applicant",
          subject: personDid ?? input.applicantIdHash,
          data: {
            resultId: out.resultId,
            severity: out.severity,
            score: out.score,
            sanctions: out.sanctions,
            pep: out.pep,
            denylisted: !!denied,
          },
        },
      );
      return screeningView(await tx.screeningResult.findUniqueOrThrow({ where: { id: out.resultId } }), "fresh");
    });
  } else if (person) {
    const stored = await ctx.db.screeningResult.findFirst({
      where: { orgId, subjectType: "person", subjectRef: { in: [personDid!, person.id] } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    screening = stored ? screeningView(stored, "stored") : null;
  } else if (!denied) {
    throw notFound("An applicant with this id hash");
  }
  return {
    applicantIdHash: input.applicantIdHash,
    personDid,
    denylisted: !!denied,
    denylist: denied ? { reason: denied.reason, addedAt: denied.createdAt.toISOString() } : null,
    flags,
    screening,
    severity: worst(screening?.severity ?? null, denied ? "critical" : null),
  };
}

/** POST /v1/aml/screen-account: the account's labels and score, stored and audited. */
export async function screenAccountFor(ctx: ServiceContext, input: { chainAccount: string }) {
  await ensureSandboxLists(ctx.db);
  return ctx.db.$transaction(async (tx) => {
    const out = await screenAccount(tx, { orgId: ctx.org.id, chainAccount: input.chainAccount });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "aml.account_screened",
        subjectType: "account",
        subject: input.chainAccount,
        data: { resultId: out.resultId, score: out.score, labels: out.labels, severity: out.severity },
      },
    );
    return { chainAccount: input.chainAccount, ...out };
  });
}

const denylistView = (e: { applicantIdHash: string; reason: string; addedBy: string; createdAt: Date }) => ({
  applicantIdHash: e.applicantIdHash,
  reason: e.reason,
  addedBy: e.addedBy,
  createdAt: e.createdAt.toISOString(),
});

/** Adds an applicant id hash to the organization's denylist; the same hash twice is 409. */
export async function addToDenylist(ctx: ServiceContext, input: DenylistAddInput) {
  // A concurrent add of the same hash passes the read and meets the unique key at the insert.
  return addToDenylistIn(ctx, input).catch((err: unknown) => {
    if (uniqueKeyTaken(err)) throw conflict("already_denylisted", "This applicant is already on the denylist.");
    throw err;
  });
}

function addToDenylistIn(ctx: ServiceContext, input: DenylistAddInput) {
  return ctx.db.$transaction(async (tx) => {
    const where = { orgId_applicantIdHash: { orgId: ctx.org.id, applicantIdHash: input.applicantIdHash } };
    if (await tx.applicantDenylistEntry.findUnique({ where }))
      throw conflict("already_denylisted", "This applicant is already on the denylist.");
    const entry = await tx.applicantDenylistEntry.create({
      data: { orgId: ctx.org.id, applicantIdHash: input.applicantIdHash, reason: input.reason, addedBy: actorId(ctx.actor) },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "aml.denylist_added",
        subjectType: "applicant",
        subject: input.applicantIdHash,
        data: { reason: input.reason },
      },
    );
    return denylistView(entry);
  });
}

export async function listDenylist(ctx: ServiceContext) {
  const entries = await ctx.db.applicantDenylistEntry.findMany({
    where: { orgId: ctx.org.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
  });
  return { entries: entries.map(denylistView) };
}

/** Removes a hash from the denylist; one that is not on this organization's list is 404. */
export async function removeFromDenylist(ctx: ServiceContext, applicantIdHash: string) {
  const hash = applicantIdHash.toLowerCase();
  return ctx.db.$transaction(async (tx) => {
    const removed = await tx.applicantDenylistEntry.deleteMany({ where: { orgId: ctx.org.id, applicantIdHash: hash } });
    if (removed.count === 0) throw notFound("The denylist entry");
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      { action: "aml.denylist_removed", subjectType: "applicant", subject: hash },
    );
    return { applicantIdHash: hash, removed: true as const };
  });
}
