import { randomUUID } from "node:crypto";
import type { Account, Organization, Person } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { randomToken } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { Prisma, rawQuery } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { type AppError, conflict, forbidden, notFound } from "../../errors";
import { accountRef, findAccount, personDidOf, personIdFromDid } from "../../platform/account-ref";
import { attestationChangedSql } from "../../platform/attestation-sync";
import { eventInsertSql } from "../../platform/outbox";
import { createProofChallenge, verifyWalletProof, type WalletProof } from "../../platform/wallet-proof";
import { deploymentChain } from "../../providers/chain";
import { decideRisk, planRisk, type RiskCounts, type RiskPlan, riskCountColumns } from "../aml";
import { appendAudit, appendAuditGrouped, failedGroupedWrite, type GroupedWrite, uniqueKeyTaken } from "../audit";
import { payloadToSign } from "../contacts";
import {
  DRAWS_BEFORE_NEW_LIST,
  drawStatusPositions,
  pickStatusPositions,
  type StatusCandidates,
  type StatusPosition,
  statusCandidates,
  statusEntryJson,
  statusPositionSql,
  takenStatusSql,
} from "../credential-status";
import { bindRiskCheck } from "./bind-risk";
import { issueAccountBindingCredential } from "./credentials";
import { assertReinstatingSigner, keyChangedBinding, reinstateBinding } from "./reinstate";

/** docs/api/contract-decisions.md §4: a bind nonce is valid 10 minutes, single use. */
export const BIND_NONCE_TTL_SEC = 10 * 60;

export type CountryDecision = { allowed: true } | { allowed: false; rule: 1 | 2 | 3; message: string };

/**
 * The contract's country policy rules, applied at bind: (1) blocked wins; (2) absent from a
 * non-empty allow list is refused; (3) with either list set, an unknown country is refused;
 * (4) empty lists restrict nothing. (Rule 5, omitted fields unchanged, is the policy update's.)
 */
export function countryDecision(
  policy: Pick<Organization, "allowedCountries" | "blockedCountries">,
  country: string | null,
): CountryDecision {
  const c = country?.toUpperCase() ?? null;
  if (c && policy.blockedCountries.includes(c))
    return { allowed: false, rule: 1, message: "The person's country is blocked by this organization's country policy." };
  if (c && policy.allowedCountries.length && !policy.allowedCountries.includes(c)) {
    return { allowed: false, rule: 2, message: "The person's country is not on this organization's allowed list." };
  }
  if (!c && (policy.allowedCountries.length || policy.blockedCountries.length)) {
    return { allowed: false, rule: 3, message: "The person's country is unknown and this organization restricts countries." };
  }
  return { allowed: true };
}

export async function loadSubjects(ctx: ServiceContext, input: { accountDid: string; personDid: string }) {
  const account = await findAccount(ctx.db, ctx.org.id, input.accountDid);
  const personId = personIdFromDid(issuerDid(), input.personDid);
  const person = personId ? await ctx.db.person.findFirst({ where: { id: personId, orgId: ctx.org.id } }) : null;
  if (!person) throw notFound("Person");
  if (person.erasedAt) throw conflict("person_erased", "This person has been erased; nothing can be bound to them.");
  return { account, person };
}

/** Checks the account and person may be bound; `reinstating` is a binding suspended for a key change, signed again. */
function assertBindable(account: Pick<Account, "lifecycle">, person: Pick<Person, "kycStatus">, reinstating = false) {
  if (account.lifecycle === "suspended") throw conflict("account_suspended", "This account is suspended.");
  if (account.lifecycle !== "provisional" && !reinstating) throw conflict("already_bound", "This account is already bound to a person.");
  if (person.kycStatus !== "approved")
    throw conflict("person_not_approved", "The person's KYC is not approved; binding needs an approved person.");
}

