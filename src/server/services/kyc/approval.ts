import type { Person } from "@/generated/prisma/client.ts";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Tx } from "../../db/client";
import { personDidOf } from "../../platform/account-ref";
import { emitEvent } from "../../platform/outbox";
import type { KycReview } from "../../providers/kyc/types";
import { recordScreeningHit } from "../aml";
import { rememberScreeningSubject, screenPerson } from "../screening";
import { recordHuman } from "./unique-person";

/**
 * What a review sets off, in the transaction that applies it: on approval the `kyc.approved`
 * event and screening of the identity the provider verified against the sanctions and PEP lists
 * (the attributes are held in memory only); on any review, the provider's own PEP or sanctions
 * finding. A hit raises the person's flags, opens or escalates an AML case and emits
 * `aml.sanctions_hit`, all committing with the review.
 */
export async function onKycReviewed(tx: Tx, person: Person, review: KycReview, approved: boolean): Promise<void> {
  const personDid = personDidOf(issuerDid(), person.id);
  if (approved) await emitEvent(tx, person.orgId, "kyc.approved", { personDid, level: person.kycLevel });
  if (approved) {
    // One person, one account: the human behind the verified document, and duplicates in the organization.
    const org = await tx.organization.findUniqueOrThrow({ where: { id: person.orgId }, select: { duplicatePersonPolicy: true } });
    await recordHuman(tx, person, review.identity, org.duplicatePersonPolicy, review.provider === "sandbox" ? person.id : null);
  }
  const screened =
    approved && review.identity.fullName
      ? await screenPerson(tx, {
          orgId: person.orgId,
          subjectRef: personDid,
          name: review.identity.fullName,
          birthDate: review.identity.birthDate,
          country: review.identity.country ?? person.country,
        })
      : null;
  // Kept sealed for ongoing screening: a later list change re-screens this person (docs/decisions.md, "Screening").
  if (approved && review.identity.fullName) {
    await rememberScreeningSubject(tx, {
      orgId: person.orgId,
      personId: person.id,
      name: review.identity.fullName,
      birthDate: review.identity.birthDate,
      country: review.identity.country ?? person.country,
    });
  }
  const hit = reviewHit(review, screened, person.country);
  if (!hit) return;
  await recordScreeningHit(tx, { orgId: person.orgId, personId: person.id, subjectDid: personDid, ...hit });
}

/**
 * The hit a review raises, if any: screening's match on the lists (approval only) or the
 * provider's own PEP or sanctions finding, with the identity as the provider verified it and the
 * provider's finding for the case's evidence. `country` is the person's after the review.
 */
export function reviewHit(
  review: KycReview,
  screened: { sanctions: boolean; pep: boolean; score: number; resultId: string } | null,
  country: string | null,
) {
  const sanctions = !!screened?.sanctions || review.sanctions;
  const pep = !!screened?.pep || review.pep;
  if (!sanctions && !pep) return null;
  return {
    outcome: {
      sanctions,
      pep,
      severity: sanctions ? ("critical" as const) : ("high" as const),
      score: Math.max(screened?.score ?? 0, review.sanctions ? 100 : review.pep ? 80 : 0),
      resultId: screened?.resultId ?? null,
    },
    actor: `system:kyc-provider:${review.provider}`,
    // The case's evidence keeps the identity as the provider verified it, and the provider's own finding.
    subject: { name: review.identity.fullName, birthDate: review.identity.birthDate, country: review.identity.country ?? country },
    provider:
      review.pep || review.sanctions
        ? { name: review.provider, sanctions: review.sanctions, pep: review.pep, labels: review.labels }
        : undefined,
  };
}
