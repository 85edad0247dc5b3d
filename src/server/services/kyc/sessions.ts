import { randomBytes, randomUUID } from "node:crypto";
import { env } from "@/env";
import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { openPersonal, personKey, personKeyInsertSql, sealWithKey } from "../../crypto/person-box";
import { providerReferenceHash, sessionsWithReference } from "../../crypto/provider-reference";
import { type Db, Prisma } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { AppError, conflict, notFound, rateLimited } from "../../errors";
import { findAccount, personDidOf, personIdFromDid } from "../../platform/account-ref";
import { PLANS } from "../../platform/plans";
import { hitWindows } from "../../platform/rate-limit";
import { giveBackVerification, takeVerification } from "../../platform/verification-allowance";
import { isKycProviderConfigured, withFailover, withProvider } from "../../providers/kyc";
import { SANDBOX_IDENTITIES, sandboxCallback } from "../../providers/kyc/sandbox";
import type { KycProvider, ProviderName } from "../../providers/kyc/types";
import { appendAuditGrouped, type GroupedWrite } from "../audit";
import { ensureSandboxLists } from "../screening";
import { liveCreateToken } from "./create-tokens";
import { pidPresentationInsertSql } from "./eudi-pid";
import type { KycStartInput } from "./kyc.schema";
import { applyKycReview, handleProviderCallback } from "./review";
import { createRefusedForDuplicate } from "./unique-person";

export const DEFAULT_KYC_LEVEL = "basic-kyc";
/** docs/api/contract-decisions.md §4: KYC starts per organization and per client IP, per hour. */
export const KYC_START_BUDGET = { perOrg: 100, perIp: 20, windowSec: 3600 };

/**
 * The redirect the hosted flow may send the applicant back to: only a path under /identity on
 * this deployment's own public origin (no credentials in it); anything else is ignored, so a KYC
 * link can never be turned into an open redirect.
 */
export function honouredRedirect(raw: string | undefined): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const pub = new URL(env().BI_PUBLIC_URL);
  if (url.origin !== pub.origin || url.username || url.password) return null;
  if (url.pathname !== "/identity" && !url.pathname.startsWith("/identity/")) return null;
  return url.toString();
}

async function spendStartBudget(ctx: ServiceContext) {
  const { perOrg, perIp, windowSec } = KYC_START_BUDGET;
  // Both windows in one round trip; a start refused by one still counts in the other.
  const [org, ip] = await hitWindows(ctx.db, [
    { bucket: `kyc-start:org:${ctx.org.id}`, limit: perOrg, windowSec },
    { bucket: `kyc-start:ip:${ctx.org.id}:${ctx.clientIp}`, limit: perIp, windowSec },
  ]);
  if (org!.exceeded) throw rateLimited(org!.resetSec, "The organization's KYC-start budget for this hour is spent.");
  if (ip!.exceeded) throw rateLimited(ip!.resetSec, "Too many KYC starts from this address; retry later.");
}

/**
 * Takes one verification from the plan's monthly allowance (docs/decisions.md, "Plans"); at the
 * cap the start is refused with 429 until the month rolls over, and no provider is called.
 */
async function takeFromAllowance(ctx: ServiceContext, now: Date) {
  const plan = PLANS[ctx.org.plan];
  const take = await takeVerification(ctx.db, ctx.org.id, plan.verificationsPerMonth, now);
  if (take.taken) return;
  const retryAfterSec = Math.max(1, Math.ceil((take.resetAt.getTime() - now.getTime()) / 1000));
  throw new AppError(
    "RATE_LIMITED",
    `This organization has used the ${plan.verificationsPerMonth} KYC verifications of its ${plan.name} plan this month; new verifications open on ${take.resetAt.toISOString().slice(0, 10)} (UTC). ${plan.atVerificationCap}`,
    {
      reason: "monthly_verifications_used",
      retryAfterSec,
      plan: plan.id,
      verificationsPerMonth: plan.verificationsPerMonth,
      used: take.used,
      resetAt: take.resetAt.toISOString(),
    },
    { "Retry-After": String(retryAfterSec) },
  );
}