/** Whether this account can be bound (or re-bound after a key change) to this person now; throws the refusal if not. */
export async function assertCanBind(ctx: ServiceContext, account: Account, person: Person): Promise<{ reinstating: boolean }> {
  const reinstating = !!(await keyChangedBinding(ctx.db, account, person));
  assertBindable(account, person, reinstating);
  return { reinstating };
}

/**
 * POST /v1/bind/challenge: a single-use nonce, the text the account's wallet signs, and the same
 * challenge as an ESR identity request and as a proof transaction to sign (wallet-proof.ts). A
 * hosted bind page's challenge names its session (bind-sessions.ts).
 */
export async function bindChallenge(
  ctx: ServiceContext,
  input: { accountDid: string; personDid: string },
  opts: { bindSessionId?: string } = {},
) {
  const { account, person } = await loadSubjects(ctx, input);
  const { reinstating } = await assertCanBind(ctx, account, person);
  const nonce = randomToken(24);
  const expiresAt = new Date(Date.now() + BIND_NONCE_TTL_SEC * 1000);
  const text = payloadToSign({
    action: reinstating ? "reinstate account binding with the account's current key" : "bind account to verified person",
    accountDid: account.did,
    subject: personDidOf(issuerDid(), person.id),
    nonce,
    expiresAt,
  });
  return createProofChallenge(ctx.db, {
    account,
    purpose: "bind",
    personId: person.id,
    nonce,
    text,
    expiresAt,
    bindSessionId: opts.bindSessionId,
  });
}

/** What bind confirm checks and writes of the account, the person, the challenge and a binding to reinstate. */
type ConfirmAccount = Pick<Account, "id" | "orgId" | "name" | "did" | "lifecycle">;
type ConfirmPerson = Pick<Person, "id" | "kycStatus" | "country" | "sanctionsFlag" | "kycLevel" | "pairwiseId"> & { erased: boolean };
type ConfirmNonce = {
  id: string;
  orgId: string;
  purpose: string;
  accountId: string;
  personId: string | null;
  nonce: string;
  payloadToSign: string;
  proofScope: string | null;
  consumed: boolean;
  /** Milliseconds since the epoch (the column is UTC without a zone). */
  expiresAtMs: number;
};
type ConfirmRow = {
  account: ConfirmAccount | null;
  person: ConfirmPerson | null;
  nonce: ConfirmNonce | null;
  reinstating: { id: string; signingPermissions: string[] } | null;
} & Partial<RiskCounts>;

/**
 * Bind confirm's one read (docs/performance.md, "Product paths"): the account by DID or bare name
 * as findAccount finds it (not pending), the person by id, the challenge by its nonce, the binding
 * of the two suspended for a key change, and, when `risk` is given, the risk assessment's counts,
 * all in one statement. Null where a row is missing; the caller checks in the order the separate
 * reads did. Null without a query when the account reference cannot name an account. It also
 * says which of the binding's candidate status positions are taken (`statusCandidates`).
 */
