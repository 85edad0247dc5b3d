import { personLabel } from "@/lib/person-label";
import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { isPersonSealed, openStored, sealedPersonId } from "../../crypto/person-box";
import { notFound } from "../../errors";
import { personDidOf, personIdOfRef } from "../../platform/account-ref";
import { actorNames, auditTrail, mayReadAmlDetail } from "../audit";
import { personSummary } from "./people";

type StoredScreening = {
  listVersions?: { id: string; list: string; versionHash?: string }[];
  matches?: {
    entryId: string;
    list: string;
    listVersionId?: string;
    externalId?: string;
    name: string;
    topics?: string[];
    score: number;
  }[];
};

type DuplicateMatch = "document" | "name_birth";

/**
 * One person of the caller's organization as the console's person page shows them: KYC, flags,
 * stored screenings, AML cases, bindings and accounts, and the audit entries about them. Looked up
 * by id or person DID; anything else, or another organization's person, is 404.
 *
 * For readers of AML detail (`mayReadAmlDetail`), also the person's pairwise id and, when their
 * approval found other people of the organization with the same document or the same name, birth
 * date and nationality (services/kyc/unique-person.ts), those people. Below that bar both are
 * null: a possible duplicate is a suspicion about the person, told only where AML work is.
 */
export async function getPersonDetail(ctx: ServiceContext, ref: string) {
  const issuer = issuerDid();
  const id = personIdOfRef(issuer, ref);
  const person = id ? await ctx.db.person.findFirst({ where: { id, orgId: ctx.org.id } }) : null;
  if (!person) throw notFound("Person");
  const did = personDidOf(issuer, person.id);
  const orgId = ctx.org.id;
  const amlDetail = mayReadAmlDetail(ctx.actor);
  const [screenings, cases, bindings, audit, duplicates, key] = await Promise.all([
    ctx.db.screeningResult.findMany({
      where: { orgId, subjectType: "person", subjectRef: { in: [did, person.id] } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 20,
    }),
    ctx.db.amlCase.findMany({ where: { orgId, OR: [{ personId: person.id }, { subjectDid: did }] }, orderBy: { createdAt: "desc" } }),
    ctx.db.accountBinding.findMany({
      where: { orgId, personId: person.id },
      orderBy: { createdAt: "desc" },
      include: { account: { select: { did: true, name: true, chain: true, lifecycle: true } } },
    }),
    auditTrail(ctx.db, orgId, { subjects: [did] }, 100, ctx.actor),
    amlDetail && person.duplicateOf && person.duplicatePersonIds.length
      ? ctx.db.person.findMany({ where: { orgId, id: { in: person.duplicatePersonIds } } })
      : Promise.resolve([]),
    ctx.db.personKey.findUnique({ where: { personId: person.id }, select: { keySealed: true } }),
  ]);
  // A case opened by hand has the officer's words in its reason, sealed under the person's key
  // (services/aml/case-text.ts): opened here, "[erased]" once the key is gone.
  const caseReason = (r: string) =>
    isPersonSealed(r) && sealedPersonId(r) === person.id ? (openStored(r, key?.keySealed) ?? "[erased]") : r;
  const names = await actorNames(
    ctx.db,
    orgId,
    cases.flatMap((c) => [c.openedBy, c.proposedBy, c.approvedBy, c.confirmedBy]),
  );
  const nameOf = (a: string | null) => (a ? (names.get(a) ?? a) : null);
  const accounts = new Map<string, { accountDid: string; name: string; chain: string; lifecycle: string }>();
  for (const b of bindings) accounts.set(b.account.did, { accountDid: b.account.did, ...b.account });
  const summary = personSummary(person, issuer);
  // In the order the approval recorded them (oldest first); someone since deleted is left out.
  const byId = new Map(duplicates.map((d) => [d.id, d]));
  const others = person.duplicatePersonIds.flatMap((otherId) => {
    const other = byId.get(otherId);
    if (!other) return [];
    const s = personSummary(other, issuer);
    return [
      {
        personDid: s.personDid,
        id: other.id,
        label: personLabel(s),
        kycStatus: other.kycStatus,
        approvedAt: other.reviewedAt?.toISOString() ?? null,
        erased: other.erasedAt !== null,
      },
    ];
  });
  const duplicate: { match: DuplicateMatch; people: typeof others } | null =
    others.length && (person.duplicateOf === "document" || person.duplicateOf === "name_birth")
      ? { match: person.duplicateOf, people: others }
      : null;
  return {
    ...summary,
    id: person.id,
    label: personLabel(summary),
    reviewedAt: person.reviewedAt?.toISOString() ?? null,
    pairwiseId: amlDetail ? person.pairwiseId : null,
    duplicate,
    screenings: screenings.map((r) => {
      const d = (r.detail ?? {}) as StoredScreening;
      return {
        resultId: r.id,
        screenedAt: r.createdAt.toISOString(),
        severity: r.severity,
        score: r.score,
        sanctions: r.sanctionsHit,
        pep: r.pepHit,
        listVersions: (d.listVersions ?? []).map((v) => ({ list: v.list, versionHash: v.versionHash ?? v.id })),
        matches: (d.matches ?? []).map((m) => ({
          list: m.list,
          name: m.name,
          externalId: m.externalId ?? m.entryId,
          topics: m.topics ?? [],
          score: m.score,
        })),
      };
    }),
    amlCases: cases.map((c) => ({
      caseId: c.id,
      status: c.status,
      priority: c.priority,
      reason: caseReason(c.reason),
      openedBy: nameOf(c.openedBy)!,
      proposedBy: nameOf(c.proposedBy),
      approvedBy: nameOf(c.approvedBy),
      confirmedBy: nameOf(c.confirmedBy),
      createdAt: c.createdAt.toISOString(),
      closedAt: c.closedAt?.toISOString() ?? null,
    })),
    bindings: bindings.map((b) => ({
      bindingId: b.id,
      accountDid: b.account.did,
      accountName: b.account.name,
      bindingVcHash: b.bindingVcHash,
      createdAt: b.createdAt.toISOString(),
      revokedAt: b.revokedAt?.toISOString() ?? null,
    })),
    accounts: [...accounts.values()],
    // The duplicate's own audit entry names the other people: told only with the duplicate.
    audit: amlDetail ? audit : audit.filter((e) => e.action !== "kyc.duplicate_person"),
  };
}