/** The person a KYC for this account continues: the bound one, else the one of its last session. */
async function personOfAccount(ctx: ServiceContext, accountDid: string) {
  const account = await findAccount(ctx.db, ctx.org.id, accountDid);
  const binding = await ctx.db.accountBinding.findFirst({ where: { orgId: ctx.org.id, accountId: account.id, revokedAt: null } });
  const session = binding
    ? null
    : await ctx.db.kycSession.findFirst({ where: { orgId: ctx.org.id, accountId: account.id }, orderBy: { createdAt: "desc" } });
  const personId = binding?.personId ?? session?.personId ?? null;
  const person = personId ? await ctx.db.person.findUnique({ where: { id: personId } }) : null;
  return { account, person };
}

/**
 * POST /v1/kyc/start. Person-first when no account is given. The provider is called before
 * anything is written (the person's id is chosen first and sent as the external id), so a provider
 * failure leaves no row behind; then the person, the session and the audit entry commit together.
 */
export async function startKyc(ctx: ServiceContext, input: KycStartInput) {
  if (input.provider && !isKycProviderConfigured(input.provider))
    throw conflict("provider_not_configured", `The identity provider ${input.provider} is not configured on this deployment.`);
  const found = input.accountDid ? await personOfAccount(ctx, input.accountDid) : { account: null, person: null };
  const account = found.account;
  // An erased person is never verified again: the account's next verification is a new person.
  const person = found.person?.erasedAt ? null : found.person;
  if (person?.kycStatus === "approved")
    throw conflict("already_approved", "This person is already approved; no new verification is needed.");
  if (person?.kycStatus === "rejected") throw conflict("kyc_rejected", "This person's verification was rejected; the decision is final.");
  await spendStartBudget(ctx);
  const takenAt = ctx.now();
  await takeFromAllowance(ctx, takenAt);
  try {
    return await startWithProvider(ctx, input, account, person);
  } catch (e) {
    // Nothing was written: the verification was not used.
    await giveBackVerification(ctx.db, ctx.org.id, takenAt);
    throw e;
  }
}

async function startWithProvider(
  ctx: ServiceContext,
  input: KycStartInput,
  account: Awaited<ReturnType<typeof personOfAccount>>["account"] | null,
  person: Awaited<ReturnType<typeof personOfAccount>>["person"],
) {
  const personId = person?.id ?? randomUUID();
  const level = input.levelName ?? person?.kycLevel ?? DEFAULT_KYC_LEVEL;
  const redirectUrl = honouredRedirect(input.redirectUrl);
  const start = (p: KycProvider) => p.startKyc({ externalId: personId, levelName: level, redirectUrl, publicUrl: env().BI_PUBLIC_URL });
  // A provider named in the request is the only one asked (no failover to another).
  const { value: started, provider } = input.provider
    ? await withProvider(input.provider, "kyc.start", start)
    : await withFailover("kyc.start", start);

  const personDid = personDidOf(issuerDid(), personId);
  const now = ctx.now();
  const at = utcTimestamp(now);
  // The provider's reference, the hosted link and the client address are sealed under the
  // person's key (docs/data-protection.md); the reference's keyed hash is how callbacks find it.
  // A new person's key is made here and written with them; a known person's is read (or made) first.
  const fresh = person ? null : randomBytes(32);
  const key = fresh ?? (await personKey(ctx.db, { id: personId, orgId: ctx.org.id }));
  const seal = (value: string) => (key ? sealWithKey(key, personId, value) : null);
  const sessionId = randomUUID();
  const writes: GroupedWrite[] = [
    fresh
      ? {
          sql: Prisma.sql`INSERT INTO people (id, "orgId", "kycStatus", "kycLevel", "kycProvider", "providerApplicantId", "createdAt", "updatedAt")
                          VALUES (${personId}::uuid, ${ctx.org.id}::uuid, 'pending', ${level}, ${provider}, ${seal(started.applicantId)}, ${at}, ${at})`,
          rows: 1,
        }
      : {
          sql: Prisma.sql`UPDATE people SET "kycStatus" = 'pending', "kycLevel" = ${level}, "kycProvider" = ${provider},
                            "providerApplicantId" = ${seal(started.applicantId)}, "updatedAt" = ${at}
                          WHERE id = ${personId}::uuid AND "orgId" = ${ctx.org.id}::uuid`,
          rows: 1,
        },
    ...(fresh ? [{ sql: personKeyInsertSql({ id: personId, orgId: ctx.org.id }, fresh), rows: 1 }] : []),
    {
      sql: Prisma.sql`INSERT INTO kyc_sessions (id, "orgId", "personId", "accountId", provider, level, "providerSessionId", "providerSessionIdHash",
                        "verificationUrl", "redirectUrl", status, "clientIp", "expiresAt", "createdAt", "updatedAt")
                      VALUES (${sessionId}::uuid, ${ctx.org.id}::uuid, ${personId}::uuid, ${account?.id ?? null}::uuid, ${provider}, ${level},
                        ${seal(started.applicantId)}, ${key ? providerReferenceHash(provider, started.applicantId) : null},
                        ${seal(started.verificationUrl) ?? ""}, ${redirectUrl}, 'pending', ${seal(ctx.clientIp)},
                        ${utcTimestamp(started.expiresAt)}, ${at}, ${at})`,
      rows: 1,
    },
  ];
  // The EU wallet's session is a presentation request for the person's PID, answered at /oid4vp/responses/{applicantId}.
  if (provider === "eudi_wallet")
    writes.push({
      sql: pidPresentationInsertSql({
        id: started.applicantId,
        orgId: ctx.org.id,
        kycSessionId: sessionId,
        expiresAt: started.expiresAt,
        now,
      }),
      rows: 1,
    });
  // One statement: the person, their key, the session and the audit entry commit together or not at all.
  await appendAuditGrouped(ctx.db, ctx.org.id, {
    actor: ctx.actor,
    input: {
      action: "kyc.started",
      subjectType: "person",
      subject: personDid,
      data: { provider, level, sessionId, accountDid: account?.did ?? null, personFirst: !account },
    },
    writes,
  });
  return {
    personDid,
    verificationUrl: started.verificationUrl,
    accessToken: started.accessToken,
    expiresAt: started.expiresAt.toISOString(),
    provider,
    redirectUrl,
  };
}