async function readConfirm(
  ctx: ServiceContext,
  input: { accountDid: string; nonce: string },
  personId: string | null,
  risk: RiskPlan | null,
  candidates: StatusCandidates,
): Promise<ConfirmRow | null> {
  const named = accountRef(input.accountDid);
  const org = ctx.org.id;
  if (!named) return null;
  // With the chain, the name is unique: the organization is compared as text so that the planner
  // takes that unique index, never an index of the organization's accounts filtered row by row
  // (which it chose for an organization newer than its statistics: 7,000 rows read for one). A
  // bare name is a name on this deployment's chain, as for findAccount.
  const chain = named.chain ?? deploymentChain();
  const where = Prisma.sql`chain = ${chain} AND name = ${named.name} AND "orgId"::text = ${org}`;
  const [row] = await rawQuery<ConfirmRow>(
    ctx.db,
    Prisma.sql`
    WITH a AS (SELECT id, "orgId", name, did, lifecycle FROM accounts
               WHERE ${where} AND lifecycle <> 'pending' LIMIT 1)
    SELECT
      (SELECT json_build_object('id', id, 'orgId', "orgId", 'name', name, 'did', did, 'lifecycle', lifecycle) FROM a) AS account,
      (SELECT json_build_object('id', p.id, 'kycStatus', p."kycStatus", 'erased', p."erasedAt" IS NOT NULL, 'country', p.country,
                                'sanctionsFlag', p."sanctionsFlag", 'kycLevel', p."kycLevel", 'pairwiseId', p."pairwiseId")
         FROM people p WHERE p.id = ${personId}::uuid AND p."orgId" = ${org}::uuid) AS person,
      (SELECT json_build_object('id', n.id, 'orgId', n."orgId", 'purpose', n.purpose, 'accountId', n."accountId", 'personId', n."personId",
                                'nonce', n.nonce, 'payloadToSign', n."payloadToSign", 'proofScope', n."proofScope",
                                'consumed', n."consumedAt" IS NOT NULL,
                                'expiresAtMs', floor(extract(epoch FROM n."expiresAt") * 1000))
         FROM signature_nonces n WHERE n.nonce = ${input.nonce}) AS nonce,
      (SELECT json_build_object('id', b.id, 'signingPermissions', b."signingPermissions")
         FROM account_bindings b JOIN a ON b."accountId" = a.id
        WHERE b."orgId" = ${org}::uuid AND b."personId" = ${personId}::uuid AND b.status = 'suspended'
          AND 'key_changed' = ANY (b."suspendedFor") LIMIT 1) AS reinstating
      ${risk ? Prisma.sql`, ${riskCountColumns(risk)}` : Prisma.empty}
      ${takenStatusSql(candidates)}`,
  );
  return row!;
}

/** The challenge's checks, in the order and with the answers of a challenge read on its own. */
function checkNonce(ctx: ServiceContext, row: ConfirmNonce | null, account: ConfirmAccount, person: ConfirmPerson) {
  if (!row || row.orgId !== ctx.org.id || row.purpose !== "bind" || row.accountId !== account.id || row.personId !== person.id)
    throw notFound("Bind challenge");
  if (row.consumed) throw conflict("nonce_used", "This nonce was already used; request a new challenge.");
  if (row.expiresAtMs <= Date.now()) throw conflict("nonce_expired", "This nonce has expired; request a new challenge.");
  return {
    id: row.id,
    nonce: row.nonce,
    payloadToSign: row.payloadToSign,
    proofScope: row.proofScope,
    expiresAt: new Date(row.expiresAtMs),
  };
}

/** A policy refusal (country, risk, AML hold) leaves an audit entry and nothing else. */
async function refuse(
  ctx: ServiceContext,
  account: Pick<Account, "did">,
  person: Pick<Person, "id">,
  reason: string,
  data: Record<string, string | number | null>,
  err: AppError,
  riskInsert?: Prisma.Sql,
): Promise<never> {
  await ctx.db.$transaction(async (tx) => {
    if (riskInsert) await tx.$executeRaw(riskInsert);
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "bind.refused",
        subjectType: "account",
        subject: account.did,
        data: { reason, personDid: personDidOf(issuerDid(), person.id), ...data },
      },
    );
  });
  throw err;
}

/**
 * POST /v1/bind/confirm. Checks first and writes nothing when the nonce, the signature or the
 * person's approval is wrong; the country policy and risk come next (a refusal is audited); then
 * the nonce is spent and the binding, its credential, the lifecycle, the `identity.bound` event and
 * the audit entry commit together. Spending the nonce with a conditional update makes concurrent
 * confirms of one nonce bind once; the partial unique index on active bindings does the same for
 * two different nonces.
 *
 * Its reads are one statement (readConfirm), the risk counts included when no device fingerprint
 * is given (with one, the assessment locks the device in a transaction of its own, as
 * bindRiskCheck does); the risk event is then written with the binding, or alone when the binding
 * is refused, as it was written before the binding.
 */
