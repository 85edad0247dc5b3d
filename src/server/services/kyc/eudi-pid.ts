import type { Jwk } from "@openid4vc/oauth2";
import { publicUrl } from "@/env";
import { randomToken } from "../../crypto/hash";
import { Prisma } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { EUDI_PID_VCT, pidTrustList } from "../../providers/kyc";
import type { KycReview } from "../../providers/kyc/types";
import { ensureSandboxLists } from "../screening";
import { dcqlQueryFor, registerPresentationKind } from "../wallet";
import { applyKycReview } from "./review";

/**
 * Identity verification with the EU digital identity wallet (KYC provider `eudi_wallet`): the
 * person presents their PID (SD-JWT VC, vct `urn:eudi:pid:1`) over OpenID4VP, answering a
 * presentation request of kind `kyc_pid` that was created with the KYC session. A PID signed by
 * a trusted issuer (providers/kyc/eudi-wallet.ts: EUDI_PID_TRUST_LIST, and the sandbox's test
 * issuer in the sandbox), unexpired, bound to the wallet's key and disclosing every claim below
 * approves the person through applyKycReview, the path every provider's approval takes
 * (screening, risk, audit). The PID's values are used in memory for that and never stored: the
 * presentation keeps no disclosed values, the session only the review summary.
 */

export { SANDBOX_PID_ISSUER, sandboxPidIssuer } from "../../providers/kyc";

/**
 * The PID claims every level asks for (one list, whatever the level): the name and birth date
 * that screening and duplicate detection need, and the nationality that gives the country.
 */
export const PID_CLAIMS = ["family_name", "given_name", "birthdate", "nationalities"] as const;
/** The DCQL credential query id of the PID. */
export const PID_QUERY_ID = "pid";
const ACTOR = "system:eudi-wallet";

const LABELS: Record<(typeof PID_CLAIMS)[number], { label: string; description: string }> = {
  family_name: { label: "Family name", description: "Your family name (surname), as your identity document states it" },
  given_name: { label: "Given name", description: "Your given names, as your identity document states them" },
  birthdate: { label: "Date of birth", description: "The day you were born" },
  nationalities: { label: "Nationality", description: "The countries whose nationality you hold" },
};

/**
 * The statement that writes the presentation request of a new `eudi_wallet` KYC session, committed
 * with the session: its id is the session's applicant id, so the hosted consent page
 * `/wallet/present/{id}` is the session's verification URL.
 */
export function pidPresentationInsertSql(input: {
  id: string;
  orgId: string;
  kycSessionId: string;
  expiresAt: Date;
  now: Date;
}): Prisma.Sql {
  const claims = [...PID_CLAIMS];
  return Prisma.sql`INSERT INTO wallet_presentations (id, "orgId", kind, "dcqlQuery", claims, "kycSessionId", nonce, "expiresAt", "createdAt")
    VALUES (${input.id}::uuid, ${input.orgId}::uuid, 'kyc_pid', ${JSON.stringify(dcqlQueryFor(EUDI_PID_VCT, claims, PID_QUERY_ID))}::jsonb,
      ${claims}::text[], ${input.kycSessionId}::uuid, ${randomToken(24)}, ${utcTimestamp(input.expiresAt)}, ${utcTimestamp(input.now)})`;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
const date = (v: unknown) => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null);
const country = (v: unknown) => (typeof v === "string" && /^[A-Za-z]{2}$/.test(v) ? v.toUpperCase() : null);

/** The review a verified PID amounts to; `retry` (label PID_UNREADABLE) when a value is not in the rulebook's form. */
export function reviewOfPid(payload: Record<string, unknown>, applicantId: string, personId: string, now: Date): KycReview {
  const given = text(payload.given_name);
  const family = text(payload.family_name);
  const birthDate = date(payload.birthdate);
  const nationality = Array.isArray(payload.nationalities) ? country(payload.nationalities[0]) : null;
  const readable = !!given && !!family && !!birthDate && !!nationality;
  return {
    provider: "eudi_wallet",
    applicantId,
    externalId: personId,
    status: readable ? "approved" : "retry",
    labels: readable ? [] : ["PID_UNREADABLE"],
    pep: false,
    sanctions: false,
    country: nationality,
    identity: readable ? { fullName: `${given} ${family}`, birthDate, country: nationality, nationality } : {},
    reviewedAt: now.toISOString(),
  };
}

registerPresentationKind("kyc_pid", {
  issuerKeys: async () => {
    const list = pidTrustList();
    return (iss) => (list.find((e) => e.issuer === iss)?.keys as Jwk[] | undefined) ?? null;
  },
  vct: () => [EUDI_PID_VCT],
  labels: LABELS,
  keepDisclosed: false,
  redirectUri: (row) => publicUrl(`/wallet/present/${row.id}`),
  // The sandbox's fixture screening lists load (once) outside the review's transaction, as for a provider callback.
  prepare: async (db) => {
    await ensureSandboxLists(db);
  },
  completed: async (tx, row, verified, now) => {
    if (!row.kycSessionId) return;
    const session = await tx.kycSession.findUnique({ where: { id: row.kycSessionId }, select: { personId: true } });
    if (!session) return;
    await applyKycReview(tx, reviewOfPid(verified.payload, row.id, session.personId, now), ACTOR);
  },
});