async function findPerson(db: Db, orgId: string, personDid: string) {
  const id = personIdFromDid(issuerDid(), personDid);
  const person = id ? await db.person.findFirst({ where: { id, orgId } }) : null;
  if (!person) throw notFound("Person");
  return person;
}

/**
 * A session's provider reference, opened with the person's data key (a clear one, written before
 * references were sealed, as it is); null once the person's key is gone.
 */
async function openReference(db: Db, personId: string, stored: string): Promise<string | null> {
  const key = await db.personKey.findUnique({ where: { personId }, select: { keySealed: true } });
  return openPersonal(stored, key?.keySealed);
}

/** Pulls the current review of the person's latest session from its provider (the `refresh` of status). */
async function refreshFromProvider(ctx: ServiceContext, personId: string) {
  const session = await ctx.db.kycSession.findFirst({
    where: { orgId: ctx.org.id, personId, providerSessionId: { not: null } },
    orderBy: { createdAt: "desc" },
  });
  const applicantId = session?.providerSessionId ? await openReference(ctx.db, session.personId, session.providerSessionId) : null;
  if (!session || !applicantId) return;
  const { value: review } = await withProvider(session.provider as ProviderName, "kyc.refresh", (p) =>
    p.fetchReview(applicantId, personId),
  );
  await ensureSandboxLists(ctx.db);
  await ctx.db.$transaction((tx) => applyKycReview(tx, review, `system:kyc-refresh:${session.provider}`), {
    timeout: 30_000,
    maxWait: 10_000,
  });
}