export async function bindConfirm(
  ctx: ServiceContext,
  input: { accountDid: string; personDid: string; nonce: string; deviceFingerprint?: string } & WalletProof,
) {
  const personId = personIdFromDid(issuerDid(), input.personDid);
  const riskPlan = input.deviceFingerprint ? null : planRisk(ctx, {}, "bind");
  const candidates = await statusCandidates(ctx.db);
  const row = await readConfirm(ctx, input, personId, riskPlan, candidates);
  const account = row?.account;
  if (!row || !account) throw notFound("Account");
  const person = row.person;
  if (!person) throw notFound("Person");
  if (person.erased) throw conflict("person_erased", "This person has been erased; nothing can be bound to them.");
  const nonce = checkNonce(ctx, row.nonce, account, person);
  const reinstating = row.reinstating;
  assertBindable(account, person, !!reinstating);
  const signer = await verifyWalletProof(ctx.db, account, nonce, input);
  if (reinstating) {
    assertReinstatingSigner(reinstating, signer);
    return reinstateBinding(ctx, { nonceId: nonce.id, account, person, bindingId: reinstating.id, signer });
  }

  const personDid = personDidOf(issuerDid(), person.id);
  const policy = countryDecision(ctx.org, person.country);
  if (!policy.allowed)
    await refuse(
      ctx,
      account,
      person,
      "country_policy",
      { rule: policy.rule, country: person.country },
      forbidden("country_not_allowed", policy.message),
    );
  if (person.sanctionsFlag) {
    await refuse(
      ctx,
      account,
      person,
      "aml_hold",
      {},
      forbidden("aml_hold", "The person has an open sanctions flag; a compliance officer must clear it before binding."),
    );
  }
  let risk: { denied: boolean; score: number };
  let riskInsert: Prisma.Sql | undefined;
  if (riskPlan) {
    const { assessment, insert } = decideRisk({ ...riskPlan, input: { subjectRef: account.did } }, row as ConfirmRow & RiskCounts);
    risk = { denied: assessment.decision === "deny", score: assessment.score };
    riskInsert = insert;
  } else {
    risk = await bindRiskCheck(ctx, { account, deviceFingerprint: input.deviceFingerprint });
  }
  if (risk.denied)
    await refuse(
      ctx,
      account,
      person,
      "risk_denied",
      { score: risk.score },
      forbidden("risk_denied", "The binding was refused by the anti-abuse risk assessment."),
      riskInsert,
    );

  const positions = pickStatusPositions(candidates, row);
  return commitBinding(ctx, { nonceId: nonce.id, account, person, personDid, signer, riskInsert, positions });
}

/** Writes the risk event alone (a binding refused by its statement); answers `err`, the error to throw. */
async function withRiskEvent(ctx: ServiceContext, riskInsert: Prisma.Sql | undefined, err: unknown): Promise<unknown> {
  if (riskInsert) await ctx.db.$executeRaw(riskInsert);
  return err;
}

/**
 * The binding's writes as ONE statement of the organization's group commit (docs/performance.md,
 * "Product paths"): the nonce spent, the account moved to bound, the binding inserted with its
 * signed credential, its two status positions claimed, the attestation mark, the `identity.bound`
 * event and the audit entry commit together or not at all. Spending the nonce and moving the
 * account are conditional updates that must touch their row, so concurrent confirms of one nonce
 * bind once; the partial unique index on active bindings does the same for two nonces. The status
 * positions are the free candidates the read found (or drawn here) and claimed by the statement
 * only if still free: one taken meanwhile fails the statement, which is drawn and run again (new
 * lists after several misses).
 */
