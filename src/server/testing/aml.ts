import type { Actor, ServiceContext } from "../context";
import { issuerDid } from "../crypto/issuer-keys";
import type { Db } from "../db/client";
import { logger } from "../log";
import { personDidOf, personIdFromDid } from "../platform/account-ref";
import { recordScreeningHit } from "../services/aml";
import type { ScreeningOutcome } from "../services/aml/aml.schema";
import { insertApiKey } from "../services/org/api-keys";

/** Another API key of the organization (another identity for four-eyes checks). */
export async function extraKey(
  db: Db,
  orgId: string,
  name = "second officer",
  scopes: Parameters<typeof insertApiKey>[2]["scopes"] = ["compliance_export"],
) {
  const { key, raw } = await db.$transaction((tx) => insertApiKey(tx, orgId, { name, scopes, createdBy: "system:test" }));
  return { id: key.id, raw, actor: `api_key:${key.id}` };
}

export const didOf = (personId: string) => personDidOf(issuerDid(), personId);

/** A person as KYC leaves it (the KYC flow is another area's), optionally already flagged. */
export async function person(db: Db, orgId: string, flags: { pepFlag?: boolean; sanctionsFlag?: boolean; riskScore?: number } = {}) {
  const p = await db.person.create({ data: { orgId, kycStatus: "approved", kycProvider: "sandbox", country: "GH", ...flags } });
  return { ...p, did: didOf(p.id) };
}

/** A person with a screening hit recorded the way KYC approval records it: flags up and an open case. */
export async function flaggedPerson(db: Db, orgId: string, outcome: Partial<ScreeningOutcome> = {}) {
  const p = await person(db, orgId);
  const hit = await db.$transaction((tx) =>
    recordScreeningHit(tx, {
      orgId,
      personId: p.id,
      subjectDid: p.did,
      outcome: { sanctions: false, pep: true, severity: "high", score: 72, resultId: null, ...outcome },
      actor: "system:screening",
    }),
  );
  return { person: p, caseId: hit!.caseId };
}

/**
 * A screening hit on an existing person (bound by the KYC flow, say), recorded as screening
 * records it, with an open case: a critical sanctions match unless `outcome` says otherwise.
 */
export const screeningHit = (db: Db, orgId: string, personDid: string, outcome: Partial<ScreeningOutcome> = {}) =>
  db.$transaction((tx) =>
    recordScreeningHit(tx, {
      orgId,
      personId: personIdFromDid(issuerDid(), personDid)!,
      subjectDid: personDid,
      outcome: { sanctions: true, pep: false, severity: "critical", score: 97, resultId: null, ...outcome },
      actor: "system:screening",
    }),
  );

/** A ServiceContext as a door builds it, for calling services directly with a chosen actor. */
export async function serviceCtx(db: Db, orgId: string, actor: Actor): Promise<ServiceContext> {
  const org = await db.organization.findUniqueOrThrow({ where: { id: orgId } });
  return { db, org, actor, correlationId: "test", clientIp: "127.0.0.1", log: logger(), now: () => new Date() };
}