/** GET /v1/kyc/status. `refresh` asks the provider only while the person is not yet approved. */
export async function kycStatus(ctx: ServiceContext, query: { personDid: string; refresh?: string }) {
  let person = await findPerson(ctx.db, ctx.org.id, query.personDid);
  if ((query.refresh === "1" || query.refresh === "true") && person.kycStatus !== "approved") {
    await refreshFromProvider(ctx, person.id);
    person = await findPerson(ctx.db, ctx.org.id, query.personDid);
  }
  // An erased person is never handed a create token again.
  // Nor is a person with another's document when the organization refuses duplicates (docs/api/guides/unique-person.md).
  const refused = createRefusedForDuplicate(person, ctx.org.duplicatePersonPolicy);
  const token =
    person.kycStatus === "approved" && !person.erasedAt && !refused ? await liveCreateToken(ctx.db, ctx.org.id, person.id) : null;
  return {
    personDid: personDidOf(issuerDid(), person.id),
    status: person.kycStatus,
    level: person.kycLevel,
    provider: person.kycProvider,
    country: person.country,
    pepFlag: person.pepFlag,
    sanctionsFlag: person.sanctionsFlag,
    riskScore: person.riskScore,
    applicantIdHash: person.applicantIdHash,
    reviewedAt: person.reviewedAt?.toISOString() ?? null,
    ...(token ? { createToken: token.token, createTokenExpiresAt: token.expiresAt.toISOString() } : {}),
    ...(person.pairwiseId ? { pairwiseId: person.pairwiseId } : {}),
    ...(person.duplicateOf ? { duplicateOf: person.duplicateOf, ...(refused ? { createRefused: true } : {}) } : {}),
  };
}

type SandboxOutcome = "approved" | "rejected" | "retry" | "pep" | "sanctions";

/**
 * The sandbox provider delivers a review exactly as a real provider would: a signed callback body
 * that goes through the same verification and the same once-per-event application.
 */
async function deliverSandboxReview(
  db: Db,
  session: { applicantId: string; personId: string },
  outcome: SandboxOutcome,
  documentNumber?: string,
) {
  const identity = SANDBOX_IDENTITIES[outcome];
  const { rawBody, headers } = sandboxCallback({
    applicantId: session.applicantId,
    externalId: session.personId,
    outcome,
    identity: documentNumber
      ? { ...identity, document: { country: identity.country ?? "GH", type: "PASSPORT", number: documentNumber } }
      : identity,
  });
  await handleProviderCallback(db, "sandbox", rawBody, headers);
}

/** The hosted sandbox page (`/identity/sandbox/{applicantId}`): the applicant picks a test document. */
export async function completeSandboxHosted(db: Db, applicantId: string, outcome: SandboxOutcome, documentNumber?: string) {
  const session = await db.kycSession.findFirst({
    where: sessionsWithReference("sandbox", applicantId),
    orderBy: { createdAt: "desc" },
  });
  if (!session) throw notFound("Verification session");
  if (session.expiresAt <= new Date()) throw conflict("session_expired", "This verification link has expired; start a new verification.");
  await deliverSandboxReview(db, { applicantId, personId: session.personId }, outcome, documentNumber);
  const person = (await db.person.findUnique({ where: { id: session.personId } }))!;
  return { personDid: personDidOf(issuerDid(), person.id), status: person.kycStatus, redirectUrl: session.redirectUrl };
}

/** POST /v1/sandbox/kyc/complete (docs/api/contract-decisions.md §8): what the hosted page does, for tenants' tests. */
export async function completeSandboxKyc(
  ctx: ServiceContext,
  input: { personDid: string; outcome: SandboxOutcome; documentNumber?: string },
) {
  const person = await findPerson(ctx.db, ctx.org.id, input.personDid);
  const session = await ctx.db.kycSession.findFirst({
    where: { orgId: ctx.org.id, personId: person.id, provider: "sandbox" },
    orderBy: { createdAt: "desc" },
  });
  if (!session) throw conflict("no_sandbox_session", "This person has no sandbox verification session; call POST /v1/kyc/start first.");
  const applicantId = session.providerSessionId ? await openReference(ctx.db, person.id, session.providerSessionId) : null;
  if (!applicantId) throw conflict("no_sandbox_session", "This person has no sandbox verification session; call POST /v1/kyc/start first.");
  await deliverSandboxReview(ctx.db, { applicantId, personId: session.personId }, input.outcome, input.documentNumber);
  const after = (await ctx.db.person.findUnique({ where: { id: person.id } }))!;
  return { personDid: personDidOf(issuerDid(), after.id), status: after.kycStatus, redirectUrl: session.redirectUrl };
}