async function commitBinding(
  ctx: ServiceContext,
  b: {
    nonceId: string;
    account: Pick<Account, "id" | "did">;
    person: Pick<Person, "id" | "kycLevel" | "pairwiseId">;
    personDid: string;
    signer: { signingKey: string; signingKeys: string[]; signingPermissions: string[] };
    /** The risk event, written last in the statement (and alone when the statement is refused). */
    riskInsert?: Prisma.Sql;
    /** Free status positions found by the read, for the first attempt; later attempts draw. */
    positions: StatusPosition[] | null;
  },
) {
  const { account, person, personDid, signer, riskInsert } = b;
  const bindingId = randomUUID();
  for (let attempt = 0; ; attempt++) {
    const at = new Date();
    const positions =
      (attempt === 0 && b.positions) || (await drawStatusPositions(ctx.db, attempt > 0 && attempt % DRAWS_BEFORE_NEW_LIST === 0));
    const issued = issueAccountBindingCredential({
      bindingId,
      personDid,
      accountDid: account.did,
      kycLevel: person.kycLevel,
      pairwiseId: person.pairwiseId,
      issuedAt: at,
      credentialStatus: positions.map(statusEntryJson),
    });
    const t = utcTimestamp(at);
    const writes: GroupedWrite[] = [
      { sql: Prisma.sql`UPDATE signature_nonces SET "consumedAt" = ${t} WHERE id = ${b.nonceId}::uuid AND "consumedAt" IS NULL`, rows: 1 },
      {
        sql: Prisma.sql`UPDATE accounts SET lifecycle = 'bound', "updatedAt" = ${t} WHERE id = ${account.id}::uuid AND lifecycle = 'provisional'`,
        rows: 1,
      },
      {
        sql: Prisma.sql`INSERT INTO account_bindings (id, "orgId", "accountId", "personId", "bindingVcHash", credential, "issuerKeyId", "createdAt",
                          "signingKey", "signingKeys", "signingPermissions", "keysCheckedAt")
                        VALUES (${bindingId}::uuid, ${ctx.org.id}::uuid, ${account.id}::uuid, ${person.id}::uuid, ${issued.bindingVcHash},
                          ${JSON.stringify(issued.credential)}::jsonb, ${issued.verificationMethod}, ${t},
                          ${signer.signingKey}, ${signer.signingKeys}::text[], ${signer.signingPermissions}::text[], ${t})`,
        rows: 1,
      },
      ...positions.map((p) => ({ sql: statusPositionSql(p, bindingId), rows: 1 })),
      { sql: attestationChangedSql(ctx.org.id, [account.id], at), rows: null },
      {
        sql: eventInsertSql(ctx.org.id, "identity.bound", { accountDid: account.did, personDid, bindingVcHash: issued.bindingVcHash }, at),
        rows: 1,
      },
      ...(riskInsert ? [{ sql: riskInsert, rows: 1 }] : []),
    ];
    try {
      await appendAuditGrouped(ctx.db, ctx.org.id, {
        actor: ctx.actor,
        input: {
          action: "identity.bound",
          subjectType: "account",
          subject: account.did,
          data: {
            personDid,
            bindingId,
            bindingVcHash: issued.bindingVcHash,
            kycLevel: person.kycLevel,
            verificationMethod: issued.verificationMethod,
          },
        },
        writes,
      });
    } catch (err) {
      const failed = failedGroupedWrite(err); // which of this binding's writes; null for another error
      if (failed === 3 || failed === 4) continue; // a status position was taken meanwhile: draw again
      // Refused or failed: the assessment is recorded all the same, as when it was written first.
      if (failed === 0)
        throw await withRiskEvent(ctx, riskInsert, conflict("nonce_used", "This nonce was already used; request a new challenge."));
      if (failed === 1 || uniqueKeyTaken(err))
        throw await withRiskEvent(ctx, riskInsert, conflict("already_bound", "This account is already bound to a person."));
      throw await withRiskEvent(ctx, riskInsert, err);
    }
    return {
      bound: true as const,
      accountDid: account.did,
      personDid,
      bindingVcHash: issued.bindingVcHash,
      lifecycle: "bound" as const,
      credential: issued.credential,
    };
  }
}
